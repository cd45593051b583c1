#pragma once
// The timers of a worker pool: deadlines with callbacks, one-shot or periodic, cancellable.
// The pool's workers run them (worker_pool.hpp, "Timers"); this class is only the data
// structure, safe to use from any thread.
//
// A binary heap orders (deadline, id) pairs; the callbacks live in a map by id, so that
// cancel() frees a callback (and what it captured) at once. A cancelled timer's heap entry
// stays until its deadline and is then skipped: finding it in the heap would cost a search.
//
// Callbacks run outside the lock, one timer at a time (run_due() lets one thread drain at a
// time), in deadline order; they must be short and must not block.
//
// A callback that throws does not unwind into the worker (which would end the process):
// the exception goes to the error handler (the runtime's error reporter; the log without
// one), and a periodic timer that threw is cancelled, since it would most likely throw
// again at every period. The queue stays usable: the drain flag is cleared as usual.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <queue>
#include <unordered_map>
#include <vector>
#include "spate/platform/export.hpp"

namespace spate {

/// The timers a worker pool runs: deadlines in a heap, fired by the workers.
class SPATE_API timer_queue {
 public:
  using clock = std::chrono::steady_clock;                ///< deadlines are on this clock
  using timer_id = std::uint64_t;                         ///< names a timer for cancel(); never 0
  static constexpr std::int64_t no_deadline = INT64_MAX;  ///< no timer pending

  /// Adds a timer; `period` > 0 makes it fire every `period` after `deadline` until
  /// cancelled. Returns its id (never 0), or 0 once the queue is closed. `earliest` (if
  /// given) is set to whether the new deadline is now the earliest.
  timer_id add(clock::time_point deadline, std::function<void()> callback,
               std::chrono::nanoseconds period = std::chrono::nanoseconds::zero(),
               bool* earliest = nullptr);
  /// True when the timer was pending: it will not fire (again). False once a one-shot timer
  /// fired or started firing, for a timer cancelled before, and for an unknown id.
  bool cancel(timer_id id);
  /// Timers not yet fired or cancelled.
  std::size_t pending() const;

  /// The earliest deadline, in nanoseconds of clock::time_since_epoch(), or no_deadline.
  /// Lock-free; may be stale by one add or run (callers re-check under their handshake).
  std::int64_t next_deadline_ns() const noexcept {
    return next_deadline_.load(std::memory_order_seq_cst);
  }
  /// Runs the callbacks of every timer due at `now` (later ones too if they come due while
  /// it runs). Returns how many ran; 0 at once when another thread is running them.
  std::size_t run_due(clock::time_point now);
  /// Cancels everything and refuses later adds. Idempotent.
  void close();
  /// Where exceptions thrown by callbacks go (see the top of this file). Thread-safe.
  void set_error_handler(std::function<void(std::exception_ptr)> handler);

  /// A time point as nanoseconds since the clock's epoch.
  static std::int64_t to_ns(clock::time_point t) noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  }

 private:
  struct heap_entry {
    std::int64_t deadline_ns;
    timer_id id;
    bool operator>(const heap_entry& other) const {
      return deadline_ns != other.deadline_ns ? deadline_ns > other.deadline_ns : id > other.id;
    }
  };
  struct record {
    std::function<void()> callback;
    std::chrono::nanoseconds period;
    bool firing = false;     ///< a periodic timer whose callback runs now (outside the lock)
    bool cancelled = false;  ///< ... and was cancelled meanwhile: do not re-arm
  };
  void publish_next_locked() noexcept;
  /// Runs a callback; false when it threw (the exception was reported).
  bool invoke(std::function<void()>& callback) noexcept;

  mutable std::mutex mutex_;
  std::priority_queue<heap_entry, std::vector<heap_entry>, std::greater<>> heap_;
  std::unordered_map<timer_id, record> records_;
  timer_id next_id_ = 1;
  bool closed_ = false;
  std::atomic<std::int64_t> next_deadline_{no_deadline};
  std::atomic<bool> running_{false};
  std::function<void(std::exception_ptr)> error_handler_;  ///< guarded by mutex_
};

}  // namespace spate
