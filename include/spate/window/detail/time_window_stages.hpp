#pragma once
// The stages of the time-window patterns: an emitter that stamps the watermark, window
// workers, and a collector that releases each key's windows in order once every worker has
// passed the watermark that fired them.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
#include "spate/flow/wake_timer.hpp"
#include "spate/log/log.hpp"
#include "spate/state/codec.hpp"
#include "spate/window/detail/arrival_time.hpp"
#include "spate/window/detail/emitter_time.hpp"
#include "spate/window/detail/routed_tuple.hpp"
#include "spate/window/detail/time_window_keeper.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/time_window.hpp"

namespace spate::window::detail {

template <class T, class KeyFn, class TimeFn>
class time_emitter : public flow::node<T, routed_tuple<T>>,
                     public std::conditional_t<is_processing_time<TimeFn>, refuses_processing_time,
                                               takes_checkpoints> {
  static constexpr bool processing_time = is_processing_time<TimeFn>;

 public:
  time_emitter(pattern p, time_window spec, KeyFn key, TimeFn time, std::uint32_t workers,
               const pattern_options& options)
      : pattern_(p),
        spec_(spec),
        key_(std::move(key)),
        time_(std::move(time), spec.lateness, options),
        workers_(workers),
        pool_(make_tuple_pool<T>(options.memory, workers)),
        report_(options.report ? options.report : std::make_shared<window_report>()),
        report_asked_for_(options.report != nullptr),
        pool_gauge_(pool_.get(), report_asked_for_ ? report_.get() : nullptr),
        late_(late_output_for<T>(options.late, "time window pattern")) {}

  void on_start() {
    time_.start();
    if constexpr (processing_time) {
      timer_.start(*this, time_.tick());
    }
  }
  void consume(T& tuple) {
    const auto stamp = time_.stamp(tuple);
    const std::uint64_t t = time_.time_of(stamp);
    const std::uint64_t first = spec_.first_holding(t), last = spec_.last_holding(t);
    if (first <= last) route(tuple, t, std::max(first, fired_), first, last);
    if (time_.observe(stamp)) advance(time_.watermark());
  }
  // Processing time: the clock moved on (flow/wake_timer.hpp).
  bool has_news() const noexcept
    requires processing_time
  {
    return timer_.due();
  }
  void on_news()
    requires processing_time
  {
    if (timer_.take()) advance(time_.now());
  }
  void on_stop() {
    if constexpr (processing_time) {
      timer_.stop();
      advance(time_.now());  // windows that ended before the stream did are complete
    }
    const auto late = report_->late_tuples.load(), dropped = report_->dropped_tuples.load();
    if (late != 0 && !report_asked_for_ && !late_ && spate::log::enabled(spate::log::level::warn)) {
      spate::log::write(spate::log::level::warn, "window",
                        std::to_string(late) +
                            " late tuples arrived after some of their windows fired (" +
                            std::to_string(dropped) +
                            " of them after all of them, so in no window); allowed lateness " +
                            std::to_string(spec_.lateness));
    }
  }
  /// Checkpoints (detail/window_checkpoints.hpp): the watermark's progress (the newest time
  /// seen, per partition with partitioned time), the windows fired.
  std::pair<typename emitter_time<T, TimeFn>::kept, std::uint64_t> snapshot_state() const
    requires(!processing_time)
  {
    return {time_.snapshot(), fired_};
  }
  void restore_state(std::pair<typename emitter_time<T, TimeFn>::kept, std::uint64_t> kept)
    requires(!processing_time)
  {
    time_.restore(std::move(kept.first));
    fired_ = kept.second;
  }

 private:
  // Fires the windows that end at or before `watermark`: every worker is told.
  void advance(std::uint64_t watermark) {
    if (spec_.fired(watermark) <= fired_) return;
    fired_ = spec_.fired(watermark);
    for (std::uint32_t w = 0; w < workers_; ++w)
      this->send_next(routed_tuple<T>{nullptr, watermark, w});
  }

  // Windows first .. last hold the tuple; `open_from` is the first that has not fired.
  void route(T& tuple, std::uint64_t t, std::uint64_t open_from, std::uint64_t first,
             std::uint64_t last) {
    if (open_from > first) report_->late_tuples.fetch_add(1, std::memory_order_relaxed);
    if (open_from > last) {
      report_->dropped_tuples.fetch_add(1, std::memory_order_relaxed);
      if (late_) (*late_)(std::move(tuple));
      return;
    }
    multicast_tuple(pattern_, key_(tuple), open_from, last, workers_, pool_.get(), std::move(tuple),
                    t, [this](routed_tuple<T>&& m) { this->send_next(std::move(m)); });
    pool_gauge_.update();
  }

  pattern pattern_;
  time_window spec_;
  KeyFn key_;
  emitter_time<T, TimeFn> time_;
  std::uint32_t workers_;
  std::unique_ptr<memory::slab_pool> pool_;
  std::shared_ptr<window_report> report_;  // outlives pool_gauge_
  bool report_asked_for_;
  pool_gauge pool_gauge_;                       // follows pool_ in the report the user asked for
  std::shared_ptr<const late_output<T>> late_;  // null: late tuples go nowhere
  std::uint64_t fired_ = 0;
  flow::wake_timer timer_;  // processing time: wakes the emitter every tick
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
          time_worker_output<typename time_window_keeper<key_of<T, KeyFn>, T, F>::result_type>>,
      public keeper_slot<time_window_keeper<key_of<T, KeyFn>, T, F>> {
  using keeper_type = time_window_keeper<key_of<T, KeyFn>, T, F>;
  using result_type = typename keeper_type::result_type;

 public:
  time_worker(pattern p, time_window spec, KeyFn key, F f)
      : pattern_(p), spec_(spec), key_(std::move(key)), f_(std::move(f)) {}

  void on_start() {
    const auto [owner, owners] = window_share(pattern_, *this);
    this->make_keeper([this](const auto& key) { return routes_key_to(pattern_, key, *this); },
                      spec_, f_, owner, owners);
  }
  void consume(routed_tuple<T>& in) {
    if (in.tuple == nullptr) {
      this->keeper_->advance(in.position,
                             [this](result_type&& r) { this->send_next(std::move(r)); });
      this->send_next(watermark_passed{std::uint32_t(this->replica_index()), in.position});
      return;
    }
    const T& tuple = in.tuple->value();
    this->keeper_->add(key_(tuple), tuple, in.position);
    in.release();
  }
  void on_stop() {
    this->keeper_->flush([this](result_type&& r) { this->send_next(std::move(r)); });
  }

 private:
  pattern pattern_;
  time_window spec_;
  KeyFn key_;
  F f_;
};

// The results a time collector holds back, per key in window order.
template <class Result>
using collector_waiting = std::unordered_map<std::decay_t<decltype(std::declval<Result>().key)>,
                                             std::map<std::uint64_t, Result>>;

// A time collector's checkpoint copy: each worker's watermark, the results waiting.
template <class Result>
using time_collector_kept = std::pair<std::vector<std::uint64_t>, collector_waiting<Result>>;

// Releases a key's windows in window order once every worker has passed a watermark at or
// beyond their end: by then each worker has sent every such window it owns.
template <class Result>
class time_collector : public flow::node<time_worker_output<Result>, Result>,
                       public codec_stance<state::encodable<time_collector_kept<Result>>> {
  using kept = time_collector_kept<Result>;

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
    for (auto it = waiting_.begin(); it != waiting_.end();) {  // keys with none left: forgotten
      auto& windows = it->second;
      while (!windows.empty() && spec_.end(windows.begin()->first) <= all_passed) {
        this->send_next(std::move(windows.begin()->second));
        windows.erase(windows.begin());
      }
      it = windows.empty() ? waiting_.erase(it) : std::next(it);
    }
  }
  void on_stop() {  // the windows fired by the end of the stream
    for (auto& [key, windows] : waiting_)
      for (auto& [w, r] : windows) this->send_next(std::move(r));
    waiting_.clear();
  }
  /// Checkpoints (detail/window_checkpoints.hpp): each worker's watermark, the results
  /// waiting for the others'.
  kept snapshot_state() const
    requires state::encodable<kept>
  {
    return {passed_, waiting_};
  }
  void restore_state(kept k)
    requires state::encodable<kept>
  {
    if (k.first.size() != passed_.size())
      throw std::runtime_error("the checkpoint has " + std::to_string(k.first.size()) +
                               " window workers, this graph " + std::to_string(passed_.size()));
    std::tie(passed_, waiting_) = std::move(k);
  }

 private:
  time_window spec_;
  std::vector<std::uint64_t> passed_;
  collector_waiting<Result> waiting_;
};

template <class T, class KeyFn, class TimeFn, class F>
auto time_window_pattern(pattern p, time_window spec, KeyFn key, TimeFn time, F f,
                         std::size_t workers, pattern_options options) {
  spec.check();
  check_workers(workers);
  check_time_options<T>(options, "time window pattern");
  using worker_type = time_worker<T, KeyFn, F>;
  using result_type = typename time_window_keeper<key_of<T, KeyFn>, T, F>::result_type;
  return assemble_window_pattern<T>(
      p, workers,
      flow::make_stage<time_emitter<T, KeyFn, TimeFn>>(p, spec, key, std::move(time),
                                                       std::uint32_t(workers), std::move(options)),
      flow::make_stage<worker_type>(p, spec, key, std::move(f)),
      flow::make_stage<time_collector<result_type>>(spec, std::uint32_t(workers)));
}

}  // namespace spate::window::detail
