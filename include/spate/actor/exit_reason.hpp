#pragma once
// Why an actor stopped, and the errors a request can end with.
#include <stdexcept>
#include <string>
#include "spate/platform/export.hpp"

namespace spate {

enum class exit_code {
  normal,               ///< quit() without a reason, or its work was done
  user_shutdown,        ///< actor_system::shutdown() stopped it
  unhandled_exception,  ///< a handler threw; the message says what
  killed,               ///< kill() from outside, or an exit propagated along a link
};

/// Why an actor terminated.
struct exit_reason {
  /// The kind of ending.
  exit_code code = exit_code::normal;
  /// Details (an exception's text).
  std::string message;

  /// True for a normal ending.
  bool is_normal() const noexcept { return code == exit_code::normal; }
  /// Same code and message.
  friend bool operator==(const exit_reason&, const exit_reason&) = default;
};

SPATE_API std::string to_string(exit_code code);
SPATE_API std::string to_string(const exit_reason& reason);

enum class request_error_code {
  timeout,             ///< no response within the request's time-out
  dead_actor,          ///< the receiver had terminated, or terminated before replying
  unexpected_message,  ///< the receiver has no handler for the request's type
  handler_failed,      ///< the receiver's handler threw
  broken_promise,      ///< the receiver took the reply over (response_promise) and dropped it
};

/// The enumerator's name: "timeout", "dead_actor", "unexpected_message", "handler_failed",
/// "broken_promise" (for logs and test output; request_error::what() has the details).
SPATE_API std::string to_string(request_error_code code);

/// Why a request failed (timeout, dead actor, unexpected message, handler failure).
class SPATE_API request_error : public std::runtime_error {
 public:
  /// An error of kind `code`, explained by `what`.
  request_error(request_error_code code, const std::string& what)
      : std::runtime_error(what), code_(code) {}
  /// The kind of failure.
  request_error_code code() const noexcept { return code_; }

 private:
  request_error_code code_;
};

}  // namespace spate
