#pragma once
// Dynamically typed actors: open-ended input matched at run time against a behavior
// (a set of handlers, one per argument type), replaceable with become(). A message no
// handler matches is reported as unexpected (with its type name) and, if it was a request,
// answered with request_error_code::unexpected_message.
#include <any>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

#include "spate/actor/abstract_actor.hpp"
#include "spate/actor/mailbox.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// A message of a dynamic actor, with its request's reply sink.
struct SPATE_API dynamic_envelope {
  /// The message.
  std::any message;
  /// Where the answer goes (null for a send).
  std::shared_ptr<response_sink> reply;
};

/// An actor whose behaviour handles any message type at run time, and may change (become).
class SPATE_API event_based_actor : public abstract_actor {
 public:
  ~event_based_actor() override { count_dead_letters(drop_mailbox()); }

  /// Replaces the current behavior from the next message on.
  void become(behavior next) { behavior_ = std::move(next); }

  void enqueue_dynamic(std::any message, message_priority priority,
                       std::shared_ptr<response_sink> reply) override;
  /// Messages waiting.
  std::size_t mailbox_size() const noexcept override { return mailbox_.size_approx(); }

 protected:
  /// The initial behavior; an actor whose behavior is empty terminates normally.
  virtual behavior make_behavior() { return {}; }

  void initialize() override;
  std::size_t process_mailbox(std::size_t budget) override;
  mailbox_mark mark_mailbox() const noexcept override { return mailbox_.mark(); }
  /// See abstract_actor::mailbox_grew_since.
  bool mailbox_grew_since(const mailbox_mark& mark) const noexcept override {
    return mailbox_.grew_since(mark);
  }
  std::size_t drop_mailbox() override;
  /// Drops the behavior: its handlers often capture handles to other actors.
  void on_terminated(const exit_reason&) override { behavior_ = behavior{}; }

 private:
  behavior behavior_;
  two_priority_mailbox<dynamic_envelope> mailbox_;
};

/// The actor behind actor_system::spawn(function).
class function_actor final : public event_based_actor {
 public:
  /// An actor whose first behaviour is `init`'s result.
  explicit function_actor(std::function<behavior(event_based_actor&)> init)
      : init_(std::move(init)) {}

 protected:
  behavior make_behavior() override { return init_(*this); }

 private:
  std::function<behavior(event_based_actor&)> init_;
};

}  // namespace spate
