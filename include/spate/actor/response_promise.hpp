#pragma once
// Replying later (CAF's response promise and delegate). A handler that cannot answer a
// request before it returns — because it first asks another actor — takes the request's
// reply over with make_response_promise<R>() and answers through the promise later, from a
// continuation in the same actor:
//
//   long on(get_total&) ...                        // answers at once
//   spate::response_promise<long> on(get_total&) {  // answers later
//     auto promise = make_response_promise<long>();
//     spate::request(store_, read_total{}, 1s).then(*this,
//         [promise](long total) mutable { promise.deliver(total); },
//         [promise](const spate::request_error& e) mutable { promise.fail(e); });
//     return promise;
//   }
//
// or hands the request to another actor, whose handler's result answers the requester:
// `promise.delegate(other, message)`. Copies share one reply; the first deliver, fail or
// delegate wins. When the last copy is dropped unanswered the requester gets
// request_error_code::broken_promise, so a forgotten promise never leaves a request hanging.
// A promise made for a plain send (no requester) accepts and ignores its answer.
#include <any>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "spate/actor/abstract_actor.hpp"
#include "spate/actor/response.hpp"
#include "spate/actor/send.hpp"

namespace spate {

/// An answer given later (see the top of this file).
template <class R>
class response_promise {
 public:
  /// The answer's type.
  using value_type = R;

  response_promise() = default;

  /// True while the promise still owes its requester an answer.
  bool pending() const noexcept { return state_ && state_->reply != nullptr; }

  /// Answers the request with `value` (no argument for response_promise<void>).
  template <class... V>
  requires(std::is_void_v<R> ? sizeof...(V) == 0
                             : (sizeof...(V) == 1 &&
                                (std::is_convertible_v<V, R> && ...))) void deliver(V&&... value) {
    if (auto reply = take()) {
      if constexpr (std::is_void_v<R>) {
        reply->deliver(std::any(unit_t{}));
      } else {
        reply->deliver(std::any(R(std::forward<V>(value)...)));
      }
    }
  }

  /// Fails the request with `error` (what the requester's error handler or get() sees).
  void fail(const request_error& error) {
    if (auto reply = take()) reply->fail(request_error(error.code(), error.what()));
  }

  /// Passes the request on: `to`'s handler for `message` answers the original requester.
  /// For a typed receiver the compiler checks that its handler's result is R.
  template <class D, class T>
  void delegate(const actor_ref<D>& to, T&& message) {
    if constexpr (typed_actor_type<D> && !std::is_void_v<R>) {
      using delegated = detail::unwrap_promise_t<handler_result_t<D, T>>;
      static_assert(std::is_same_v<std::decay_t<delegated>, R>,
                    "spate::response_promise::delegate: the receiver's handler result is not "
                    "the promised response type");
    }
    detail::enqueue(to, std::forward<T>(message), message_priority::normal, take(),
                    "spate::response_promise::delegate");
  }

 private:
  friend class abstract_actor;

  /// Shared by the copies; the last one to go fails a request nobody answered.
  struct state {
    explicit state(std::shared_ptr<response_sink> r) : reply(std::move(r)) {}
    ~state() {
      if (reply) {
        reply->fail(request_error(request_error_code::broken_promise,
                                  "the response promise for '" + reply->request_type() +
                                      "' was dropped without an answer"));
      }
    }
    std::shared_ptr<response_sink> reply;
  };

  explicit response_promise(std::shared_ptr<response_sink> reply)
      : state_(std::make_shared<state>(std::move(reply))) {}

  std::shared_ptr<response_sink> take() noexcept {
    return state_ ? std::exchange(state_->reply, nullptr) : nullptr;
  }

  std::shared_ptr<state> state_;
};

template <class R>
response_promise<R> abstract_actor::make_response_promise() {
  if (current_reply_ == nullptr) {
    throw std::logic_error("spate::make_response_promise called outside a message handler of '" +
                           name() + "'");
  }
  return response_promise<R>(std::exchange(*current_reply_, nullptr));
}

}  // namespace spate
