// timer_jitter (shared benchmark contract, "Runtime benchmarks"): `rate` timers per second
// for `seconds`, on the runtime's worker-driven timers; how late each fires, and the CPU
// that costs. Deadlines are evenly spaced and all scheduled before the clock starts, so the
// run measures firing, not adding.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#include "spate/exec/runtime.hpp"

namespace spate_bench {
namespace {

double percentile_us(const std::vector<std::int64_t>& sorted_ns, double q) {
  const auto i = static_cast<std::size_t>(q * double(sorted_ns.size() - 1));
  return double(sorted_ns[i]) / 1e3;
}

json timer_jitter(const bench_params& p) {
  const double rate = p.number("rate");
  const double seconds = p.number("seconds");
  if (rate <= 0 || seconds <= 0) throw usage_error("timer_jitter needs rate > 0 and seconds > 0");
  const auto count = static_cast<std::size_t>(rate * seconds);
  if (count == 0) throw usage_error("timer_jitter: rate * seconds must be at least 1");
  spate::runtime_config config;
  config.scheduler = spate_config(p).scheduler;
  spate::runtime rt{config};
  std::vector<std::int64_t> late_ns(count, 0);
  std::atomic<std::size_t> fired{0};
  std::promise<void> all_fired;
  const auto start = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  const auto spacing = std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / rate));
  for (std::size_t i = 0; i < count; ++i) {
    const auto deadline = start + spacing * static_cast<std::int64_t>(i);
    rt.timers().schedule_at(deadline, [&, i, deadline] {
      late_ns[i] = (std::chrono::steady_clock::now() - deadline).count();
      if (fired.fetch_add(1, std::memory_order_acq_rel) + 1 == count) all_fired.set_value();
    });
  }
  json m;
  timed_run(m, [&] { all_fired.get_future().wait(); });
  std::sort(late_ns.begin(), late_ns.end());
  double sum = 0;
  for (auto v : late_ns) sum += double(v);
  m["timers"] = count;
  m["late_mean_us"] = sum / double(count) / 1e3;
  m["late_p50_us"] = percentile_us(late_ns, 0.50);
  m["late_p99_us"] = percentile_us(late_ns, 0.99);
  m["late_max_us"] = double(late_ns.back()) / 1e3;
  return m;
}

}  // namespace

void register_timer_impls(bench_registry& r) {
  r.implement("timer_jitter", "spate", timer_jitter);
}

}  // namespace spate_bench
