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

std::string to_string(const exit_reason& reason) {
  return reason.message.empty() ? to_string(reason.code)
                                : to_string(reason.code) + ": " + reason.message;
}

}  // namespace spate
