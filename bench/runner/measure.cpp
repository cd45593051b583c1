#include "measure.hpp"

#include <ctime>

#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "spate/platform/backoff.hpp"

namespace spate_bench {

namespace {
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}
// CPU seconds the last paced_sends spent on its own thread (sleeping, spinning the last
// stretch before each send, and sending), and the wall time it ran.
double generator_cpu_s = 0;
double generator_wall_s = 0;
}  // namespace

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double peak_rss_mb() {
  // VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over fork+exec, so a run
  // started by a big parent (bench-compare's Python) would report the parent's peak.
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

// The probe tells which vCPU placement a run saw (docs/benchmarks: "c2c regime"); it must not
// change the run it describes. Two threads bounce one cache line; on a loaded machine the
// partner is often descheduled, so a pure spin would burn whole time slices per round trip
// (140,000 of them took minutes in CI under two busy neighbours). Each wait therefore spins a
// bounded number of times and then yields, and the probe ends once `budget` has passed (it
// looks at the clock every 256 round trips, so it may run that many past the budget): a
// quiet machine (a round trip is ~0.1-1 us, never near the spin limit) measures exactly as
// before, a loaded one reports a large value in bounded time.
double cache_line_round_trip_ns() {
  constexpr int rounds = 20000;
  constexpr int batches = 7;
  constexpr int spins_before_yield = 4096;
  constexpr std::uint64_t stop = ~std::uint64_t{0};
  constexpr std::int64_t budget_ns = 200'000'000;
  alignas(64) std::atomic<std::uint64_t> line{0};
  auto wait_while = [&](std::uint64_t seen) {
    std::uint64_t value = 0;
    for (int spins = 0; (value = line.load(std::memory_order_acquire)) == seen; ++spins) {
      if (spins < spins_before_yield) {
        spate::cpu_relax();
      } else {
        std::this_thread::yield();
      }
    }
    return value;
  };
  std::thread echo([&] {
    for (std::uint64_t last = 0;;) {
      last = wait_while(last);
      if (last == stop) return;
      line.store(++last, std::memory_order_release);  // odd in, even out
    }
  });
  std::vector<double> batch_ns;
  const auto deadline = now_ns() + budget_ns;
  std::uint64_t sent = 0;
  for (int b = 0; b < batches && (b == 0 || now_ns() < deadline); ++b) {
    const auto start = now_ns();
    int done = 0;
    for (; done < rounds && (done % 256 != 0 || now_ns() < deadline || b + done == 0); ++done) {
      line.store(++sent, std::memory_order_release);
      sent = wait_while(sent);
    }
    if (done > 0) batch_ns.push_back(double(now_ns() - start) / done);
  }
  line.store(stop, std::memory_order_release);
  echo.join();
  std::sort(batch_ns.begin(), batch_ns.end());
  return batch_ns[batch_ns.size() / 2];
}

void timed_run(json& metrics, const std::function<void()>& body) {
  const double cpu_before = process_cpu_seconds();
  const auto start = now_ns();
  body();
  const double wall = double(now_ns() - start) / 1e9;
  const double cpu = process_cpu_seconds() - cpu_before;
  metrics["wall_s"] = wall;
  metrics["cpu_pct"] = wall > 0 ? 100.0 * cpu / wall : 0.0;
  metrics["peak_rss_mb"] = peak_rss_mb();
}

void add_latency_metrics(json& metrics, std::vector<std::int64_t> samples, double warmup_fraction) {
  // The generator's own CPU (mostly the spin before each timed send) is part of cpu_pct for
  // every impl alike; runtime_cpu_pct is what the implementation under test used.
  if (generator_wall_s > 0 && metrics.contains("wall_s")) {
    const double wall = metrics["wall_s"].get<double>();
    metrics["generator_cpu_pct"] = 100.0 * generator_cpu_s / wall;
    metrics["runtime_cpu_pct"] =
        std::max(0.0, metrics["cpu_pct"].get<double>() - 100.0 * generator_cpu_s / wall);
    generator_cpu_s = generator_wall_s = 0;
  }
  samples.erase(samples.begin(),
                samples.begin() + std::ptrdiff_t(double(samples.size()) * warmup_fraction));
  if (samples.empty()) {
    metrics["lat_samples"] = 0;
    return;
  }
  std::sort(samples.begin(), samples.end());
  double sum = 0;
  for (auto s : samples) sum += double(s);
  auto pct = [&](double p) {
    std::size_t i = std::min(samples.size() - 1, std::size_t(p * double(samples.size())));
    return double(samples[i]) / 1e3;
  };
  metrics["lat_samples"] = samples.size();
  metrics["lat_mean_us"] = sum / double(samples.size()) / 1e3;
  metrics["lat_p50_us"] = pct(0.50);
  metrics["lat_p99_us"] = pct(0.99);
  metrics["lat_max_us"] = double(samples.back()) / 1e3;
}

json savina_iterations(const bench_params& params, const std::function<double()>& iteration) {
  const auto iterations = params.integer("iterations");
  const auto warmup = params.integer("warmup");
  if (iterations == 0) throw usage_error("parameter --iterations must be at least 1");
  std::vector<double> times;
  json metrics;
  timed_run(metrics, [&] {
    for (std::int64_t i = 0; i < warmup; ++i) iteration();
    for (std::int64_t i = 0; i < iterations; ++i) times.push_back(iteration());
  });
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  json result;
  result["iter_s"] = sorted[sorted.size() / 2];
  result["iter_min_s"] = sorted.front();
  result["iter_max_s"] = sorted.back();
  for (auto& [k, v] : metrics.items()) result[k] = v;
  return result;
}

void wait_until_ns(std::int64_t deadline_ns) {
  // The default 50 us timer slack would make every sleep overshoot; with 1 ns slack a sleep
  // ends within a few microseconds, so the generator sleeps for all but the last ~30 us and
  // its own CPU time stays small next to the runtime's being measured.
  thread_local const bool precise_timers = prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0;
  const std::int64_t spin_ns = precise_timers ? 30'000 : 150'000;
  for (;;) {
    const auto left = deadline_ns - now_ns();
    if (left <= 0) return;
    if (left > spin_ns + 10'000) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(left - spin_ns));
    } else {
      spate::cpu_relax();
    }
  }
}

}  // namespace spate_bench

namespace spate_bench {

void paced_sends(double rate, double seconds, const std::function<void(std::int64_t)>& send) {
  const double cpu_at_start = thread_cpu_seconds();
  const auto wall_at_start = now_ns();
  struct account {
    double cpu_at_start;
    std::int64_t wall_at_start;
    ~account() {
      generator_cpu_s = thread_cpu_seconds() - cpu_at_start;
      generator_wall_s = double(now_ns() - wall_at_start) / 1e9;
    }
  } accounting{cpu_at_start, wall_at_start};
  const auto total = std::int64_t(rate * seconds);
  const double period_ns = 1e9 / rate;
  const auto start = now_ns();
  for (std::int64_t i = 0; i < total; ++i) {
    wait_until_ns(start + std::int64_t(double(i) * period_ns));
    send(now_ns());
  }
}

}  // namespace spate_bench
