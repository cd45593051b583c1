#pragma once
// The CAF versions of the streaming applications: the CAF-PP paper's "CAF" column. One actor
// per operator replica, a router actor in front of each farm (by key or round-robin), a
// source actor that sends in batches of 1,024 into unbounded mailboxes (or, with a queue
// limit, only while the first actor's queue is below it: the paper's send_next_if source of
// Fig. 16), and an end-of-stream marker that each router and sink counts from every
// upstream replica.
#include <caf/all.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <type_traits>
#include <vector>

#include "../runner/caf_config.hpp"
#include "apps_run.hpp"

namespace spate_bench::caf_apps {

// The end of the stream. It carries the newest event time seen upstream (the Yahoo
// benchmark's windows need the stream's final watermark; the other apps ignore it).
struct end_marker {
  std::uint64_t newest = 0;
};

}  // namespace spate_bench::caf_apps

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(spate_bench::caf_apps::end_marker)

namespace spate_bench::caf_apps {

using apps_run::run_shape;
using tick_atom = caf::atom_constant<caf::atom("tick")>;

// The length of the first actor's queue, as its sender sees it: counted up by the source for
// each send and down by the first actor for each item it takes. CAF 0.17's mailbox size is
// the owner's to read only; the paper added a synchronized size to CAF for the same purpose.
// Kept only when the source is bounded (a null count otherwise), so that the unbounded runs
// pay no shared counter per item.
using queue_length = std::atomic<std::int64_t>;

struct source_state {
  std::uint64_t sent = 0;
  std::int64_t start_ns = 0;
};

// Sends the replay to `next` (up to 1,024 per activation; at a rate, what is due each
// millisecond; with a queue limit, while `queued` is below it, else it retries at once), then
// one end marker. `queued` is null when there is no limit.
template <class Record>
caf::behavior source(caf::stateful_actor<source_state>* self, const std::vector<Record>* records,
                     run_shape s, caf::actor next, queue_length* queued) {
  return {[=](tick_atom) {
    auto& st = self->state;
    if (st.start_ns == 0) st.start_ns = apps::steady_ns();
    std::uint64_t due = s.total;
    if (s.rate > 0)
      due = std::min<std::uint64_t>(
          s.total, std::uint64_t(s.rate * double(apps::steady_ns() - st.start_ns) / 1e9) + 1);
    const std::uint64_t end = std::min(due, st.sent + 1024);
    const std::int64_t now = apps::steady_ns();
    const auto limit = std::int64_t(s.queue_limit);
    for (; st.sent < end; ++st.sent) {
      if (queued != nullptr) {
        if (queued->load(std::memory_order_relaxed) >= limit) break;
        queued->fetch_add(1, std::memory_order_relaxed);
      }
      Record r = (*records)[st.sent % records->size()];
      r.seq = st.sent;
      r.stamp_ns = now;
      self->send(next, r);
    }
    if (st.sent == s.total) {
      self->send(next, end_marker{});
    } else if (st.sent < due) {
      self->send(self, tick_atom::value);
    } else {
      self->delayed_send(self, std::chrono::milliseconds(1), tick_atom::value);
    }
  }};
}

// The first actor takes an item off the source's count; the others pass nullptr.
inline void taken(queue_length* queued) {
  if (queued != nullptr) queued->fetch_sub(1, std::memory_order_relaxed);
}

struct router_state {
  std::size_t ends = 0;
  std::size_t next = 0;
  std::uint64_t newest = 0;
};

struct round_robin {};

// A farm's router: by key (hash of key_of(item), modulo n) or round-robin; forwards the end
// marker once every upstream replica has sent one.
template <class In, class KeyOf>
caf::behavior router(caf::stateful_actor<router_state>* self, std::vector<caf::actor> replicas,
                     std::size_t upstreams, KeyOf key_of, queue_length* queued) {
  return {[=](const In& item) {
            taken(queued);
            auto& st = self->state;
            std::size_t to = 0;
            if constexpr (!std::is_same_v<KeyOf, round_robin>) {
              to =
                  std::hash<std::decay_t<decltype(key_of(item))>>{}(key_of(item)) % replicas.size();
            } else {
              to = st.next;
              st.next = st.next + 1 == replicas.size() ? 0 : st.next + 1;
            }
            self->send(replicas[to], item);
          },
          [=](const end_marker& m) {
            auto& st = self->state;
            st.newest = std::max(st.newest, m.newest);
            if (++st.ends == upstreams)
              for (auto& r : replicas) self->send(r, end_marker{st.newest});
          }};
}

// One operator replica: `op->process(item, emit)` per item (the apps' flow nodes offer it); at the
// end of the stream `op->finish(marker, emit)`, when it has one, may emit more and returns the
// marker to pass on.
template <class In, class Operator>
caf::behavior operator_actor(caf::event_based_actor* self, std::shared_ptr<Operator> op,
                             caf::actor next, queue_length* queued) {
  return {[=](const In& item) {
            taken(queued);
            op->process(item, [&](auto&& out) { self->send(next, out); });
          },
          [=](const end_marker& m) {
            end_marker out = m;
            if constexpr (requires { op->finish(m, [](auto&&) {}); })
              out = op->finish(m, [&](auto&& o) { self->send(next, o); });
            self->send(next, out);
          }};
}

template <class Check>
struct sink_state {
  Check check;
  std::vector<std::int64_t> latencies;
  std::size_t ends = 0;
};

template <class Check>
caf::behavior sink(caf::stateful_actor<sink_state<Check>>* self, Check check, std::size_t upstreams,
                   std::promise<sink_state<Check>>* done) {
  self->state.check = std::move(check);
  return {[=](const typename Check::output_type& o) {
            self->state.latencies.push_back(apps::steady_ns() - o.stamp_ns);
            self->state.check.add(o);
          },
          [=](const end_marker&) {
            if (++self->state.ends == upstreams) done->set_value(std::move(self->state));
          }};
}

// Spawns actors and remembers them, so that the run can stop them all at the end.
class topology {
 public:
  explicit topology(caf::actor_system& system) : system_(system) {}
  caf::actor_system& system() noexcept { return system_; }
  template <class... Args>
  caf::actor spawn(Args&&... args) {
    all_.push_back(system_.spawn(std::forward<Args>(args)...));
    return all_.back();
  }
  ~topology() {
    for (auto& a : all_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }

 private:
  caf::actor_system& system_;
  std::vector<caf::actor> all_;
};

// A farm of `n` operator actors in front of `next`, with a router when n > 1 (else the one
// replica is the farm's entry). `queued`: the source's count, when this farm is the first.
// Returns the entry.
template <class In, class Operator, class KeyOf, class MakeOperator>
caf::actor farm(topology& t, std::size_t n, std::size_t upstreams, KeyOf key_of, caf::actor next,
                MakeOperator make, queue_length* queued = nullptr) {
  std::vector<caf::actor> replicas;
  for (std::size_t i = 0; i < n; ++i)
    replicas.push_back(t.spawn(operator_actor<In, Operator>, std::make_shared<Operator>(make()),
                               next, n == 1 ? queued : nullptr));
  if (n == 1) return replicas.front();
  return t.spawn(router<In, KeyOf>, replicas, upstreams, key_of, queued);
}

// Runs the graph that `build(topology, sink, queued)` makes in front of the sink (returning
// its entry) over the replayed records.
template <class Record, apps_run::output_check Check, class Build>
json run(const bench_params& p, const std::vector<Record>& records, const run_shape& s,
         std::size_t sink_upstreams, Build&& build, Check check) {
  caf_system owner(p);
  std::promise<sink_state<Check>> done;
  queue_length queue{0};
  queue_length* queued = s.queue_limit != 0 ? &queue : nullptr;
  sink_state<Check> result;
  json m;
  {
    topology t(*owner);
    auto entry = build(t, t.spawn(sink<Check>, std::move(check), sink_upstreams, &done), queued);
    auto from = t.spawn(source<Record>, &records, s, entry, queued);
    timed_run(m, [&] {
      caf::anon_send(from, tick_atom::value);
      result = done.get_future().get();
    });
  }
  return apps_run::report(std::move(m), s.total, result.check, std::move(result.latencies));
}

}  // namespace spate_bench::caf_apps
