#pragma once
// Typed actors: the message types are part of the actor's type, the mailbox holds a
// std::variant of them, and dispatch is std::visit over handler overloads `on(T&)` of the
// derived class (CRTP): no type erasure, no allocation, no run-time type test per message.
// Sending a type the actor does not accept is a compile-time error (see send.hpp).
//
//   struct counter : spate::typed_actor<counter, increment, get_count> {
//     void on(increment&) { ++n; }
//     long on(get_count&) { return n; }  // a non-void result answers requests
//     long n = 0;
//   };
//
// Optional hooks: `void on_start()` before the first message and `void on_stop()` at
// termination, both in the actor's context. `bool accepting_messages() const noexcept`:
// while false, normal-priority messages wait in the mailbox (high-priority ones still run);
// it must read only atomics (it is part of the idle re-check), and whatever makes it true
// again must wake the actor (schedule_if_idle) after publishing that change.
#include <any>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <variant>

#include "spate/actor/abstract_actor.hpp"
#include "spate/actor/mailbox.hpp"
#include "spate/platform/type_name.hpp"

namespace spate {

/// An actor that accepts exactly the message types listed (see the top of this file).
template <class Derived, class... Accepted>
class typed_actor : public abstract_actor {
  static_assert(sizeof...(Accepted) > 0, "typed_actor: declare at least one message type");
  static_assert((std::is_same_v<Accepted, std::decay_t<Accepted>> && ...),
                "typed_actor: message types must be plain value types (no references or cv)");

 public:
  struct typed_actor_tag {};
  static_assert((std::is_nothrow_move_constructible_v<Accepted> && ...),
                "spate::typed_actor: every message type must be nothrow move constructible "
                "(mailboxes move messages into slots they already reserved)");
  /// One mailbox entry: any accepted message.
  using body_type = std::variant<Accepted...>;
  /// True when T is one of the accepted types.
  template <class T>
  static constexpr bool accepts_v = (std::is_same_v<std::decay_t<T>, Accepted> || ...);

  ~typed_actor() override { this->count_dead_letters(drop_mailbox()); }

  /// Queues a message of an accepted type (any thread).
  template <class T>
  void enqueue(T&& message, message_priority priority, std::shared_ptr<response_sink> reply) {
    if (is_terminated()) {
      reject_after_termination(reply, typeid(std::decay_t<T>).name());
      return;
    }
    mailbox_.push(envelope{body_type(std::in_place_type<std::decay_t<T>>, std::forward<T>(message)),
                           std::move(reply)},
                  priority);
    schedule_if_idle();
  }

  /// Queues a type-erased message, converted to an accepted type or reported unexpected.
  void enqueue_dynamic(std::any message, message_priority priority,
                       std::shared_ptr<response_sink> reply) override {
    const bool matched =
        ((std::any_cast<Accepted>(&message) != nullptr
              ? (enqueue(std::move(*std::any_cast<Accepted>(&message)), priority, std::move(reply)),
                 true)
              : false) ||
         ...);
    if (!matched) report_unexpected(demangle(message.type().name()), reply);
  }

  /// Messages waiting.
  std::size_t mailbox_size() const noexcept override { return mailbox_.size_approx(); }

  /// A typed handle to this actor (for sending to itself or handing out).
  actor_ref<Derived> typed_self() { return actor_ref<Derived>(&derived()); }

 protected:
  /// Runs on_start() if the actor defines it.
  void initialize() override {
    if constexpr (requires(Derived & d) { d.on_start(); }) derived().on_start();
  }

  /// Runs on every termination (quit, kill, shutdown, exception, linked exit). Release
  /// handles to other actors here: two actors holding handles to each other keep each
  /// other's memory alive after both terminated.
  void on_terminated(const exit_reason&) override {
    if constexpr (requires(Derived & d) { d.on_stop(); }) derived().on_stop();
  }

  /// Handles up to `budget` messages; returns how many.
  std::size_t process_mailbox(std::size_t budget) override {
    return mailbox_.drain(
        budget, [this] { return accepting_normal(); },
        [this](envelope& e) {
          std::visit([&](auto& m) { handle(m, e.reply); }, e.body);
          return !quit_requested();
        });
  }

  /// The push counts now, for the idle re-check.
  mailbox_mark mark_mailbox() const noexcept override { return mailbox_.mark(); }
  /// See abstract_actor::mailbox_grew_since.
  bool mailbox_grew_since(const mailbox_mark& mark) const noexcept override {
    return mailbox_.grew_since(mark, accepting_normal());
  }

  /// Counts and fails what was still queued at termination.
  std::size_t drop_mailbox() override {
    return mailbox_.drop_all([this](envelope& e) { this->fail_dropped_request(e.reply); });
  }

 private:
  struct envelope {
    body_type body;
    std::shared_ptr<response_sink> reply;
  };

  Derived& derived() noexcept { return static_cast<Derived&>(*this); }
  bool accepting_normal() const noexcept {
    if constexpr (requires(const Derived& d) { d.accepting_messages(); }) {
      return static_cast<const Derived&>(*this).accepting_messages();
    } else {
      return true;
    }
  }

  template <class M>
  void handle(M& message, std::shared_ptr<response_sink>& reply) {
    static_assert(
        requires(Derived & d, M & m) { d.on(m); },
        "typed_actor: the actor declares a message type it has no on(T&) handler for");
    using result = decltype(derived().on(message));
    handle_guarded(reply, [&] {
      if constexpr (std::is_void_v<result>) {
        derived().on(message);
        if (reply) reply->deliver(std::any(unit_t{}));
      } else if constexpr (!std::is_same_v<result, detail::unwrap_promise_t<result>>) {
        // A response_promise: the handler took the reply over; its copies answer later.
        (void)derived().on(message);
      } else {
        // A handler may take the reply over even when it returns a value: the value is then
        // not an answer.
        result value = derived().on(message);
        if (reply) reply->deliver(std::any(std::move(value)));
      }
    });
  }

  two_priority_mailbox<envelope> mailbox_;
};

template <class D>
concept typed_actor_type = requires {
  typename D::typed_actor_tag;
};

/// The result type of D's handler for T (void when it returns nothing; response_promise<R>
/// when it replies later).
template <class D, class T>
using handler_result_t = decltype(std::declval<D&>().on(std::declval<std::decay_t<T>&>()));

}  // namespace spate
