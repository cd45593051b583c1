#pragma once
// The shared worker pool: work stealing with event-notified idling.
//
// Each worker owns a LIFO slot (the task it just made ready: run next, cache-hot, not
// stealable), a FIFO local run queue (stealable) and an inbox for tasks scheduled from
// outside the pool. An idle worker polls through the configured strategies
// (reducing-message-latency paper, Table I) and then parks on its own event (Algorithm 1;
// the paper's timeout is optional here, scheduler_config::park_timeout). Going beyond the
// paper (and CAF, issues #737 / #1251), a parked worker is woken not only when a task is enqueued
// for it (Algorithm 2) but also when another worker has stealable work and nobody is searching, as
// in Tokio's scheduler: that is how parked workers come back when load rises, without anybody
// polling.
//
// Lost wake-ups are excluded by a Dekker handshake through handshake_fence() (its proof is
// the one in wake_handshake.hpp, with "parked" for "idle"): a parking worker publishes "parked"
// and then re-checks for work; an enqueuer publishes the work and then checks for parked
// workers. At least one of them sees the other.
//
// Timers (as Tokio drives its timer from the park path): the pool's workers run them.
//   1. A worker about to sleep publishes "parked", passes the fence, and then reads the
//      earliest deadline. If there is one, it tries to become the *timer keeper* (one at a
//      time), passes the fence again and re-reads the deadline; the keeper sleeps until
//      that deadline, every other parked worker until it is woken.
//   2. add_timer() publishes the deadline, passes the fence and reads the keeper: if there
//      is one and the new deadline is the earliest, it signals the keeper (which wakes and
//      recomputes its sleep); if there is none, it wakes one parked worker. By the same
//      Dekker argument as above, either the adder sees the parker, or the parker's read
//      after its fence sees the new deadline.
//   3. A worker that wakes stops being keeper, goes back to searching and runs what is
//      due. A busy worker looks at the earliest deadline every `timer_check_interval` tasks
//      (one seq_cst load of the deadline word, a plain load on x86, when no timer is
//      pending), and a polling worker at every steal attempt, so timers also fire when no
//      worker parks (the spin preset) — late by at most that many tasks' run time.
//   4. A run of the timers that re-armed a periodic timer has published a new deadline
//      like add_timer() does, and signals the keeper the same way (step 2) when the keeper
//      is another worker: it may be sleeping until a later deadline. With no keeper nobody
//      is woken: the running worker becomes keeper when it parks (step 1), or keeps looking
//      at the timers while it polls (step 3).
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "spate/exec/scheduler_config.hpp"
#include "spate/exec/task.hpp"
#include "spate/exec/detail/timer_queue.hpp"
#include "spate/exec/worker_stats.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// Work-stealing workers that park when idle and are woken on enqueue (see the top of this
/// file for the protocols).
class SPATE_API worker_pool final : public executor {
 public:
  /// Starts `config.effective_threads()` workers.
  explicit worker_pool(scheduler_config config = scheduler_config::default_preset());
  ~worker_pool() override;
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// Thread-safe. From a worker of this pool the task goes to that worker's LIFO slot;
  /// from anywhere else, to a parked worker's inbox (waking it) or round-robin.
  void schedule(task* t) override;
  /// For forking work that should run beside the caller's: from a worker of this pool the task
  /// goes to that worker's stealable queue (not the LIFO slot, which only its owner runs) and
  /// a parked worker is woken to steal it; from anywhere else, as schedule().
  void schedule_stealable(task* t);

  /// Stops the workers and joins them. Tasks still queued are not resumed but discarded
  /// (task::discard), and so is every task scheduled later: stop the things that schedule
  /// (actors, graphs) first. Pending timers are cancelled. Idempotent.
  void stop();

  /// Timers run by the workers (see above). Thread-safe. `add_timer` returns 0 after stop().
  timer_queue::timer_id add_timer(
      timer_queue::clock::time_point deadline, std::function<void()> callback,
      std::chrono::nanoseconds period = std::chrono::nanoseconds::zero());
  /// True when the timer was pending (it will not fire now). Thread-safe.
  bool cancel_timer(timer_queue::timer_id id) { return timers_.cancel(id); }
  /// Timers not yet fired or cancelled.
  std::size_t pending_timers() const { return timers_.pending(); }
  /// Cancels every pending timer and refuses new ones (runtime shutdown, step 2).
  void close_timers() { timers_.close(); }
  /// Where an exception thrown by a timer callback goes (timer_queue.hpp); the runtime
  /// sends it to its error reporter. Thread-safe.
  void set_timer_error_handler(std::function<void(std::exception_ptr)> handler) {
    timers_.set_error_handler(std::move(handler));
  }

  /// The number of workers.
  std::size_t size() const noexcept { return workers_.size(); }
  /// The configuration it was built with.
  const scheduler_config& config() const noexcept { return config_; }
  /// Each worker's counters now (any thread; observe/watch.hpp exports them).
  std::vector<worker_stats> stats() const;
  /// True when called from one of this pool's worker threads.
  bool is_worker_thread() const noexcept;

 private:
  struct worker;

  void run_worker(worker& w);
  task* find_work(worker& w);
  task* next_local(worker& w);
  task* take_inbox(worker& w);
  task* poll(worker& w, const polling_strategy& strategy);
  task* park(worker& w);
  task* steal(worker& w);
  task* pop_inbox(worker& victim);
  void push_local(worker& w, task* t);
  void schedule_local(worker& w, task* t);
  void schedule_external(task* t);
  void discard_inboxes();
  void wake_if_stealable(worker& w);
  bool wake_one_parked();
  bool has_visible_work(const worker& w) const;
  void run_due_timers();
  void deadline_published();
  bool become_timer_keeper(worker& w);

  scheduler_config config_;
  std::vector<std::unique_ptr<worker>> workers_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> stopped_{false};  ///< joined: schedule() discards
  std::atomic<std::size_t> searching_{0};
  std::atomic<std::size_t> parked_{0};
  std::atomic<std::size_t> next_external_{0};
  timer_queue timers_;
  static constexpr int no_keeper = -1;
  std::atomic<int> timer_keeper_{no_keeper};  ///< index of the worker sleeping for timers
};

}  // namespace spate
