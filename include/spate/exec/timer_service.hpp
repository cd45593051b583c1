#pragma once
// Timers for programs: request time-outs, delayed sends, periodic work. The workers of the
// pool run them (worker_pool.hpp, "Timers"): no timer thread, and a parked worker sleeps
// until the earliest deadline or an event, never on a fixed period.
//
//   auto id = rt.timers().schedule_after(50ms, [] { ... });     // once
//   auto tick = rt.timers().schedule_periodic(1s, 1s, [] { ... });  // every second
//   rt.timers().cancel(tick);
//
// Callbacks run on a worker, one at a time, in deadline order; they must be short and must
// not block (send a message, notify a task).
#include <chrono>
#include <cstddef>
#include <functional>

#include "spate/platform/deadline.hpp"
#include "spate/exec/detail/timer_queue.hpp"
#include "spate/exec/worker_pool.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// Schedules callbacks on a worker pool's timers (runtime::timers()).
class SPATE_API timer_service {
 public:
  using clock = timer_queue::clock;        ///< deadlines are on this clock
  using timer_id = timer_queue::timer_id;  ///< names a timer for cancel()

  /// Timers of `pool` (which must outlive this service).
  explicit timer_service(worker_pool& pool) noexcept : pool_(&pool) {}

  /// Each returns the timer's id, or 0 when the runtime is shutting down (the callback is
  /// dropped without running).
  timer_id schedule_at(clock::time_point deadline, std::function<void()> callback) {
    return pool_->add_timer(deadline, std::move(callback));
  }
  /// A delay too large to add to now() (nanoseconds::max()) means "never": the timer stays
  /// pending until cancelled.
  timer_id schedule_after(std::chrono::nanoseconds delay, std::function<void()> callback) {
    return schedule_at(saturating_deadline(delay), std::move(callback));
  }
  /// First after `first_delay`, then every `period` (> 0) on a fixed schedule (no drift;
  /// periods missed while the pool was too busy are skipped, not fired in a burst).
  timer_id schedule_periodic(std::chrono::nanoseconds first_delay, std::chrono::nanoseconds period,
                             std::function<void()> callback);
  /// True when the timer was pending: it will not fire (again) and its callback is freed.
  /// False for a one-shot timer that fired (or is firing), one cancelled before, or an
  /// unknown id. It does not wait for a callback that is running right now (a periodic
  /// timer's current tick may still finish after cancel returned).
  bool cancel(timer_id id) { return pool_->cancel_timer(id); }
  /// Timers not yet fired or cancelled.
  std::size_t pending() const { return pool_->pending_timers(); }
  /// Cancels every pending timer and refuses new ones (runtime shutdown, step 2).
  void stop() { pool_->close_timers(); }

 private:
  worker_pool* pool_;
};

}  // namespace spate
