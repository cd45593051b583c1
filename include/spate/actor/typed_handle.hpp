#pragma once
// Typed handles by interface. actor_ref<counter> names the implementation class, so every
// caller includes it. An interface names only the messages and their response types:
//
//   using counter_api = spate::actor_interface<void(increment), long(get_count)>;
//   spate::typed_handle<counter_api> c = system.spawn<counter>();  // checked here
//   spate::send(c, increment{});
//   long n = spate::request(c, get_count{}, 1s).get();              // response type: long
//
// The conversion from actor_ref<D> checks at compile time that D accepts every message of
// the interface and that its handler's result is the declared response type (for void,
// any result is accepted; a requester then receives nothing but completion). Sending a message
// outside the interface, or naming a different response type, is a compile-time error at the
// caller's line. Messages still go into D's typed mailbox without type erasure: the handle keeps
// one enqueue function per message type, chosen when the handle was made.
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "spate/actor/abstract_actor.hpp"
#include "spate/actor/actor_system.hpp"
#include "spate/actor/response.hpp"
#include "spate/actor/typed_actor.hpp"

namespace spate {

template <class... Signatures>
struct actor_interface {
  static_assert(sizeof...(Signatures) > 0 && (std::is_function_v<Signatures> && ...),
                "spate::actor_interface: list signatures `Response(Message)`, e.g. "
                "actor_interface<void(increment), long(get_count)>");
};

namespace detail {

template <class Signature>
struct interface_signature;
template <>
struct interface_signature<void> {  // a message outside the interface (reported by enqueue)
  using response = void;
};
template <class R, class T>
struct interface_signature<R(T)> {
  static_assert(std::is_same_v<T, std::decay_t<T>>,
                "spate::actor_interface: a message type is a plain value type: `long(get_count)`");
  using message = T;
  using response = R;
  using enqueue_function = void (*)(abstract_actor*, T&&, message_priority,
                                    std::shared_ptr<response_sink>);
};

/// The signature of message T in Signatures... (void when there is none).
template <class T, class... Signatures>
struct signature_for {
  using type = void;
};
template <class T, class First, class... Rest>
struct signature_for<T, First, Rest...> {
  using type = std::conditional_t<std::is_same_v<T, typename interface_signature<First>::message>,
                                  First, typename signature_for<T, Rest...>::type>;
};

template <class T, class... Signatures>
inline constexpr std::size_t count_of_message =
    (std::size_t(std::is_same_v<T, typename interface_signature<Signatures>::message>) + ... + 0);

template <class D, class Signature>
constexpr bool implements_signature() {
  using message = typename interface_signature<Signature>::message;
  using response = typename interface_signature<Signature>::response;
  if constexpr (!D::template accepts_v<message>) {
    return false;
  } else if constexpr (std::is_void_v<response>) {
    return true;
  } else {
    return std::is_same_v<std::decay_t<unwrap_promise_t<handler_result_t<D, message>>>, response>;
  }
}

}  // namespace detail

template <class Interface>
class typed_handle;

/// A handle typed by an actor_interface: it can send only the interface's messages.
template <class... Signatures>
class typed_handle<actor_interface<Signatures...>> {
  static_assert(
      ((detail::count_of_message<typename detail::interface_signature<Signatures>::message,
                                 Signatures...> == 1) &&
       ...),
      "spate::actor_interface: each message type may appear in one signature only");

 public:
  /// The interface.
  using interface_type = actor_interface<Signatures...>;
  /// True when T is one of the interface's messages.
  template <class T>
  static constexpr bool accepts_v =
      !std::is_void_v<typename detail::signature_for<std::decay_t<T>, Signatures...>::type>;
  /// What a request with message T answers.
  template <class T>
  using response_t = typename detail::interface_signature<
      typename detail::signature_for<std::decay_t<T>, Signatures...>::type>::response;

  typed_handle() noexcept = default;
  /// An empty handle.
  typed_handle(std::nullptr_t) noexcept {}

  /// A handle to an actor that implements the interface (checked at compile time).
  template <class D>
  requires typed_actor_type<D> typed_handle(const actor_ref<D>& implementation)
      : actor_(implementation), enqueue_(&table_for<D>) {
    static_assert((detail::implements_signature<D, Signatures>() && ...),
                  "spate::typed_handle: the actor does not implement the interface (a message "
                  "it does not accept, or a handler whose result is not the declared "
                  "response type)");
  }

  /// True unless empty.
  explicit operator bool() const noexcept { return static_cast<bool>(actor_); }
  /// The untyped handle (links, monitors, identity).
  const actor& untyped() const noexcept { return actor_; }
  /// The actor's id.
  std::uint64_t id() const noexcept { return actor_.id(); }
  /// The actor's name.
  const std::string& name() const noexcept { return actor_.name(); }
  /// Messages waiting in its mailbox.
  std::size_t mailbox_size() const noexcept { return actor_.mailbox_size(); }
  /// True once it has terminated.
  bool is_terminated() const noexcept { return actor_.is_terminated(); }
  /// The same actor.
  friend bool operator==(const typed_handle& a, const typed_handle& b) noexcept {
    return a.actor_ == b.actor_;
  }

  /// Used by send / request (actor/send.hpp): enqueues into the implementation's mailbox.
  template <class T>
  void enqueue(T&& message, message_priority priority, std::shared_ptr<response_sink> reply,
               const char* what) const {
    static_assert(accepts_v<T>,
                  "spate: this message type is not part of the handle's actor_interface");
    if (!actor_) throw std::invalid_argument(std::string(what) + ": null actor handle");
    using message_type = std::decay_t<T>;
    constexpr std::size_t index = index_of<message_type>();
    std::get<index> (*enqueue_)(actor_.get(), message_type(std::forward<T>(message)), priority,
                                std::move(reply));
  }

 private:
  using table = std::tuple<typename detail::interface_signature<Signatures>::enqueue_function...>;

  template <class T>
  static constexpr std::size_t index_of() {
    std::size_t index = 0, found = 0;
    ((std::is_same_v<T, typename detail::interface_signature<Signatures>::message>
          ? (found = index, ++index)
          : ++index),
     ...);
    return found;
  }

  template <class D, class T>
  static void enqueue_into(abstract_actor* target, T&& message, message_priority priority,
                           std::shared_ptr<response_sink> reply) {
    static_cast<D*>(target)->enqueue(std::move(message), priority, std::move(reply));
  }
  template <class D>
  static constexpr table table_for{
      &enqueue_into<D, typename detail::interface_signature<Signatures>::message>...};

  actor actor_;
  const table* enqueue_ = nullptr;
};

template <class I, class T>
void send(const typed_handle<I>& to, T&& message) {
  to.enqueue(std::forward<T>(message), message_priority::normal, nullptr, "spate::send");
}

template <class I, class T>
void send(message_priority priority, const typed_handle<I>& to, T&& message) {
  to.enqueue(std::forward<T>(message), priority, nullptr, "spate::send");
}

/// The response type is the interface's: request(handle, get_count{}, 1s) -> response<long>.
template <class I, class T>
auto request(const typed_handle<I>& to, T&& message, std::chrono::nanoseconds timeout) {
  using result = typename typed_handle<I>::template response_t<T>;
  const auto* target = to.untyped().get();
  auto sink = std::make_shared<response_sink>(
      type_name<std::decay_t<T>>(),
      target != nullptr ? response_sink::describe_target(target->name(), target->id()) : "",
      timeout);
  to.enqueue(std::forward<T>(message), message_priority::normal, sink, "spate::request");
  return response<result>(std::move(sink), timeout, &to.untyped().get()->system());
}

}  // namespace spate
