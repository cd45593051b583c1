#pragma once
// The stages of the time-window patterns: an emitter that stamps the watermark, window
// workers, and a collector that releases each key's windows in order once every worker has
// passed the watermark that fired them.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
#include "spate/window/detail/routed_tuple.hpp"
#include "spate/window/detail/time_window_keeper.hpp"
#include "spate/window/time_window.hpp"

namespace spate::window::detail {

template <class T, class KeyFn, class TimeFn>
class time_emitter : public flow::node<T, routed_tuple<T>> {
 public:
  time_emitter(pattern p, time_window spec, KeyFn key, TimeFn time, std::uint32_t workers,
               tuple_memory m, std::shared_ptr<window_report> report)
      : pattern_(p),
        spec_(spec),
        key_(std::move(key)),
        time_(std::move(time)),
        workers_(workers),
        pool_(make_tuple_pool<T>(m, workers)),
        report_(report ? std::move(report) : std::make_shared<window_report>()),
        report_asked_for_(report_.use_count() > 1) {}

  void consume(T& tuple) {
    const std::uint64_t t = std::uint64_t(time_(tuple));
    const std::uint64_t first = spec_.first_holding(t), last = spec_.last_holding(t);
    if (first <= last) route(tuple, t, std::max(first, fired_), first, last);
    if (t > newest_) {
      newest_ = t;
      const std::uint64_t watermark = newest_ > spec_.lateness ? newest_ - spec_.lateness : 0;
      if (spec_.fired(watermark) > fired_) {
        fired_ = spec_.fired(watermark);
        for (std::uint32_t w = 0; w < workers_; ++w)
          this->send_next(routed_tuple<T>{nullptr, watermark, w});
      }
    }
  }
  void on_stop() {
    const auto late = report_->late_tuples.load(), dropped = report_->dropped_tuples.load();
    if (late != 0 && !report_asked_for_)
      std::fprintf(stderr,
                   "spate window: %llu late tuples arrived after some of their windows fired "
                   "(%llu of them after all of them, so in no window); allowed lateness %llu\n",
                   static_cast<unsigned long long>(late), static_cast<unsigned long long>(dropped),
                   static_cast<unsigned long long>(spec_.lateness));
  }

 private:
  // Windows first .. last hold the tuple; `open_from` is the first that has not fired.
  void route(T& tuple, std::uint64_t t, std::uint64_t open_from, std::uint64_t first,
             std::uint64_t last) {
    if (open_from > first) report_->late_tuples.fetch_add(1, std::memory_order_relaxed);
    if (open_from > last) {
      report_->dropped_tuples.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    std::uint32_t first_worker = 0, group = 1;
    if (pattern_ == pattern::key_partitioning) {
      first_worker = std::uint32_t(std::hash<key_of<T, KeyFn>>{}(key_(tuple)) % workers_);
    } else {
      group = std::uint32_t(std::min<std::uint64_t>(last - open_from + 1, workers_));
      first_worker = std::uint32_t(open_from % workers_);
    }
    auto* shared = memory::multicast_envelope<T>::make(pool_.get(), group, std::move(tuple));
    for (std::uint32_t k = 0; k < group; ++k)
      this->send_next(routed_tuple<T>{shared, t, (first_worker + k) % workers_});
  }

  pattern pattern_;
  time_window spec_;
  KeyFn key_;
  TimeFn time_;
  std::uint32_t workers_;
  std::unique_ptr<memory::slab_pool> pool_;
  std::shared_ptr<window_report> report_;
  bool report_asked_for_;
  std::uint64_t newest_ = 0, fired_ = 0;
};

// A worker's output: a window's result, or "this worker has passed this watermark".
struct watermark_passed {
  std::uint32_t worker;
  std::uint64_t watermark;
};
template <class Result>
using time_worker_output = std::variant<Result, watermark_passed>;

template <class T, class KeyFn, class F>
class time_worker
    : public flow::node<
          routed_tuple<T>,
          time_worker_output<typename time_window_keeper<key_of<T, KeyFn>, T, F>::result_type>> {
  using keeper_type = time_window_keeper<key_of<T, KeyFn>, T, F>;
  using result_type = typename keeper_type::result_type;

 public:
  time_worker(pattern p, time_window spec, KeyFn key, F f)
      : pattern_(p), spec_(spec), key_(std::move(key)), f_(std::move(f)) {}

  void on_start() {
    const bool farmed = pattern_ == pattern::window_farming;
    keeper_.emplace(spec_, f_, farmed ? this->replica_index() : 0,
                    farmed ? this->replica_count() : 1);
  }
  void consume(routed_tuple<T>& in) {
    if (in.tuple == nullptr) {
      keeper_->advance(in.position, [this](result_type&& r) { this->send_next(std::move(r)); });
      this->send_next(watermark_passed{std::uint32_t(this->replica_index()), in.position});
      return;
    }
    const T& tuple = in.tuple->value();
    keeper_->add(key_(tuple), tuple, in.position);
    in.tuple->release(this->replica_index());
  }
  void on_stop() {
    keeper_->flush([this](result_type&& r) { this->send_next(std::move(r)); });
  }

 private:
  pattern pattern_;
  time_window spec_;
  KeyFn key_;
  F f_;
  std::optional<keeper_type> keeper_;
};

// Releases a key's windows in window order once every worker has passed a watermark at or
// beyond their end: by then each worker has sent every such window it owns.
template <class Result>
class time_collector : public flow::node<time_worker_output<Result>, Result> {
 public:
  time_collector(time_window spec, std::uint32_t workers) : spec_(spec), passed_(workers, 0) {}

