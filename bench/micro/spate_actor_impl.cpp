// pipeline3, prodcons and latency_chain with spate's typed actors on the shared pool.
#include <functional>
#include <future>
#include <latch>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#include "shapes.hpp"
#include "spate/actor.hpp"

namespace spate_bench {
namespace {

// A source keeps at most this many items in the actors after it (their mailboxes added up):
// the actor-level counterpart of bounded channels (send_next_if in the streaming layer), so
// that memory stays bounded however fast the source is.
constexpr std::size_t max_in_flight = 8192;
constexpr std::uint64_t batch = 1024;

struct tick {};

template <class Item>
struct counting_sink : spate::typed_actor<counting_sink<Item>, Item> {
  counting_sink(std::uint64_t expected, std::promise<std::uint64_t>* done)
      : expected(expected), done(done) {}
  void on(Item& item) {
    if constexpr (std::is_same_v<Item, tuple24>) {
      checksum += item.value;
    } else {
      checksum += item;
    }
    if (++received == expected) done->set_value(checksum);
  }
  std::uint64_t expected, received = 0, checksum = 0;
  std::promise<std::uint64_t>* done;
};

template <class Item, class Next>
struct forwarder : spate::typed_actor<forwarder<Item, Next>, Item> {
  explicit forwarder(spate::actor_ref<Next> next) : next(std::move(next)) {}
  void on(Item& item) { spate::send(next, item); }
  spate::actor_ref<Next> next;
};

template <class Item, class Next, class Make>
struct batching_source : spate::typed_actor<batching_source<Item, Next, Make>, tick> {
  // `later_backlog`: items queued in the actors after `next` (none by default). Watching only
  // `next` would let a fast forwarder move the backlog into the next mailbox unbounded.
  batching_source(
      spate::actor_ref<Next> next, std::uint64_t n,
      std::function<std::size_t()> later_backlog = [] { return std::size_t{0}; })
      : next(std::move(next)), n(n), later_backlog(std::move(later_backlog)) {}
  void on(tick&) {
    // The later mailboxes are read only when `next` has room: reading them steals their
    // actors' hot cache lines, and a throttled source re-checks on every tick.
    const std::size_t queued = next.mailbox_size();
    if (queued < max_in_flight && queued + later_backlog() < max_in_flight) {
      const std::uint64_t end = std::min(n, sent + batch);
      for (; sent < end; ++sent) spate::send(next, Make{}(sent));
    }
    if (sent < n) spate::send(this->typed_self(), tick{});
  }
  spate::actor_ref<Next> next;
  std::uint64_t n, sent = 0;
  std::function<std::size_t()> later_backlog;
};

struct make_tuple {
  tuple24 operator()(std::uint64_t i) const { return {i, i * 3, i}; }
};
struct make_word {
  std::uint32_t operator()(std::uint64_t i) const { return static_cast<std::uint32_t>(i); }
};

json pipeline3(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  spate::actor_system system(spate_config(p));
  std::promise<std::uint64_t> done;
  using sink_t = counting_sink<tuple24>;
  using forwarder_t = forwarder<tuple24, sink_t>;
  using source_t = batching_source<tuple24, forwarder_t, make_tuple>;
  auto sink = system.spawn<sink_t>(n, &done);
  auto middle = system.spawn<forwarder_t>(sink);
  auto source = system.spawn<source_t>(middle, n, [sink] { return sink.mailbox_size(); });
  std::uint64_t checksum = 0;
  json m;
  timed_run(m, [&] {
    spate::send(source, tick{});
    checksum = done.get_future().get();
  });
  if (checksum != tuple24_checksum(n)) throw std::runtime_error("pipeline3: wrong checksum");
  add_items_per_s(m, n);
  return m;
}

json prodcons(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  spate::actor_system system(spate_config(p));
  std::promise<std::uint64_t> done;
  using sink_t = counting_sink<std::uint32_t>;
  using source_t = batching_source<std::uint32_t, sink_t, make_word>;
  auto consumer = system.spawn<sink_t>(n, &done);
  auto producer = system.spawn<source_t>(consumer, n);
  std::uint64_t checksum = 0;
  json m;
  timed_run(m, [&] {
    spate::send(producer, tick{});
    checksum = done.get_future().get();
  });
  if (checksum != word_checksum(n)) throw std::runtime_error("prodcons: wrong checksum");
  add_ns_per_msg(m, n);
  add_items_per_s(m, n);
  return m;
}

// latency_chain: stage i forwards to stage i+1; the last records now - sent.
struct chain_stage : spate::typed_actor<chain_stage, stamp> {
  chain_stage(spate::actor_ref<chain_stage> next, std::vector<std::int64_t>* samples,
              std::promise<void>* finished)
      : next(std::move(next)), samples(samples), finished(finished) {}
  void on(stamp& s) {
    if (next) {
      spate::send(next, s);
    } else if (s.sent_ns < 0) {
      finished->set_value();
    } else {
      samples->push_back(now_ns() - s.sent_ns);
    }
  }
  spate::actor_ref<chain_stage> next;
  std::vector<std::int64_t>* samples;
  std::promise<void>* finished;
};

json latency_chain(const bench_params& p) {
  const auto stages = static_cast<std::size_t>(p.integer("stages"));
  const double rate = p.number("rate");
  const double seconds = p.number("seconds");
  if (stages == 0 || rate <= 0) throw usage_error("latency_chain needs stages >= 1 and rate > 0");
  spate::actor_system system(spate_config(p));
  std::vector<std::int64_t> samples;
  samples.reserve(std::size_t(rate * seconds) + 16);
  std::promise<void> finished;
  spate::actor_ref<chain_stage> head;
  for (std::size_t i = 0; i < stages; ++i) {
    head = system.spawn<chain_stage>(head, &samples, &finished);
  }
  json m;
  timed_run(m, [&] {
    // The generator is a plain thread (the paper's blocking "rate generator" actor).
    paced_sends(rate, seconds, [&](std::int64_t sent) { spate::send(head, stamp{sent}); });
    spate::send(head, stamp{-1});
    finished.get_future().wait();
  });
  add_latency_metrics(m, std::move(samples), latency_warmup_fraction);
  return m;
}

}  // namespace

// Nothing to do: the workers should sleep (cpu_pct is the headline).
json idle(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  json m;
  timed_run(
      m, [&] { std::this_thread::sleep_for(std::chrono::duration<double>(p.number("seconds"))); });
  return m;
}

void register_spate_actor_impls(bench_registry& r) {
  r.implement("idle", "spate-actor", idle);
  r.implement("pipeline3", "spate-actor", pipeline3);
  r.implement("prodcons", "spate-actor", prodcons);
  r.implement("latency_chain", "spate-actor", latency_chain);
}

}  // namespace spate_bench
