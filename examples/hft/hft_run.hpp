#pragma once
// Running the HFT application against a paced quote generator, and the paper's metric: the
// maximum sustained input rate, found by a search over rates within one run.
//
// The generator (a flow source on a thread of its own, as the paper's generator thread)
// first fills every symbol's window unpaced (no window fires before a symbol has 1,000
// quotes), then holds each probed rate for `step_seconds`. A step passes when the generator
// kept its schedule (backpressure did not hold it back by more than 1% of the step's quotes)
// and the windows that closed during the step had p99 latency ≤ `latency_bound`. The rate
// doubles until a step fails, then the search bisects between the best passing and the
// lowest failing rate. After the fill and after a failed step the generator pauses, so the
// backlog drains before the next step.
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

#include "hft.hpp"

namespace hft {

struct search_options {
  double first_rate = 50'000;  // quotes per second
  double step_seconds = 1.5;
  double latency_bound_ms = 50;
  int max_steps = 14;
  double resolution = 1.08;  // stop when failing / passing < this
  double pause_seconds = 3;  // after the fill and after a failed step: the backlog drains
  std::uint32_t symbol_count = symbols;
};

struct search_result {
  double max_rate = 0;  // the highest rate that passed
  double p99_ms_at_max = 0;
  std::uint64_t windows = 0;                   // fired over the whole run
  std::vector<std::pair<double, bool>> steps;  // (rate, passed)
};

// The `percent` percentile of `values` (reorders them): the element at n · percent / 100;
// values must not be empty.
template <class T>
T percentile(std::vector<T>& values, unsigned percent) {
  const auto at = values.begin() + std::ptrdiff_t(values.size() * percent / 100);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

inline std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Shared by the generator (which asks for the schedule) and the sink (which reports
// latencies); a mutex is enough at one report per 25 quotes.
class rate_search {
 public:
  explicit rate_search(search_options o) : options_(o), rate_(o.first_rate) {}

  // The generator: how many quotes should have been sent by `now`; 0 before start(); -1
  // when the search is over.
  std::int64_t due(std::int64_t now, std::uint64_t sent) {
    std::lock_guard lock(mutex_);
    if (finished_) return -1;
    if (paused_until_ > now) {  // draining: nothing new, and the step starts afterwards
      step_base_sent_ = sent;
      step_start_ = now;
      latencies_.clear();
      return std::int64_t(sent);
    }
    const double step_s = double(now - step_start_) / 1e9;
    if (step_s >= options_.step_seconds) {
      end_step(std::int64_t(sent), now);
      if (finished_) return -1;
      return std::int64_t(sent);
    }
    return std::int64_t(step_base_sent_) + std::int64_t(rate_ * step_s);
  }
  // The generator, after the unpaced fill: the first windows of every symbol close in a
  // burst, so the first step starts after a pause.
  void start(std::int64_t now, std::uint64_t sent) {
    std::lock_guard lock(mutex_);
    paused_until_ = now + std::int64_t(options_.pause_seconds * 1e9);
    step_start_ = now;
    step_base_sent_ = sent;
  }
  // The sink: a window closed `latency_ns` after its newest quote was made.
  void window_closed(std::int64_t latency_ns) {
    std::lock_guard lock(mutex_);
    ++result_.windows;
    latencies_.push_back(latency_ns);
  }
  search_result result() {
    std::lock_guard lock(mutex_);
    return result_;
  }

 private:
  void end_step(std::int64_t sent, std::int64_t now) {
    const double expected = rate_ * double(now - step_start_) / 1e9;
    const double behind = expected - double(sent - std::int64_t(step_base_sent_));
    double p99 = 0;
    if (!latencies_.empty()) p99 = double(percentile(latencies_, 99)) / 1e6;
    const bool passed =
        !latencies_.empty() && behind <= 0.01 * expected && p99 <= options_.latency_bound_ms;
    result_.steps.emplace_back(rate_, passed);
    if (passed && rate_ > result_.max_rate) {
      result_.max_rate = rate_;
      result_.p99_ms_at_max = p99;
    }
    if (passed)
      best_pass_ = std::max(best_pass_, rate_);
    else
      lowest_fail_ = lowest_fail_ == 0 ? rate_ : std::min(lowest_fail_, rate_);
    if (int(result_.steps.size()) >= options_.max_steps ||
        (lowest_fail_ != 0 && best_pass_ != 0 && lowest_fail_ / best_pass_ < options_.resolution)) {
      finished_ = true;
      return;
    }
    if (lowest_fail_ == 0)
      rate_ *= 2;
    else if (best_pass_ == 0)
      rate_ /= 2;
    else
      rate_ = (best_pass_ + lowest_fail_) / 2;
    if (!passed) paused_until_ = now + std::int64_t(options_.pause_seconds * 1e9);
    step_start_ = now;
    step_base_sent_ = std::uint64_t(sent);
    latencies_.clear();
  }

  search_options options_;
  std::mutex mutex_;
  double rate_;
  double best_pass_ = 0, lowest_fail_ = 0;
  bool finished_ = false;
  std::int64_t step_start_ = 0, paused_until_ = 0;
  std::uint64_t step_base_sent_ = 0;
  std::vector<std::int64_t> latencies_;
  search_result result_;
};

// The paced generator: fills every symbol's first window unpaced, then follows a schedule —
// the rate search, or a trading day. A Schedule offers start(now, sent) (the fill is over)
// and due(now, sent): how many quotes should have been sent by `now`, or -1 once it is over.
template <class Schedule>
class paced_quotes : public spate::flow::node<void, quote> {
 public:
  paced_quotes(Schedule* schedule, std::uint32_t symbol_count, std::uint64_t seed)
      : schedule_(schedule),
        generator_(seed, symbol_count),
        fill_(std::uint64_t(symbol_count) * 1000) {}
  // `wait` when nothing is due ends the activation, which publishes what was sent: a source
  // that kept returning `more` would hold up to a batch of quotes back at low rates.
  spate::flow::produce_status produce() {
    using spate::flow::produce_status;
    if (sent_ < fill_) {
      for (int i = 0; i < 256 && sent_ < fill_; ++i, ++sent_)
        send_next(generator_.next(steady_ns()));
      if (sent_ == fill_) schedule_->start(steady_ns(), sent_);
      return produce_status::more;
    }
    const std::int64_t now = steady_ns();
    const std::int64_t due = schedule_->due(now, sent_);
    if (due < 0) return produce_status::ended;  // the schedule is over: end of stream
    if (std::int64_t(sent_) >= due) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      return produce_status::wait;
    }
    for (int i = 0; i < 256 && std::int64_t(sent_) < due; ++i, ++sent_)
      send_next(generator_.next(now));
    return produce_status::wait;
  }

 private:
  Schedule* schedule_;
  quote_generator generator_;
  std::uint64_t fill_, sent_ = 0;
};

// Calls `run(pattern)` with the paper's windows under Key Partitioning or Window Farming,
// fitting each window with `function` (two pattern types, hence a generic callable).
template <class Function, class Run>
auto with_pattern(bool key_partitioning, Function function, std::size_t workers,
                  spate::window::tuple_memory memory, Run&& run) {
  namespace window = spate::window;
  if (key_partitioning)
    return run(
        window::key_partitioning<quote>(windows, symbol_of, function, workers, {.memory = memory}));
  return run(
      window::window_farming<quote>(windows, symbol_of, function, workers, {.memory = memory}));
}

// The generator (on a thread of its own, as the paper's generator thread) following
// `schedule`, through `pattern` (a window pattern over quotes producing predictions), each
// window's result to `on_window`.
template <class Schedule, class Pattern, class OnWindow>
void run_paced(spate::runtime& rt, Schedule& schedule, std::uint32_t symbol_count,
               std::uint64_t seed, Pattern pattern, OnWindow on_window) {
  spate::flow::graph job(spate::flow::pipeline(
      spate::flow::make_stage<paced_quotes<Schedule>>(&schedule, symbol_count, seed)
          .named("generator")
          .on_dedicated_thread(),
      std::move(pattern), spate::flow::sink(std::move(on_window))));
  job.run(rt);
}

// One search, with `pattern` (a window pattern over quotes producing predictions).
template <class Pattern>
search_result find_max_rate(spate::runtime& rt, Pattern pattern, search_options o,
                            std::uint64_t seed = 1) {
  rate_search search{o};
  run_paced(rt, search, o.symbol_count, seed, std::move(pattern), [&](result& r) {
    if (r.complete) search.window_closed(steady_ns() - r.value.newest_stamp_ns);
  });
  return search.result();
}

// ---- A trading day, compressed: the paper's memory experiment (Sect. 5.3, Table 1) --------
//
// The paper fed the application a NASDAQ day replayed 50× faster and reported the memory
// used in the steady state. Intraday volume is U-shaped — heavy at the open, a lull at
// midday, heavy again into the close — so the generator follows
//     rate(f) = peak · (trough + (1 − trough) · (2f − 1)²),   f = t / day_seconds ∈ [0, 1],
// whose integral gives the quotes due at t in closed form. A 6.5-hour day compressed 50×
// lasts 468 s; `day_seconds` sets any other compression.
struct day_options {
  double peak_rate = 30'000;  // quotes per second at the open and the close
  double trough = 0.3;        // midday rate as a fraction of the peak
  double day_seconds = 468;   // 6.5 h / 50
  double pause_seconds = 3;   // after the unpaced fill, before the day starts
  std::uint32_t symbol_count = symbols;
};

struct day_result {
  std::uint64_t quotes = 0;  // sent during the day (after the fill)
  double behind_max_s = 0;   // the generator's largest lag behind the curve (backpressure)
  double lat_p50_ms = 0, lat_p99_ms = 0;  // windows closed during the day
  std::uint64_t windows = 0;
  double rss_median_mb = 0, rss_max_mb = 0;  // sampled every 100 ms during the day
};

inline double day_quotes_due(const day_options& o, double t_seconds) {
  const double f = std::clamp(t_seconds / o.day_seconds, 0.0, 1.0);
  const double u = 2 * f - 1;
  return o.peak_rate * o.day_seconds * (o.trough * f + (1 - o.trough) * (u * u * u + 1) / 6);
}

inline double resident_mb() {
  long pages = 0, resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// The day as a schedule for paced_quotes: after the fill and a pause, the quotes the curve
// asks for; it also records how far the generator fell behind the curve.
class day_schedule {
 public:
  explicit day_schedule(const day_options& o) : options_(o) {}
  void start(std::int64_t now, std::uint64_t sent) {
    fill_ = sent;
    day_start_.store(now + std::int64_t(options_.pause_seconds * 1e9));
  }
  std::int64_t due(std::int64_t now, std::uint64_t sent) {
    const double t = double(now - day_start_.load()) / 1e9;
    const std::uint64_t day_sent = sent - fill_;
    if (t >= options_.day_seconds) {
      quotes_ = day_sent;
      return -1;
    }
    const auto due = t < 0 ? 0 : std::uint64_t(day_quotes_due(options_, t));
    if (day_sent < due) {  // behind: since when has the curve wanted the next quote?
      double lo = 0, hi = t;
      for (int i = 0; i < 30; ++i) {
        const double mid = (lo + hi) / 2;
        (day_quotes_due(options_, mid) > double(day_sent) ? hi : lo) = mid;
      }
      behind_max_s_ = std::max(behind_max_s_, t - hi);
    }
    return std::int64_t(fill_ + due);
  }
  // Any thread: when the day starts (steady_ns), max() before the fill is over.
  std::int64_t day_start() const noexcept { return day_start_.load(); }
  // After the run.
  std::uint64_t quotes() const noexcept { return quotes_; }
  double behind_max_s() const noexcept { return behind_max_s_; }

 private:
  day_options options_;
  std::atomic<std::int64_t> day_start_{std::numeric_limits<std::int64_t>::max()};
  std::uint64_t fill_ = 0, quotes_ = 0;
  double behind_max_s_ = 0;
};

// One compressed day through `pattern`, with the process's resident memory sampled.
template <class Pattern>
day_result run_day(spate::runtime& rt, Pattern pattern, day_options o,
                   std::uint64_t seed = 1) {
  day_result result;
  day_schedule schedule{o};
  std::atomic<bool> over{false};
  std::vector<double> rss;
  std::thread sampler([&] {
    while (!over.load()) {
      const std::int64_t now = steady_ns(), start = schedule.day_start();
      if (now >= start && double(now - start) < o.day_seconds * 1e9) rss.push_back(resident_mb());
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  std::vector<double> latencies_ms;
  try {
    run_paced(rt, schedule, o.symbol_count, seed, std::move(pattern), [&](hft::result& r) {
      const std::int64_t now = steady_ns();
      if (!r.complete || now < schedule.day_start()) return;
      ++result.windows;
      latencies_ms.push_back(double(now - r.value.newest_stamp_ns) / 1e6);
    });
  } catch (...) {
    over = true;
    sampler.join();
    throw;
  }
  over = true;
  sampler.join();
  result.quotes = schedule.quotes();
  result.behind_max_s = schedule.behind_max_s();
  if (!latencies_ms.empty()) {
    result.lat_p50_ms = percentile(latencies_ms, 50);
    result.lat_p99_ms = percentile(latencies_ms, 99);
  }
  if (!rss.empty()) {
    result.rss_median_mb = percentile(rss, 50);
    result.rss_max_mb = *std::max_element(rss.begin(), rss.end());
  }
  return result;
}

}  // namespace hft
