#include "spate/actor/exit_reason.hpp"

namespace spate {

std::string to_string(exit_code code) {
  switch (code) {
    case exit_code::normal:
      return "normal";
    case exit_code::user_shutdown:
      return "user_shutdown";
    case exit_code::unhandled_exception:
      return "unhandled_exception";
    case exit_code::killed:
      return "killed";
  }
  return "unknown";
}

std::string to_string(request_error_code code) {
  switch (code) {
    case request_error_code::timeout:
      return "timeout";
    case request_error_code::dead_actor:
      return "dead_actor";
    case request_error_code::unexpected_message:
      return "unexpected_message";
    case request_error_code::handler_failed:
      return "handler_failed";
    case request_error_code::broken_promise:
      return "broken_promise";
  }
  return "unknown";
}

std::string to_string(const exit_reason& reason) {
  return reason.message.empty() ? to_string(reason.code)
                                : to_string(reason.code) + ": " + reason.message;
}

}  // namespace spate
