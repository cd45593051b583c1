#pragma once
// The emitter of the keyed event-time patterns whose state per key is kept for a horizon
// after each tuple (sessions: the gap; deduplication: the span within which a repeat is a
// duplicate). It decides lateness, routes each tuple to its key's worker (Key Partitioning)
// with the watermark before it, and tells every worker when the watermark moves on.
//
// Determinism. The emitter stamps every tuple with the watermark as it stood when the tuple
// arrived (before the tuple's own time counts), and a worker expires what that watermark
// passed before it takes the tuple. So what a tuple meets in its worker depends only on the
// input's order, never on when a worker happens to see a watermark: the watermarks the
// emitter also sends every worker between tuples (each time it has moved on by a quarter of
// the horizon, or on the clock's tick in processing time) only expire the state of workers
// without input sooner, and a later tuple's stamp is at least theirs.
//
// Lateness: a tuple whose own horizon has passed (t + horizon < watermark) may meet state
// that has already expired (a session fired, a first occurrence forgotten): it is counted
// in the report's late_tuples and dropped_tuples and left out.
//
// The tuple's key decides its worker: std::hash of the key modulo the worker count.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
#include "spate/flow/wake_timer.hpp"
#include "spate/log/log.hpp"
#include "spate/window/detail/arrival_time.hpp"
#include "spate/window/detail/emitter_time.hpp"
#include "spate/window/detail/routed_tuple.hpp"
#include "spate/window/detail/time_math.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/pattern_options.hpp"

namespace spate::window::detail {

// When a keyed time pattern's tuples are late, and how often its workers hear of time.
struct keyed_horizon {
  // A tuple at t is late when t + horizon < the watermark (sessions: the gap; 0: t is
  // behind the watermark).
  std::uint64_t horizon;
  std::uint64_t lateness;
  // Event time: every worker is told the watermark each time it moves on by this much.
  std::uint64_t announce_every;
  const char* pattern;  // names the pattern in the end-of-stream warning
};

// What the emitter sends a worker: a tuple (moved, not shared: it has one receiver),
// its time and the watermark before it; without a tuple, a watermark for every worker.
template <class T>
struct keyed_message {
  std::optional<T> tuple;
  std::uint64_t time = 0;
  std::uint64_t watermark = 0;
  std::uint32_t worker = 0;  // the farm routes on it
};

template <class T, class KeyFn, class TimeFn>
class keyed_time_emitter : public flow::node<T, keyed_message<T>>,
                           public std::conditional_t<is_processing_time<TimeFn>,
                                                     refuses_processing_time, takes_checkpoints> {
  static constexpr bool processing_time = is_processing_time<TimeFn>;

 public:
  keyed_time_emitter(keyed_horizon spec, KeyFn key, TimeFn time, std::uint32_t workers,
                     const pattern_options& options)
      : spec_(spec),
        key_(std::move(key)),
        time_(std::move(time), spec.lateness, options),
        workers_(workers),
        step_(std::max<std::uint64_t>(spec.announce_every, 1)),
        report_(options.report ? options.report : std::make_shared<window_report>()),
        report_asked_for_(options.report != nullptr),
        late_(late_output_for<T>(options.late, spec.pattern)) {}

  void on_start() {
    time_.start();
    if constexpr (processing_time) {
      timer_.start(*this, time_.tick());
    }
  }
  void consume(T& tuple) {
    const auto stamp = time_.stamp(tuple);
    const std::uint64_t t = time_.time_of(stamp);
    // Processing time: the clock read that gave the tuple its time (never late).
    const std::uint64_t watermark = processing_time ? t : watermark_now();
    if (saturating_add(t, spec_.horizon) < watermark) {  // what it would meet may be gone: late
      report_->late_tuples.fetch_add(1, std::memory_order_relaxed);
      report_->dropped_tuples.fetch_add(1, std::memory_order_relaxed);
      if (late_) (*late_)(std::move(tuple));
    } else {
      const auto worker = std::uint32_t(std::hash<key_of<T, KeyFn>>{}(key_(tuple)) % workers_);
      this->send_next(keyed_message<T>{std::move(tuple), t, watermark, worker});
    }
    // A late tuple's partition counts too: a lagging partition's first tuples make it hold
    // the watermark back from here (as the time windows' emitter does); and the idle scan
    // its clock read may run can move the watermark on.
    if constexpr (!processing_time) {
      time_.observe(stamp);
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
    if (timer_.take()) announce(time_.now());
  }
  void on_stop() {
    if constexpr (processing_time) timer_.stop();
    // Sessions the watermark has passed are complete, announced or not yet.
    if (watermark_now() > announced_) announce(watermark_now());
    const auto late = report_->late_tuples.load();
    if (late != 0 && !report_asked_for_ && !late_ && spate::log::enabled(spate::log::level::warn)) {
      spate::log::write(spate::log::level::warn, spec_.pattern,
                        std::to_string(late) +
                            " late tuples arrived behind the watermark and were left out; "
                            "allowed lateness " +
                            std::to_string(spec_.lateness));
    }
  }
  /// Checkpoints (detail/window_checkpoints.hpp): the watermark's progress (the newest time
  /// seen, per partition with partitioned time), the last watermark sent to every worker.
  std::pair<typename emitter_time<T, TimeFn>::kept, std::uint64_t> snapshot_state() const
    requires(!processing_time)
  {
    return {time_.snapshot(), announced_};
  }
  void restore_state(std::pair<typename emitter_time<T, TimeFn>::kept, std::uint64_t> kept)
    requires(!processing_time)
  {
    time_.restore(std::move(kept.first));
    announced_ = kept.second;
  }

 private:
  std::uint64_t watermark_now() const {
    if constexpr (processing_time)
      return time_.now();
    else
      return time_.watermark();
  }
  void announce(std::uint64_t watermark) {
    announced_ = watermark;
    for (std::uint32_t w = 0; w < workers_; ++w)
      this->send_next(keyed_message<T>{std::nullopt, 0, watermark, w});
  }

  keyed_horizon spec_;
  KeyFn key_;
  emitter_time<T, TimeFn> time_;
  std::uint32_t workers_;
  std::uint64_t step_;  // event time: how far the watermark moves between announcements
  std::shared_ptr<window_report> report_;
  bool report_asked_for_;
  std::shared_ptr<const late_output<T>> late_;  // null: late tuples go nowhere
  std::uint64_t announced_ = 0;
  flow::wake_timer timer_;  // processing time: wakes the emitter every tick
};

// The keyed time patterns' graph: the emitter named `emitter_name`, then a farm of `workers`
// copies of `worker` (a stage taking keyed_message<T>), each message routed to the worker the
// emitter chose. Checks the worker count and the options first.
template <class T, class KeyFn, class TimeFn, class Worker>
auto keyed_time_pattern(keyed_horizon horizon, KeyFn key, TimeFn time, std::size_t workers,
                        const pattern_options& options, const char* emitter_name, Worker worker) {
  check_workers(workers);
  check_time_options<T>(options, horizon.pattern);
  return flow::pipeline(
      flow::make_stage<keyed_time_emitter<T, KeyFn, TimeFn>>(
          horizon, std::move(key), std::move(time), std::uint32_t(workers), options)
          .named(emitter_name),
      flow::farm(std::move(worker), workers,
                 flow::custom_policy{[](const keyed_message<T>& m, std::size_t) {
                   return std::size_t(m.worker);
                 }}));
}

}  // namespace spate::window::detail
