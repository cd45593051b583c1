#pragma once
// Measurement helpers shared by every implementation: process CPU time, peak RSS, the
// cache-line round-trip probe, latency statistics, and the Savina iteration protocol.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "bench_registry.hpp"

namespace spate_bench {

using clock_type = std::chrono::steady_clock;

inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now().time_since_epoch())
      .count();
}

// Process user+sys CPU seconds.
double process_cpu_seconds();
double peak_rss_mb();

// Median round trip (ns) of one cache line between two threads.
double cache_line_round_trip_ns();

// Wall and CPU time around `body`; adds wall_s, cpu_pct, peak_rss_mb to `metrics`.
void timed_run(json& metrics, const std::function<void()>& body);

// Throughput of a timed_run that moved `items` items: items_per_s, and for the
// producer-consumer benchmarks ns_per_msg (wall time per item).
inline void add_items_per_s(json& metrics, std::uint64_t items) {
  metrics["items_per_s"] = double(items) / metrics["wall_s"].get<double>();
}
inline void add_ns_per_msg(json& metrics, std::uint64_t items) {
  metrics["ns_per_msg"] = metrics["wall_s"].get<double>() * 1e9 / double(items);
}

// Latency statistics (microseconds) of samples in nanoseconds, after dropping the first
// `warmup_fraction` of them.
void add_latency_metrics(json& metrics, std::vector<std::int64_t> samples_ns,
                         double warmup_fraction = 0.0);

// Savina protocol: `iteration()` returns one iteration's measured wall seconds (set-up and
// tear-down excluded); runs `warmup` + `iterations` and reports the median as iter_s.
json savina_iterations(const bench_params& params, const std::function<double()>& iteration);

// Sleeps (then spins the last stretch) until `deadline_ns` on the steady clock.
void wait_until_ns(std::int64_t deadline_ns);

// latency_chain's generator: calls send(now_ns()) `rate` times a second for `seconds`.
void paced_sends(double rate, double seconds, const std::function<void(std::int64_t)>& send);

}  // namespace spate_bench
