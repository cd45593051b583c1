#pragma once
// A periodic timer that wakes a flow node, for nodes that act on time as well as on input:
// a processing-time window fires when the clock passes its end, whether or not a tuple
// arrives then.
//
//   struct ticking : flow::node<In, Out> {
//     flow::wake_timer timer;
//     void on_start() { timer.start(*this, 10ms); }
//     bool has_news() const { return timer.due(); }   // atomics only
//     void on_news() { if (timer.take()) ...; }       // may send_next
//     void on_stop() { timer.stop(); }
//     void consume(In& item) { ... }
//   };
//
// A node (not a source) that declares `bool has_news() const` and `void on_news()` has
// on_news() called at the start of every activation in which has_news() is true, before
// its input; on_news() must clear the news (take()), or the node would be activated again
// at once.
//
// # Wake-up protocol (one tick)
//
//   T1. The timer's callback, on a pool worker, sets `due` (release).
//   T2. It notifies the node's task: steps P1–P2 of the wake handshake
//       (exec/wake_handshake.hpp).
//   N1. The node's task, going idle, re-checks its inputs and has_news() in step C3
//       (node_task.hpp, inputs_have_news), which loads `due` (acquire).
//
// The activation's argument applies unchanged: `due` is published before P1, so either the
// callback's notify wins the CAS and schedules the task, or the task's C3 sees `due` and
// keeps running. A tick is never stranded. take() clears `due` on the node's thread before
// the node acts on the time, so a tick landing while it acts is kept for the next activation
// (at worst one activation too many, never one too few).
//
// # Lifetime
//
// The `due` flag is a member of the timer, that is of the node, which lives as long as its
// task: an idle re-check (N1) still in flight when a later activation stops the timer reads
// memory that is still there (the activation's lifetime rule). The callback holds a shared
// {mutex, task, flag pointer} block, never the node. stop() (from on_stop())
// and the destructor (which runs for a graph cancelled before on_stop(), perhaps after its
// runtime is gone) clear the task under the mutex. A callback that took the mutex first has
// finished its notify before they return; one that takes it later finds no task and cancels
// its own timer (it runs on the pool, so the pool is alive). stop() also cancels the timer
// at once; the destructor does not touch the pool. So nothing touches the task after either
// returns, and the task outlives its node (the node is its member).
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "spate/flow/detail/graph_state.hpp"
#include "spate/flow/detail/node_task_base.hpp"
#include "spate/flow/node.hpp"
#include "spate/platform/stress_point.hpp"
#include "spate/exec/timer_service.hpp"
#include "spate/exec/worker_pool.hpp"

namespace spate::flow {

/// Wakes a flow node every period (see the top of this file); RAII.
class wake_timer {
 public:
  wake_timer() = default;
  /// Stage prototypes are copied into the graph before they start: a copy is a timer that
  /// has not started.
  wake_timer(const wake_timer&) : wake_timer() {}
  wake_timer& operator=(const wake_timer&) = delete;
  ~wake_timer() { detach(); }

  /// Starts ticking every `period` (> 0) from now, on the runtime the node's graph runs on.
  /// Call from the node's on_start() (its own thread).
  void start(node_context& node, std::chrono::nanoseconds period) {
    if (period <= std::chrono::nanoseconds::zero())
      throw std::invalid_argument("spate::flow::wake_timer: the period must be > 0");
    detail::node_task_base* task = detail::node_access::task_of(node);
    if (task == nullptr || task->timer_pool() == nullptr)
      throw std::logic_error("spate::flow::wake_timer::start: call it from the node's on_start()");
    if (shared_) throw std::logic_error("spate::flow::wake_timer::start: already started");
    shared_ = std::make_shared<shared_state>();
    shared_->task = task;
    shared_->due = &due_;
    shared_->pool = task->timer_pool();
    const auto id = timer_service{*shared_->pool}.schedule_periodic(period, period, [s = shared_] {
      std::lock_guard lock{s->mutex};
      if (s->task == nullptr) {  // detached: this tick runs on the pool, so it is alive
        timer_service{*s->pool}.cancel(s->id);
        return;
      }
      s->due->store(true, std::memory_order_release);  // T1
      stress_point();
      s->task->notify();  // T2
    });
    std::lock_guard lock{shared_->mutex};
    shared_->id = id;
  }

  /// Atomics only (the node's has_news() runs in its idle re-check).
  bool due() const noexcept { return due_.load(std::memory_order_acquire); }

  /// The node's own thread: true when at least one tick came since the last take().
  bool take() noexcept {
    return due_.exchange(false, std::memory_order_acq_rel);
  }

  /// Cancels the timer; after it returns the timer no longer touches the node's task. Call it
  /// while the graph runs (on_stop()). Idempotent.
  void stop() noexcept {
    if (!shared_) return;
    timer_service::timer_id id = 0;
    {
      std::lock_guard lock{shared_->mutex};
      shared_->task = nullptr;
      id = shared_->id;
    }
    if (id != 0) timer_service{*shared_->pool}.cancel(id);
    shared_.reset();
  }

 private:
  void detach() noexcept {
    if (!shared_) return;
    std::lock_guard lock{shared_->mutex};
    shared_->task = nullptr;
  }

  struct shared_state {
    std::mutex mutex;
    detail::node_task_base* task = nullptr;  ///< guarded by mutex
    timer_service::timer_id id = 0;          ///< guarded by mutex
    worker_pool* pool = nullptr;
    std::atomic<bool>* due = nullptr;  ///< the timer's own flag; used only while task is set
  };
  std::shared_ptr<shared_state> shared_;  ///< the node's thread only
  std::atomic<bool> due_{false};
};

}  // namespace spate::flow
