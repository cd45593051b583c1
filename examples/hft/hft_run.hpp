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
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

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
    if (!latencies_.empty()) {
      auto at = latencies_.begin() + std::ptrdiff_t(latencies_.size() * 99 / 100);
      std::nth_element(latencies_.begin(), at, latencies_.end());
      p99 = double(*at) / 1e6;
    }
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

// The paced generator: fills the windows unpaced, then follows the search's schedule.
class paced_quotes : public spate::flow::node<void, quote> {
 public:
  paced_quotes(rate_search* search, std::uint32_t symbol_count, std::uint64_t seed)
      : search_(search),
        generator_(seed, symbol_count),
        fill_(std::uint64_t(symbol_count) * 1000) {}
  // `wait` when nothing is due ends the activation, which publishes what was sent: a source
  // that kept returning `more` would hold up to a batch of quotes back at low rates.
  spate::flow::produce_status produce() {
    using spate::flow::produce_status;
    if (sent_ < fill_) {
      for (int i = 0; i < 256 && sent_ < fill_; ++i, ++sent_)
        send_next(generator_.next(steady_ns()));
      if (sent_ == fill_) search_->start(steady_ns(), sent_);
      return produce_status::more;
    }
    const std::int64_t now = steady_ns();
    const std::int64_t due = search_->due(now, sent_);
    if (due < 0) return produce_status::ended;  // the search is over: end of stream
    if (std::int64_t(sent_) >= due) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      return produce_status::wait;
    }
    for (int i = 0; i < 256 && std::int64_t(sent_) < due; ++i, ++sent_)
      send_next(generator_.next(now));
    return produce_status::wait;
  }

 private:
  rate_search* search_;
  quote_generator generator_;
  std::uint64_t fill_, sent_ = 0;
};

// One search, with `pattern` (a window pattern over quotes producing predictions).
template <class Pattern>
search_result find_max_rate(spate::worker_pool& pool, Pattern pattern, search_options o,
                            std::uint64_t seed = 1) {
  rate_search search{o};
  using result = spate::window::window_result<std::uint32_t, prediction>;
  spate::flow::graph job(
      spate::flow::pipeline(spate::flow::make_stage<paced_quotes>(&search, o.symbol_count, seed)
                                .named("generator")
                                .on_dedicated_thread(),
                            std::move(pattern), spate::flow::sink([&](result& r) {
                              if (r.complete)
                                search.window_closed(steady_ns() - r.value.newest_stamp_ns);
                            })));
  job.run(pool);
  return search.result();
}

}  // namespace hft
