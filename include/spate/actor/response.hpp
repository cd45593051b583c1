#pragma once
// Request / response. A request carries a response_sink; the receiver's handler result
// completes it. The requester either blocks on response<R>::get() (outside the pool) or
// attaches continuations with then(self, ...), which run inside the requesting actor.
// The first of {value, error, time-out} wins; later ones are ignored.
#include <any>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "spate/actor/actor_ref.hpp"
#include "spate/actor/exit_reason.hpp"
#include "spate/exec/timer_service.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// Where a request's answer goes: exactly one value or error, once.
class SPATE_API response_sink {
 public:
  /// Called with the answer.
  using value_handler = std::function<void(std::any&)>;
  /// Called with the failure.
  using error_handler = std::function<void(const request_error&)>;

  /// For a request of message type `request_type` (named in errors).
  explicit response_sink(std::string request_type) : request_type_(std::move(request_type)) {}
  /// For a request of message type `request_type` to `target` (an actor, as
  /// describe_target() names it) that times out after `timeout`: a time-out error names
  /// all three, "request 'ping' to actor 'pinger' (id 3) timed out after 50 ms".
  response_sink(std::string request_type, std::string target, std::chrono::nanoseconds timeout)
      : request_type_(std::move(request_type)), target_(std::move(target)), timeout_(timeout) {}
  /// A request always ends: a sink dropped unanswered (its message lost with a mailbox)
  /// fails its continuation with dead_actor.
  ~response_sink();
  response_sink(const response_sink&) = delete;
  response_sink& operator=(const response_sink&) = delete;

  /// The request's message type.
  const std::string& request_type() const noexcept { return request_type_; }
  /// The receiver, as named in errors ("actor 'pinger' (id 3)"); empty when not given.
  const std::string& target() const noexcept { return target_; }
  /// The request_error_code::timeout error: the request type, the target and the time-out.
  request_error timeout_error() const;
  /// "actor 'NAME' (id ID)", or "actor ID" for an actor without a name.
  static std::string describe_target(const std::string& name, std::uint64_t id);
  /// Both return whether this call completed the request.
  bool deliver(std::any value);
  /// Fails the request unless it was answered; true when this call ended it.
  bool fail(request_error error);
  /// Blocks until completion or `deadline`; returns the value or throws request_error.
  std::any wait_until(std::chrono::steady_clock::time_point deadline);
  /// Runs the handlers in `requester`'s context once the request completes.
  void set_continuation(actor requester, value_handler on_value, error_handler on_error);
  /// The timer that fails this request on time-out; cancelled (and freed) on completion.
  void set_timeout_timer(timer_service& timers, std::uint64_t id);

 private:
  void post_continuation_locked();
  /// Called after completing, outside the lock.
  void cancel_timeout_timer();

  const std::string request_type_;
  const std::string target_;
  const std::chrono::nanoseconds timeout_{0};
  std::mutex mutex_;
  std::condition_variable completed_cv_;
  bool completed_ = false;
  std::optional<std::any> value_;
  /// The error as code and text, not as an exception object: std::runtime_error shares its
  /// message through a reference count that must not cross threads (and ThreadSanitizer
  /// cannot see inside libstdc++ to prove it safe).
  struct error_record {
    request_error_code code;
    std::string text;
  };
  std::optional<error_record> error_;
  actor requester_;
  value_handler on_value_;
  error_handler on_error_;
  timer_service* timers_ = nullptr;
  std::uint64_t timeout_timer_ = 0;
};

class actor_system;

/// A request's pending answer: get() blocks, then() continues in an actor.
template <class R>
class response {
 public:
  /// The answer that `sink` will receive within `timeout`.
  response(std::shared_ptr<response_sink> sink, std::chrono::nanoseconds timeout,
           actor_system* system)
      : sink_(std::move(sink)),
        deadline_(saturating_deadline(timeout)),  // max(): no time-out
        timeout_(timeout),
        system_(system) {}

  /// Blocks the calling thread until the response arrives; throws request_error on time-out,
  /// dead receiver, unexpected message or a failing handler. Calling it on a worker thread
  /// of the pool throws std::logic_error (it could block the worker the receiver needs):
  /// use then() inside actors.
  R get();

  /// Inside an actor: `on_value(R)` or `on_error(const request_error&)` runs later in
  /// `self`'s context.
  template <class Self, class OnValue, class OnError>
  void then(Self& self, OnValue on_value, OnError on_error);

 private:
  std::shared_ptr<response_sink> sink_;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::nanoseconds timeout_;
  actor_system* system_;
};

}  // namespace spate
