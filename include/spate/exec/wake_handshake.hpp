#pragma once
// The wake handshake: the one idle-versus-wake handshake of spate. Words: an *activation*
// is one run of a unit (resume() until it returns); the *wake handshake* decides who starts
// the next one. Actors (typed, dynamic,
// blocking), flow node tasks and collectors each own one; so will reactions.
//
// A schedulable unit is in one of three states:
//
//   scheduled ──go_idle()──▶ idle ──notify() wins the CAS──▶ scheduled
//       │                                                       ▲
//       └─────────────── go_idle() takes it back ───────────────┘
//   scheduled ──finish()──▶ finished (final)
//
// At most one activation of a unit runs at a time: only the caller whose CAS moves the state
// from idle to scheduled may run (or queue) the unit, and only the running activation moves
// it back to idle or to finished.
//
// # Protocol
//
// Producer (any thread), after it published work for the unit (pushed a message, committed
// items to an edge, freed room a producer waits for):
//   P1. handshake_fence()
//   P2. if the state is idle and CAS(idle -> scheduled) succeeds: schedule the unit.
//
// Consumer (the running activation), when it found no more work:
//   C1. state = idle                                   (release)
//   C2. handshake_fence()
//   C3. re-check for work, reading only atomics that producers write;
//   C4. if there is work and CAS(idle -> scheduled) succeeds: keep running, else return.
//
// # Why no work is ever stranded
//
// P1 and C2 are sequentially consistent, so they are ordered one before the other. If C2
// comes first, the producer's P2 load sees C1's `idle` (it follows C1 in the single total
// order) and the producer tries the CAS. If P1 comes first, the consumer's C3 sees the work
// published before P1. Either the producer or the consumer (or both) tries the CAS, and the
// one that wins runs the unit: the work is seen by an activation that runs after it was
// published. Two winners are impossible: the CAS from idle succeeds once per idle period.
//
// # Lifetime rule (one for every kind of unit)
//
// A unit is owned by a container (an actor system's registry, a graph's task list) that
// keeps it alive until the unit's own activation calls finish(). Once C1 has published
// `idle`, another activation may start on another thread and may even finish; the
// re-check C3 of the earlier activation must still be able to read the unit. So go_idle()
// counts itself in `checks_in_flight_` around C1..C4, and finish() waits until no check is in
// flight (a few loads long). After finish() returns nothing may touch the unit: the owner
// may free it at any time.
#include <atomic>
#include <cstdint>
#include <thread>

#include "spate/exec/detail/handshake_fence.hpp"
#include "spate/platform/stress_point.hpp"

namespace spate {

/// The wake handshake of one task (see the top of this file).
class wake_handshake {
 public:
  /// idle: not queued, a notify schedules it; scheduled: queued or running; finished: ended.
  enum class state : int { idle = 0, scheduled = 1, finished = 2 };

  /// A new unit starts scheduled: its creator runs or queues the first activation.
  wake_handshake() = default;
  wake_handshake(const wake_handshake&) = delete;
  wake_handshake& operator=(const wake_handshake&) = delete;

  // ---- producer side, any thread (steps P1, P2) ----

  /// Returns true when the caller won the unit and must now schedule it.
  [[nodiscard]] bool notify() noexcept {
    stress_point();
    handshake_fence();
    return notify_after_fence();
  }
  /// For waking several units after one handshake_fence() of the caller's.
  [[nodiscard]] bool notify_after_fence() noexcept {
    if (state_.load(std::memory_order_relaxed) != state::idle) return false;
    state expected = state::idle;
    return state_.compare_exchange_strong(expected, state::scheduled, std::memory_order_acq_rel);
  }

  // ---- consumer side, only the running activation ----

  /// Steps C1..C4. `has_work()` must read only atomics that producers write (the unit may be
  /// running again elsewhere). Returns true when work arrived and this activation took the
  /// unit back (it goes on running); false when the unit is idle (return and touch nothing).
  template <class HasWork>
  [[nodiscard]] bool go_idle(HasWork&& has_work) noexcept {
    checks_in_flight_.fetch_add(1, std::memory_order_relaxed);  ///< ordered by C1's release
    state_.store(state::idle, std::memory_order_release);
    stress_point();
    handshake_fence();
    bool keep_running = false;
    if (has_work()) keep_running = notify_after_fence();
    checks_in_flight_.fetch_sub(1, std::memory_order_release);  ///< the last access
    return keep_running;
  }

  /// A thread that waited after go_idle() returned false (a blocking actor) and resumes on its
  /// own, by time-out or by a notify: it owns the unit again. A notifier that won the CAS in
  /// between set the same state.
  void resume_after_wait() noexcept { state_.store(state::scheduled, std::memory_order_relaxed); }

  /// Final: the unit will never run again and notify() always returns false from now on.
  /// Waits for re-checks still in flight from earlier activations (lifetime rule above).
  void finish() noexcept {
    state_.store(state::finished, std::memory_order_release);
    while (checks_in_flight_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  }

  /// ---- observers, any thread ----
  bool is_finished() const noexcept {
    return state_.load(std::memory_order_acquire) == state::finished;
  }
  /// The state now (diagnostics: it may change at once).
  state current() const noexcept { return state_.load(std::memory_order_relaxed); }

 private:
  std::atomic<state> state_{state::scheduled};
  std::atomic<std::uint32_t> checks_in_flight_{0};
};

}  // namespace spate
