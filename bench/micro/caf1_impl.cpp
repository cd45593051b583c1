// pipeline3, prodcons, latency_chain (and farm_chain, idle) with CAF 1.1 event-based actors:
// caf_impl.cpp (CAF 0.17) ported to the 1.x API, same actors and same messages. As there,
// the CAF source sends as fast as it can into an unbounded mailbox (no pacing), so its peak
// RSS is reported. Built into spate-bench-caf1 only (bench/CMakeLists.txt, SPATE_CAF1_ROOT).
#include <caf/all.hpp>

#include <future>
#include <thread>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/caf1_config.hpp"
#include "../runner/measure.hpp"
#include "shapes.hpp"

namespace spate_bench {
namespace {

using caf::tick_atom;
using caf::tick_atom_v;
constexpr std::uint64_t batch = 1024;

struct sink_state {
  std::uint64_t received = 0;
  std::uint64_t checksum = 0;
};

template <class Item>
caf::behavior counting_sink(caf::stateful_actor<sink_state>* self, std::uint64_t expected,
                            std::promise<std::uint64_t>* done) {
  return {[=](const Item& item) {
    auto& s = self->state();
    if constexpr (std::is_same_v<Item, tuple24>) {
      s.checksum += item.value;
    } else {
      s.checksum += item;
    }
    if (++s.received == expected) done->set_value(s.checksum);
  }};
}

template <class Item>
caf::behavior forwarder(caf::event_based_actor* self, caf::actor next) {
  return {[=](const Item& item) { self->mail(item).send(next); }};
}

struct source_state {
  std::uint64_t sent = 0;
};

template <class Make>
caf::behavior batching_source(caf::stateful_actor<source_state>* self, caf::actor next,
                              std::uint64_t n) {
  return {[=](tick_atom) {
    auto& sent = self->state().sent;
    const std::uint64_t end = std::min(n, sent + batch);
    for (; sent < end; ++sent) self->mail(Make{}(sent)).send(next);
    if (sent < n) self->mail(tick_atom_v).send(self);
  }};
}

struct make_tuple {
  tuple24 operator()(std::uint64_t i) const { return {i, i * 3, i}; }
};
struct make_word {
  std::uint32_t operator()(std::uint64_t i) const { return static_cast<std::uint32_t>(i); }
};

void stop_all(const std::vector<caf::actor>& actors) {
  for (auto& a : actors) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}

json pipeline3(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  caf1_system owner(p);
  caf::actor_system& system = *owner;
  std::promise<std::uint64_t> done;
  auto sink = system.spawn(counting_sink<tuple24>, n, &done);
  auto middle = system.spawn(forwarder<tuple24>, sink);
  auto source = system.spawn(batching_source<make_tuple>, middle, n);
  std::uint64_t checksum = 0;
  json m;
  timed_run(m, [&] {
    caf::anon_mail(tick_atom_v).send(source);
    checksum = done.get_future().get();
  });
  stop_all({source, middle, sink});
  if (checksum != tuple24_checksum(n)) throw std::runtime_error("pipeline3: wrong checksum");
  add_items_per_s(m, n);
  return m;
}

json prodcons(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  caf1_system owner(p);
  caf::actor_system& system = *owner;
  std::promise<std::uint64_t> done;
  auto consumer = system.spawn(counting_sink<std::uint32_t>, n, &done);
  auto producer = system.spawn(batching_source<make_word>, consumer, n);
  std::uint64_t checksum = 0;
  json m;
  timed_run(m, [&] {
    caf::anon_mail(tick_atom_v).send(producer);
    checksum = done.get_future().get();
  });
  stop_all({producer, consumer});
  if (checksum != word_checksum(n)) throw std::runtime_error("prodcons: wrong checksum");
  add_ns_per_msg(m, n);
  add_items_per_s(m, n);
  return m;
}

caf::behavior chain_stage(caf::event_based_actor* self, caf::actor next,
                          std::vector<std::int64_t>* samples, std::promise<void>* finished) {
  return {[=](const stamp& s) {
    if (next) {
      self->mail(s).send(next);
    } else if (s.sent_ns < 0) {
      finished->set_value();
    } else {
      samples->push_back(now_ns() - s.sent_ns);
    }
  }};
}

json idle(const bench_params& p) {
  caf1_system owner(p);
  json m;
  timed_run(
      m, [&] { std::this_thread::sleep_for(std::chrono::duration<double>(p.number("seconds"))); });
  return m;
}

json latency_chain(const bench_params& p) {
  const auto stages = static_cast<std::size_t>(p.integer("stages"));
  const double rate = p.number("rate");
  const double seconds = p.number("seconds");
  if (stages == 0 || rate <= 0) throw usage_error("latency_chain needs stages >= 1 and rate > 0");
  caf1_system owner(p);
  caf::actor_system& system = *owner;
  std::vector<std::int64_t> samples;
  samples.reserve(std::size_t(rate * seconds) + 16);
  std::promise<void> finished;
  std::vector<caf::actor> chain;
  caf::actor head;
  for (std::size_t i = 0; i < stages; ++i) {
    head = system.spawn(chain_stage, head, &samples, &finished);
    chain.push_back(head);
  }
  json m;
  timed_run(m, [&] {
    paced_sends(rate, seconds, [&](std::int64_t sent) { caf::anon_mail(stamp{sent}).send(head); });
    caf::anon_mail(stamp{-1}).send(head);
    finished.get_future().wait();
  });
  stop_all(chain);
  add_latency_metrics(m, std::move(samples), latency_warmup_fraction);
  return m;
}

// farm_chain: source -> (router -> replicas) x 3 -> sink, every farm with its router actor.
struct router_state {
  std::size_t next = 0;
};
caf::behavior farm_router(caf::stateful_actor<router_state>* self,
                          std::vector<caf::actor> workers) {
  return {[=](const tuple24& t) {
    auto& next = self->state().next;
    self->mail(t).send(workers[next]);
    next = next + 1 == workers.size() ? 0 : next + 1;
  }};
}

json farm_chain(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  const auto replicas = static_cast<std::size_t>(p.integer("replicas"));
  if (replicas == 0) throw usage_error("farm_chain needs --replicas >= 1");
  caf1_system owner(p);
  caf::actor_system& system = *owner;
  std::promise<std::uint64_t> done;
  std::vector<caf::actor> all;
  caf::actor next = system.spawn(counting_sink<tuple24>, n, &done);
  all.push_back(next);
  for (int farm = 0; farm < 3; ++farm) {
    std::vector<caf::actor> workers;
    for (std::size_t i = 0; i < replicas; ++i)
      workers.push_back(system.spawn(forwarder<tuple24>, next));
    all.insert(all.end(), workers.begin(), workers.end());
    next = system.spawn(farm_router, workers);
    all.push_back(next);
  }
  auto source = system.spawn(batching_source<make_tuple>, next, n);
  all.push_back(source);
  std::uint64_t checksum = 0;
  json m;
  timed_run(m, [&] {
    caf::anon_mail(tick_atom_v).send(source);
    checksum = done.get_future().get();
  });
  stop_all(all);
  if (checksum != tuple24_checksum(n)) throw std::runtime_error("farm_chain: wrong checksum");
  add_items_per_s(m, n);
  m["routers"] = 3;
  return m;
}

}  // namespace

void register_caf1_impls(bench_registry& r) {
  r.implement("farm_chain", "caf1", farm_chain);
  r.implement("idle", "caf1", idle);
  r.implement("pipeline3", "caf1", pipeline3);
  r.implement("prodcons", "caf1", prodcons);
  r.implement("latency_chain", "caf1", latency_chain);
}

}  // namespace spate_bench
