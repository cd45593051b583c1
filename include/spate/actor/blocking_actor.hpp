#pragma once
// Blocking actors own a thread (spawn_blocking) or borrow the caller's (scoped_actor) and
// pull messages with receive(). A blocking actor is a unit whose executor does not queue it
// but wakes its thread: receive() goes idle through the activation and then waits in a
// waiter (exec/waiter.hpp) until a sender has won the unit back (the activation's
// state leaves idle) or the deadline passes. So an idle blocking actor costs no CPU and a
// send wakes it, with no poll.
#include <any>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <typeinfo>
#include <utility>

#include "spate/actor/abstract_actor.hpp"
#include "spate/actor/event_based_actor.hpp"
#include "spate/channel/mpsc_queue.hpp"
#include "spate/exec/waiter.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// Thrown out of receive() when the actor was killed (by shutdown, a kill or a linked exit):
/// it unwinds the blocking actor's function, which then terminates with that reason.
class SPATE_API actor_exited : public std::runtime_error {
 public:
  /// Thrown out of a blocking actor's receive when it must stop.
  explicit actor_exited(exit_reason reason)
      : std::runtime_error("actor exited: " + to_string(reason)), reason_(std::move(reason)) {}
  /// Why it stops.
  const exit_reason& reason() const noexcept { return reason_; }

 private:
  exit_reason reason_;
};

/// An actor on a thread of its own that receives by blocking (spawn_blocking, scoped_actor).
class SPATE_API blocking_actor final : public abstract_actor {
 public:
  blocking_actor() { set_executor(&thread_waker_); }
  ~blocking_actor() override { count_dead_letters(drop_mailbox()); }

  /// Waits up to `timeout` for one message and runs the handler matching its type. Messages
  /// an earlier receive<T>() kept for later come first, oldest first, when a handler matches
  /// them; a new message no handler matches is reported as unexpected and also ends the wait.
  /// Returns false on time-out. Throws actor_exited when the actor has to stop.
  template <class... Handlers>
  bool receive_for(std::chrono::nanoseconds timeout, Handlers&&... handlers) {
    behavior b(std::forward<Handlers>(handlers)...);
    std::optional<dynamic_envelope> envelope =
        take_kept([&](const dynamic_envelope& e) { return b.handles(e.message.type()); });
    if (!envelope) envelope = next_message(std::chrono::steady_clock::now() + timeout);
    if (!envelope) return false;
    run_handler(b, *envelope);
    return true;
  }

  /// Waits (without time-out) for a message of type T and returns it. Messages of other types
  /// stay in the mailbox, in order, for later receives (CAF's skip): the oldest T wins.
  template <class T>
  T receive() {
    return *receive_until<T>(std::chrono::steady_clock::time_point::max());
  }

  /// Like receive<T>() with a time-out: nullopt when no T came in time.
  template <class T>
  std::optional<T> receive_for(std::chrono::nanoseconds timeout) {
    return receive_until<T>(std::chrono::steady_clock::now() + timeout);
  }

  void enqueue_dynamic(std::any message, message_priority priority,
                       std::shared_ptr<response_sink> reply) override;
  /// Messages waiting.
  std::size_t mailbox_size() const noexcept override {
    return mailbox_.size_approx() + kept_count_.load(std::memory_order_relaxed);
  }

  /// Used by the system: terminates the actor from its own thread.
  void finish(exit_reason reason) { terminate(std::move(reason)); }

 protected:
  std::size_t process_mailbox(std::size_t) override { return 0; }
  mailbox_mark mark_mailbox() const noexcept override { return {0, mailbox_.consumer_position()}; }
  /// See abstract_actor::mailbox_grew_since.
  bool mailbox_grew_since(const mailbox_mark& mark) const noexcept override {
    return mailbox_.has_items_after(mark.normal);
  }
  std::size_t drop_mailbox() override;

 private:
  template <class T>
  std::optional<T> receive_until(std::chrono::steady_clock::time_point deadline) {
    const auto is_t = [](const dynamic_envelope& e) { return e.message.type() == typeid(T); };
    std::optional<dynamic_envelope> envelope = take_kept(is_t);
    while (!envelope) {
      envelope = next_message(deadline);
      if (!envelope) return std::nullopt;
      if (!is_t(*envelope)) {
        keep(std::move(*envelope));
        envelope.reset();
      }
    }
    return std::move(*std::any_cast<T>(&envelope->message));
  }

  /// The oldest kept message `wanted` accepts, removed from the kept ones.
  template <class Predicate>
  std::optional<dynamic_envelope> take_kept(Predicate wanted) {
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (wanted(*it)) {
        dynamic_envelope taken = std::move(*it);
        kept_.erase(it);
        kept_count_.fetch_sub(1, std::memory_order_relaxed);
        return taken;
      }
    }
    return std::nullopt;
  }
  void keep(dynamic_envelope envelope) {
    kept_.push_back(std::move(envelope));
    kept_count_.fetch_add(1, std::memory_order_relaxed);
  }

  std::optional<dynamic_envelope> next_message(std::chrono::steady_clock::time_point deadline);
  void run_handler(const behavior& b, dynamic_envelope& envelope);

  // "Scheduling" this actor wakes the thread waiting in next_message().
  struct thread_waker final : executor {
    explicit thread_waker(waiter& w) noexcept : wake(w) {}
    void schedule(task*) override { wake.notify(); }
    waiter& wake;
  };
  waiter wake_;
  thread_waker thread_waker_{wake_};
  mpsc_queue<dynamic_envelope> mailbox_;  ///< priorities are not distinguished here
  /// Messages receive<T>() skipped, in arrival order; older than anything in mailbox_. Owner
  /// thread only; the count is read by mailbox_size() from any thread.
  std::deque<dynamic_envelope> kept_;
  std::atomic<std::size_t> kept_count_{0};
};

}  // namespace spate
