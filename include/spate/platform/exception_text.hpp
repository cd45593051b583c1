#pragma once
// The text of a caught exception, for error reports: what() for a std::exception, a fixed
// description for anything else thrown.
#include <exception>
#include <string>

namespace spate {

/// `error`'s what(), or `otherwise` when it does not derive from std::exception.
inline std::string exception_text(const std::exception_ptr& error,
                                  const char* otherwise = "unknown exception") {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return otherwise;
  }
}

}  // namespace spate
