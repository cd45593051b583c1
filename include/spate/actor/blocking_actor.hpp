#pragma once
// Blocking actors own a thread (spawn_blocking) or borrow the caller's (scoped_actor) and
// pull messages with receive(). They wait on a parking event, so an idle blocking actor
// costs no CPU; a send wakes it.
#include <any>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "spate/actor/abstract_actor.hpp"
#include "spate/actor/event_based_actor.hpp"
#include "spate/channel/mpsc_queue.hpp"
#include "spate/platform/parking_event.hpp"

namespace spate {

// Thrown out of receive() when the actor was killed (by shutdown, a kill or a linked exit):
// it unwinds the blocking actor's function, which then terminates with that reason.
class actor_exited : public std::runtime_error {
 public:
  explicit actor_exited(exit_reason reason)
      : std::runtime_error("actor exited: " + to_string(reason)), reason_(std::move(reason)) {}
  const exit_reason& reason() const noexcept { return reason_; }

 private:
  exit_reason reason_;
};

class blocking_actor final : public abstract_actor {
 public:
  blocking_actor() = default;

  // Waits up to `timeout` for one message and runs the handler matching its type (an
  // unmatched message is reported as unexpected and also ends the wait). Returns false on
  // time-out. Throws actor_exited when the actor has to stop.
  template <class... Handlers>
  bool receive_for(std::chrono::nanoseconds timeout, Handlers&&... handlers) {
    behavior b(std::forward<Handlers>(handlers)...);
    auto envelope = next_message(std::chrono::steady_clock::now() + timeout);
    if (!envelope) return false;
    run_handler(b, *envelope);
    return true;
  }

  // Waits (without time-out) for one message of type T and returns it; another type is
  // reported as unexpected and skipped.
  template <class T>
  T receive() {
    for (;;) {
      auto envelope = next_message(std::chrono::steady_clock::time_point::max());
      if (auto* value = std::any_cast<T>(&envelope->message)) return std::move(*value);
      report_unexpected(demangle(envelope->message.type().name()), envelope->reply);
    }
  }

  // Like receive<T>() with a time-out: nullopt when nothing came in time.
  template <class T>
  std::optional<T> receive_for(std::chrono::nanoseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto envelope = next_message(deadline);
      if (!envelope) return std::nullopt;
      if (auto* value = std::any_cast<T>(&envelope->message)) return std::move(*value);
      report_unexpected(demangle(envelope->message.type().name()), envelope->reply);
    }
  }

  void enqueue_dynamic(std::any message, message_priority priority,
                       std::shared_ptr<response_sink> reply) override;
  std::size_t mailbox_size() const noexcept override { return mailbox_.size_approx(); }

  // Used by the system: terminates the actor from its own thread.
  void finish(exit_reason reason) { terminate(std::move(reason)); }

 protected:
  std::size_t process_mailbox(std::size_t) override { return 0; }
  mailbox_mark mark_mailbox() const noexcept override { return {0, mailbox_.consumer_position()}; }
  bool mailbox_grew_since(const mailbox_mark& mark) const noexcept override {
    return mailbox_.has_items_after(mark.normal);
  }
  std::size_t drop_mailbox() override;
  void schedule_on_executor() override { wake_.notify(); }

 private:
  std::optional<dynamic_envelope> next_message(std::chrono::steady_clock::time_point deadline);
  void run_handler(const behavior& b, dynamic_envelope& envelope);

  parking_event wake_;
  mpsc_queue<dynamic_envelope> mailbox_;  // priorities are not distinguished here
};

}  // namespace spate
