#pragma once
// What `spate-bench apps` shares between its spate and CAF runs: the run's shape (rate,
// records, replicas, source bound), how outputs are checked against the sequential run, the
// report, and the spate run itself.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../examples/apps/common/replay_source.hpp"
#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#ifdef SPATE_BENCH_HAVE_ROCKSDB
#include "spate/state/rocksdb_backend.hpp"
#endif

namespace spate_bench::apps_run {

struct run_shape {
  double rate = 0;
  std::uint64_t total = 0;
  std::size_t replicas = 1;
  // Items the source may have waiting at the first operator (0: no bound beyond the
  // runtime's). spate: every edge's capacity; CAF: the source checks the first actor's
  // queue before each send, as the paper's send_next_if (Sect. 4, Fig. 16).
  std::size_t queue_limit = 0;
};

inline run_shape shape_of(const bench_params& p) {
  run_shape s;
  s.rate = p.number("rate");
  s.replicas = std::size_t(p.integer("replicas"));
  if (s.rate < 0) throw usage_error("apps: --rate must be >= 0");
  if (s.replicas < 1) throw usage_error("apps: --replicas must be >= 1");
  if (p.integer("queue_limit") < 0) throw usage_error("apps: --queue_limit must be >= 0");
  s.queue_limit = std::size_t(p.integer("queue_limit"));
  s.total = s.rate > 0 ? std::uint64_t(std::llround(s.rate * p.number("seconds")))
                       : std::uint64_t(p.integer("n"));
  if (s.total == 0) throw usage_error("apps: nothing to send (n or rate x seconds is 0)");
  return s;
}

// A sink's check: add() each output as it arrives, verify() at the end (throws when the
// outputs are not the sequential run's; returns how many there were).
template <class C>
concept output_check = requires(C& c, const typename C::output_type& o) {
  c.add(o);
  { c.verify() } -> std::convertible_to<std::size_t>;
};

// The outputs, sorted by their `seq`, are exactly the sequential run's.
template <class Output>
class exact_outputs {
 public:
  using output_type = Output;
  exact_outputs() = default;
  explicit exact_outputs(std::shared_ptr<const std::vector<Output>> expected)
      : expected_(std::move(expected)) {
    got_.reserve(expected_->size());
  }
  void add(const Output& o) { got_.push_back(o); }
  std::size_t verify() {
    std::sort(got_.begin(), got_.end(),
              [](const Output& a, const Output& b) { return a.seq < b.seq; });
    if (got_ != *expected_)
      throw std::runtime_error("apps: the outputs differ from the sequential run (" +
                               std::to_string(got_.size()) + " vs " +
                               std::to_string(expected_->size()) + ")");
    return got_.size();
  }

 private:
  std::shared_ptr<const std::vector<Output>> expected_;
  std::vector<Output> got_;
};

// Throughput (records sent per second), latency (source stamp to sink) and the check.
template <output_check Check>
json report(json m, std::uint64_t total, Check& check, std::vector<std::int64_t> latencies_ns) {
  const std::size_t outputs = check.verify();
  add_items_per_s(m, total);
  add_latency_metrics(m, std::move(latencies_ns));
  m["outputs"] = outputs;
  return m;
}

template <class Record, output_check Check, class Make>
json run_spate(const bench_params& p, const std::vector<Record>& records, const run_shape& s,
               Make&& make, Check check) {
  namespace flow = spate::flow;
  spate::runtime rt(spate_runtime_config(p));
  std::vector<std::int64_t> latencies;
  flow::graph_options options;
  if (s.queue_limit != 0) options.links.capacity = s.queue_limit;
  // checkpoint_ms > 0: checkpoints at that interval into a fresh directory (on the disk of
  // the working directory, fsynced as in production), removed after the run.
  const std::int64_t checkpoint_ms = p.integer("checkpoint_ms");
  std::filesystem::path checkpoint_dir;
  if (checkpoint_ms > 0) {
    checkpoint_dir =
        std::filesystem::absolute(p.text("checkpoint_dir")) /
        ("run-" + std::to_string(::getpid()) + "-" + std::to_string(apps::steady_ns()));
    options.checkpoints = flow::checkpoint_options{
        .directory = checkpoint_dir, .interval = std::chrono::milliseconds(checkpoint_ms)};
  }
  // state_backend=rocksdb: keyed state in RocksDB tables under a fresh directory, removed
  // after the run, with state_cached_rows rows per replica cached in front of each.
  std::filesystem::path state_dir;
  if (p.text("state_backend") == "rocksdb") {
#ifdef SPATE_BENCH_HAVE_ROCKSDB
    state_dir = std::filesystem::absolute(p.text("state_dir")) /
                ("run-" + std::to_string(::getpid()) + "-" + std::to_string(apps::steady_ns()));
    options.keyed_state_backend = spate::state::rocksdb_backend(
        {.directory = state_dir,
         .cached_rows = static_cast<std::size_t>(p.integer("state_cached_rows"))});
#else
    throw usage_error("apps: built without RocksDB (librocksdb-dev)");
#endif
  } else if (p.text("state_backend") != "memory") {
    throw usage_error("apps: --state_backend must be memory or rocksdb");
  }
  using output = typename Check::output_type;
  flow::graph job(make(flow::make_stage<apps::replay_source<Record>>(
                           std::make_shared<const std::vector<Record>>(records), s.rate, s.total),
                       flow::sink([&](output& o) {
                         latencies.push_back(apps::steady_ns() - o.stamp_ns);
                         check.add(o);
                       })),
                  options);
  json m;
  timed_run(m, [&] { job.run(rt); });
  if (checkpoint_ms > 0) {
    const flow::checkpoint_stats c = job.checkpoints();
    m["checkpoints"] = c.completed;
    m["checkpoint_bytes"] = c.last_bytes;
    m["checkpoint_us"] = c.last_duration.count();
    std::filesystem::remove_all(checkpoint_dir);
  }
  if (!state_dir.empty()) std::filesystem::remove_all(state_dir);
  return report(std::move(m), s.total, check, std::move(latencies));
}

}  // namespace spate_bench::apps_run