  void consume(time_worker_output<Result>& in) {
    if (auto* r = std::get_if<Result>(&in)) {
      auto key = r->key;
      const auto window = r->window;
      waiting_[std::move(key)].emplace(window, std::move(*r));
      return;
    }
    const auto& mark = std::get<watermark_passed>(in);
    passed_[mark.worker] = std::max(passed_[mark.worker], mark.watermark);
    const std::uint64_t all_passed = *std::min_element(passed_.begin(), passed_.end());
    for (auto& [key, windows] : waiting_)
      while (!windows.empty() && spec_.end(windows.begin()->first) <= all_passed) {
        this->send_next(std::move(windows.begin()->second));
        windows.erase(windows.begin());
      }
  }
  void on_stop() {  // the windows fired by the end of the stream
    for (auto& [key, windows] : waiting_)
      for (auto& [w, r] : windows) this->send_next(std::move(r));
    waiting_.clear();
  }

 private:
  time_window spec_;
  std::vector<std::uint64_t> passed_;
  std::unordered_map<std::decay_t<decltype(std::declval<Result>().key)>,
                     std::map<std::uint64_t, Result>>
      waiting_;
};

template <class T, class KeyFn, class TimeFn, class F>
auto time_window_pattern(pattern p, time_window spec, KeyFn key, TimeFn time, F f,
                         std::size_t workers, tuple_memory memory,
                         std::shared_ptr<window_report> report) {
  spec.check();
  if (workers == 0 || workers > 0xffffffffu)
    throw std::invalid_argument("window pattern: workers must be >= 1");
  using worker_type = time_worker<T, KeyFn, F>;
  using result_type = typename time_window_keeper<key_of<T, KeyFn>, T, F>::result_type;
  return flow::pipeline(
      flow::make_stage<time_emitter<T, KeyFn, TimeFn>>(p, spec, key, std::move(time),
                                                       std::uint32_t(workers), memory, report)
          .named(p == pattern::key_partitioning ? "kp_emitter" : "wf_emitter"),
      flow::farm(flow::make_stage<worker_type>(p, spec, key, std::move(f)).named("window_worker"),
                 workers, flow::custom_policy{[](const routed_tuple<T>& m, std::size_t) {
                   return std::size_t(m.worker);
                 }}),
      flow::make_stage<time_collector<result_type>>(spec, std::uint32_t(workers))
          .named("window_collector"));
}

}  // namespace spate::window::detail
