#pragma once
// The waiter: the one way a *thread* (not a task) sleeps until a condition that other threads
// make true. Dedicated threads wait for tasks, the parallel layer's caller waits for its
// helpers' chunks, a reader thread waits for room in its ring — each through this class, with
// no time-out and no poll. (A task never blocks: it goes idle through the activation,
// wake_handshake.hpp. Workers park through the pool's own state machine, worker_pool.hpp, which
// hands work over with the wake-up.)
//
// Its shape is Taskflow's notifier (prepare / re-check / commit) over a parking_event:
//
// # Protocol
//
// Waiting thread (one at a time), until `ready()` holds:
//   W1. waiting = true                                (prepare)
//   W2. handshake_fence()
//   W3. if ready(): waiting = false, return           (cancel)
//   W4. wait on the event; waiting = false; go to W1  (commit)
//
// Notifier (any thread), after it made `ready()` true (pushed a task, counted a chunk,
// freed room, asked to stop):
//   N1. handshake_fence()
//   N2. if waiting: notify the event
//
// # Why the waiter never sleeps through its condition
//
// W2 and N1 are sequentially consistent fences, so one comes first in their total order. If
// W2 does, N2 reads W1's `true` and notifies; if N1 does, W3 reads what the notifier
// published before N1 and sees `ready()`. A notify that lands before W4 is kept by the
// parking_event (its signal is a state, not a pulse), so the wait returns at once. The event
// may also hold a stale signal from an earlier round: the waiter then wakes, re-checks in
// W1..W3 and sleeps again. So a wake-up is never lost, and a spurious one costs one
// re-check.
//
// `ready()` must read only what notifiers publish before N1 (atomics, or state under a lock
// they take): it runs concurrently with them.
//
// tests/stress (waiter) injects delays between W1 and W3 and between the publish and N2.
#include <atomic>
#include <chrono>

#include "spate/exec/detail/handshake_fence.hpp"
#include "spate/exec/detail/parking_event.hpp"
#include "spate/platform/stress_point.hpp"

namespace spate {

/// A thread sleeps until a condition holds; any thread wakes it (see the top of this file).
class waiter {
 public:
  /// The waiting thread (one at a time): returns once `ready()` is true.
  template <class Ready>
  void wait_until(Ready&& ready) noexcept(noexcept(ready())) {
    while (!prepared_and_ready(ready)) {
      event_.wait();  // W4
      waiting_.store(false, std::memory_order_relaxed);
    }
  }

  /// The same, giving up at `deadline`: true when `ready()` holds, false at the deadline.
  template <class Ready, class Clock, class Duration>
  bool wait_until(Ready&& ready, std::chrono::time_point<Clock, Duration> deadline) {
    while (!prepared_and_ready(ready)) {
      const auto left = deadline - Clock::now();
      if (left <= Duration::zero()) {
        waiting_.store(false, std::memory_order_relaxed);
        return ready();
      }
      event_.wait_for(std::chrono::duration_cast<std::chrono::nanoseconds>(left));
      waiting_.store(false, std::memory_order_relaxed);
    }
    return true;
  }

  /// Notifier, any thread, after publishing what makes `ready()` true: steps N1, N2.
  void notify() noexcept {
    stress_point();
    handshake_fence();  // N1
    notify_after_fence();
  }
  /// Step N2 alone, for a caller that passed handshake_fence() itself.
  void notify_after_fence() noexcept {
    if (waiting_.load(std::memory_order_relaxed)) event_.notify();
  }

 private:
  // W1..W3: true when ready (the waiter does not sleep); false with `waiting` published.
  template <class Ready>
  bool prepared_and_ready(Ready& ready) {
    if (ready()) return true;
    waiting_.store(true, std::memory_order_relaxed);  // W1
    stress_point();
    handshake_fence();  // W2
    if (ready()) {      // W3
      waiting_.store(false, std::memory_order_relaxed);
      return true;
    }
    return false;
  }

  std::atomic<bool> waiting_{false};
  parking_event event_;
};

}  // namespace spate
