#pragma once
// Sending, requesting and delayed sending. The same calls work from main(), from inside
// actors and from any other thread.
#include <any>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "spate/actor/actor_system.hpp"
#include "spate/actor/typed_actor.hpp"

namespace spate {
namespace detail {

template <class D>
D* checked_target(const actor_ref<D>& to, const char* what) {
  if (!to) throw std::invalid_argument(std::string(what) + ": null actor handle");
  return to.get();
}

template <class D, class T>
void enqueue(const actor_ref<D>& to, T&& message, message_priority priority,
             std::shared_ptr<response_sink> reply, const char* what) {
  D* target = checked_target(to, what);
  if constexpr (typed_actor_type<D>) {
    static_assert(D::template accepts_v<T>,
                  "spate: the receiving typed actor does not accept this message type "
                  "(it is not in its typed_actor<...> list)");
    target->enqueue(std::forward<T>(message), priority, std::move(reply));
  } else {
    target->enqueue_dynamic(std::any(std::forward<T>(message)), priority, std::move(reply));
  }
}

struct deduce_response {};

/// The response type of a request: R when named, else the typed receiver's handler result
/// (evaluated lazily: a dynamic receiver has no handler to inspect).
template <class R, class D, class T>
struct response_type {
  using type = R;
};
template <class D, class T>
struct response_type<deduce_response, D, T> {
  using type = deduce_response;
};
template <class D, class T>
requires typed_actor_type<D>
struct response_type<deduce_response, D, T> {
  using type = unwrap_promise_t<handler_result_t<D, T>>;
};

}  // namespace detail

template <class D, class T>
void send(const actor_ref<D>& to, T&& message) {
  detail::enqueue(to, std::forward<T>(message), message_priority::normal, nullptr, "spate::send");
}

template <class D, class T>
void send(message_priority priority, const actor_ref<D>& to, T&& message) {
  detail::enqueue(to, std::forward<T>(message), priority, nullptr, "spate::send");
}

/// Sends `message` after `delay`: a timer on the runtime's workers holds the message until
/// then. Returns the timer's id, for rt.timers().cancel(id) (true: the message was not sent).
template <class D, class T>
std::uint64_t delayed_send(const actor_ref<D>& to, std::chrono::nanoseconds delay, T&& message) {
  detail::checked_target(to, "spate::delayed_send");
  auto boxed = std::make_shared<std::decay_t<T>>(std::forward<T>(message));
  return to.get()->system().timers().schedule_after(delay, [to, boxed] {
    detail::enqueue(to, std::move(*boxed), message_priority::normal, nullptr,
                    "spate::delayed_send");
  });
}

/// Sends a request. For a typed receiver the response type is its handler's result type;
/// for a dynamic receiver, name it: request<int>(worker, job{}, 1s).
template <class R = detail::deduce_response, class D, class T>
auto request(const actor_ref<D>& to, T&& message, std::chrono::nanoseconds timeout) {
  using result = typename detail::response_type<R, D, T>::type;
  static_assert(!std::is_same_v<result, detail::deduce_response>,
                "spate::request to a dynamically typed actor: name the response type, "
                "request<R>(actor, message, timeout)");
  detail::checked_target(to, "spate::request");
  auto sink = std::make_shared<response_sink>(
      type_name<std::decay_t<T>>(), response_sink::describe_target(to.name(), to.id()), timeout);
  detail::enqueue(to, std::forward<T>(message), message_priority::normal, sink, "spate::request");
  return response<result>(std::move(sink), timeout, &to.get()->system());
}

// ---- response<R> (declared in response.hpp) ----

template <class R>
R response<R>::get() {
  if (system_->pool().is_worker_thread()) {
    throw std::logic_error(
        "spate::response::get() called on a worker thread: blocking there can deadlock the "
        "pool; use response::then(self, ...) inside actors");
  }
  std::any value = sink_->wait_until(deadline_);
  if constexpr (!std::is_void_v<R>) {
    if (auto* typed = std::any_cast<R>(&value)) return std::move(*typed);
    throw request_error(request_error_code::unexpected_message,
                        "response to '" + sink_->request_type() + "' has type " +
                            demangle(value.type().name()) + ", expected " + type_name<R>());
  }
}

template <class R>
template <class Self, class OnValue, class OnError>
void response<R>::then(Self& self, OnValue on_value, OnError on_error) {
  /// The timer holds the sink, so the time-out fires even if everybody else dropped it; the
  /// sink cancels (and so frees) the timer when the reply comes first.
  const std::string type = sink_->request_type();
  const auto timer = system_->timers().schedule_after(
      timeout_, [sink = sink_] { sink->fail(sink->timeout_error()); });
  sink_->set_timeout_timer(system_->timers(), timer);
  sink_->set_continuation(
      actor(&static_cast<abstract_actor&>(self)),
      [on_value = std::move(on_value), type](std::any& value) mutable {
        if constexpr (std::is_void_v<R>) {
          on_value();
        } else if (auto* typed = std::any_cast<R>(&value)) {
          on_value(std::move(*typed));
        } else {
          throw request_error(request_error_code::unexpected_message,
                              "response to '" + type + "' has type " +
                                  demangle(value.type().name()) + ", expected " + type_name<R>());
        }
      },
      std::move(on_error));
}

}  // namespace spate
