#pragma once
// The stages of window::sessions (sessions.hpp): an emitter that decides lateness and routes
// each tuple to its key's worker (Key Partitioning), and a farm of session workers.
//
// Determinism. The emitter stamps every tuple with the watermark as it stood when the tuple
// arrived (before the tuple's own time counts), and a worker fires the sessions ending
// before that watermark before it adds the tuple. So which sessions a tuple joins depends
// only on the input's order, never on when a worker happens to see a watermark: the
// watermarks the emitter also sends every worker between tuples (each time it has moved
// on by a quarter of the gap, or on the clock's tick in processing time) only fire the
// sessions of workers without input sooner, and a later tuple's stamp is at least theirs.
// Results are therefore those of the sequential reference in the tests, per key in order.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
#include "spate/flow/wake_timer.hpp"
#include "spate/log/log.hpp"
#include "spate/window/detail/arrival_time.hpp"
#include "spate/window/detail/routed_tuple.hpp"
#include "spate/window/detail/session_keeper.hpp"
#include "spate/window/detail/watermark_tracker.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/pattern_options.hpp"
#include "spate/window/session_window.hpp"

namespace spate::window::detail {

// What the session emitter sends a worker: a tuple (moved, not shared: it has one receiver),
// its time and the watermark before it; without a tuple, a watermark for every worker.
template <class T>
struct session_message {
  std::optional<T> tuple;
  std::uint64_t time = 0;
  std::uint64_t watermark = 0;
  std::uint32_t worker = 0;  // the farm routes on it
};

template <class T, class KeyFn, class TimeFn>
class session_emitter : public flow::node<T, session_message<T>>,
                        public std::conditional_t<is_processing_time<TimeFn>,
                                                  refuses_processing_time, takes_checkpoints> {
  static constexpr bool processing_time = is_processing_time<TimeFn>;
  using clock = std::chrono::steady_clock;
  using tracker = watermark_tracker<T, TimeFn>;

 public:
  session_emitter(session_window spec, KeyFn key, TimeFn time, std::uint32_t workers,
                  const pattern_options& options)
      : spec_(spec),
        key_(std::move(key)),
        time_(std::move(time)),
        workers_(workers),
        step_(std::max<std::uint64_t>(spec.gap / 4, 1)),
        report_(options.report ? options.report : std::make_shared<window_report>()),
        report_asked_for_(options.report != nullptr),
        watermark_(spec.lateness, options) {}

  void on_start() {
    watermark_.start();
    if constexpr (processing_time) {
      origin_ = clock::now();
      timer_.start(*this, time_.tick);
    }
  }
  void consume(T& tuple) {
    const auto stamp = time_of(tuple);
    const std::uint64_t t = tracker::time_of(stamp);
    const std::uint64_t watermark = watermark_now();
    if (saturating_add(t, spec_.gap) < watermark) {  // its session may have fired: late
      report_->late_tuples.fetch_add(1, std::memory_order_relaxed);
      report_->dropped_tuples.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    const auto worker = std::uint32_t(std::hash<key_of<T, KeyFn>>{}(key_(tuple)) % workers_);
    this->send_next(session_message<T>{std::move(tuple), t, watermark, worker});
    if constexpr (!processing_time) {
      watermark_.observe(stamp);
      if (watermark_now() >= saturating_add(announced_, step_)) announce(watermark_now());
    }
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
    if (timer_.take()) announce(now());
  }
  void on_stop() {
    if constexpr (processing_time) timer_.stop();
    // Sessions the watermark has passed are complete, announced or not yet.
    if (watermark_now() > announced_) announce(watermark_now());
    const auto late = report_->late_tuples.load();
    if (late != 0 && !report_asked_for_ && spate::log::enabled(spate::log::level::warn)) {
      spate::log::write(spate::log::level::warn, "sessions",
                        std::to_string(late) +
                            " late tuples arrived after their sessions could have fired and "
                            "were left out; allowed lateness " +
                            std::to_string(spec_.lateness) + ", gap " + std::to_string(spec_.gap));
    }
  }
  /// Checkpoints (detail/window_checkpoints.hpp): the watermark's progress (the newest time
  /// seen, per partition with partitioned time), the last watermark sent to every worker.
  std::pair<typename tracker::kept, std::uint64_t> snapshot_state() const
    requires(!processing_time)
  {
    return {watermark_.snapshot(), announced_};
  }
  void restore_state(std::pair<typename tracker::kept, std::uint64_t> kept)
    requires(!processing_time)
  {
    watermark_.restore(std::move(kept.first));
    announced_ = kept.second;
  }

 private:
  std::uint64_t now() const { return std::uint64_t((clock::now() - origin_).count()); }
  auto time_of(const T& tuple) const {
    if constexpr (processing_time)
      return now();
    else if constexpr (std::is_same_v<tracker, partitioned_watermark>)
      return partitioned_time(time_(tuple));
    else
      return std::uint64_t(time_(tuple));
  }
  std::uint64_t watermark_now() const {
    if constexpr (processing_time)
      return now();
    else
      return watermark_.watermark();
  }
  void announce(std::uint64_t watermark) {
    announced_ = watermark;
    for (std::uint32_t w = 0; w < workers_; ++w)
      this->send_next(session_message<T>{std::nullopt, 0, watermark, w});
  }

  session_window spec_;
  KeyFn key_;
  TimeFn time_;
  std::uint32_t workers_;
  std::uint64_t step_;  // event time: how far the watermark moves between announcements
  std::shared_ptr<window_report> report_;
  bool report_asked_for_;
  tracker watermark_;
  std::uint64_t announced_ = 0;
  clock::time_point origin_{};  // processing time: when the emitter started
  flow::wake_timer timer_;      // processing time: wakes the emitter every tick
};

template <class T, class KeyFn, class F>
class session_worker
    : public flow::node<session_message<T>,
                        typename session_keeper<key_of<T, KeyFn>, T, F>::result_type>,
      public keeper_slot<session_keeper<key_of<T, KeyFn>, T, F>> {
  using result_type = typename session_keeper<key_of<T, KeyFn>, T, F>::result_type;

 public:
  session_worker(session_window spec, KeyFn key, F f)
      : spec_(spec), key_(std::move(key)), f_(std::move(f)) {}

  void on_start() {
    this->make_keeper(
        [this](const auto& key) { return routes_key_to(pattern::key_partitioning, key, *this); },
        spec_, f_);
  }
  void consume(session_message<T>& in) {
    this->keeper_->advance(in.watermark,
                           [this](result_type&& r) { this->send_next(std::move(r)); });
    if (in.tuple) this->keeper_->add(key_(*in.tuple), *in.tuple, in.time);
  }
  void on_stop() {
    this->keeper_->flush([this](result_type&& r) { this->send_next(std::move(r)); });
  }

 private:
  session_window spec_;
  KeyFn key_;
  F f_;
};

template <class T, class KeyFn, class TimeFn, class F>
auto session_pattern(session_window spec, KeyFn key, TimeFn time, F f, std::size_t workers,
                     const pattern_options& options) {
  spec.check();
  check_workers(workers);
  return flow::pipeline(
      flow::make_stage<session_emitter<T, KeyFn, TimeFn>>(spec, key, std::move(time),
                                                          std::uint32_t(workers), options)
          .named("session_emitter"),
      flow::farm(flow::make_stage<session_worker<T, KeyFn, F>>(spec, key, std::move(f))
                     .named("session_worker"),
                 workers, flow::custom_policy{[](const session_message<T>& m, std::size_t) {
                   return std::size_t(m.worker);
                 }}));
}

}  // namespace spate::window::detail
