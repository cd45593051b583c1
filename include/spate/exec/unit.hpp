#pragma once
// The unit: what runs on spate's executors. A unit is a task (resume / discard), the
// executor it runs on, and its wake handshake (wake_handshake.hpp): the one idle-versus-wake
// handshake. Actors (event-based, typed, blocking) and flow node replicas are units; the
// "notify, and if the unit was idle, schedule it" step exists here only.
//
// # Protocol
//
// Producer (any thread), after publishing work for the unit (a message, items on a link,
// room freed, a cancel flag):
//   notify()  =  handshake P1, P2; the winner of the CAS calls executor->schedule(unit).
//
// The running activation, when it found no more work:
//   go_idle(has_work)  =  handshake C1..C4; true: work came, keep running.
//   finish()           =  the unit never runs again; waits for re-checks in flight.
//
// The correctness argument is the handshake's (wake_handshake.hpp): one of the producer and
// the consumer sees the other, and exactly one CAS from idle wins per idle period, so the
// unit is scheduled at most once at a time and work is never stranded.
//
// An executor decides what "schedule" means: a worker pool queues the unit, a dedicated
// thread queues it for its thread, and a blocking actor's executor wakes the thread that
// waits inside the unit (blocking_actor.hpp) through a waiter.
//
// # Threading contract
//
// notify(), notify_after_fence(), is_finished(): any thread. go_idle(), finish(),
// take_back_after_wait(): the running activation only. set_executor(): before the first
// activation (the owner, while no producer can see the unit).
#include "spate/exec/wake_handshake.hpp"
#include "spate/exec/task.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// A task with an executor and an wake handshake (see the top of this file).
class SPATE_API unit : public task {
 public:
  /// Any thread, after publishing work for the unit: schedules it if it was idle.
  void notify() noexcept {
    if (handshake_.notify()) executor_->schedule(this);
  }
  /// The same for a caller that passed handshake_fence() itself (waking several units).
  void notify_after_fence() noexcept {
    if (handshake_.notify_after_fence()) executor_->schedule(this);
  }
  /// Any thread: true once the unit has finished for good.
  bool is_finished() const noexcept { return handshake_.is_finished(); }

  /// Where the unit runs. Set it before the first activation.
  void set_executor(executor* e) noexcept { executor_ = e; }
  /// The executor it runs on (null before set_executor()).
  executor* get_executor() const noexcept { return executor_; }

 protected:
  unit() = default;

  /// The running activation found no more work: handshake steps C1..C4. `has_work` reads
  /// only atomics that producers write. True: work arrived and this activation goes on.
  template <class HasWork>
  [[nodiscard]] bool go_idle(HasWork&& has_work) noexcept {
    return handshake_.go_idle(static_cast<HasWork&&>(has_work));
  }
  /// The running activation, last step: the unit never runs again (wake_handshake::finish).
  void finish_unit() noexcept { handshake_.finish(); }
  /// A thread that waited after go_idle() returned false owns the unit again.
  void take_back_after_wait() noexcept { handshake_.resume_after_wait(); }
  /// The handshake's state now, for diagnostics and for a waiting thread's condition.
  wake_handshake::state handshake_state() const noexcept { return handshake_.current(); }

 private:
  friend class actor_system;  // finishes an actor whose registration failed
  wake_handshake handshake_;
  executor* executor_ = nullptr;
};

}  // namespace spate
