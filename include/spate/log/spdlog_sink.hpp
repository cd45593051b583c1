#pragma once
// spate's log through spdlog (Debian's libspdlog-dev). Header-only, and included by nothing in
// spate: include it only in a program that links spdlog (find_package(spdlog), target
// spdlog::spdlog).
//
//   auto logger = spdlog::stderr_color_mt("spate");
//   spate::log::log_to_spdlog(logger);   // every spate record from now on, at spdlog's level
//
// A record becomes one spdlog message "component: text" at the matching level (trace, debug,
// info, warn, error); spdlog's own pattern, sinks and asynchronous mode apply from there.
#include <spdlog/spdlog.h>

#include <memory>
#include <utility>

#include "spate/log/log.hpp"

namespace spate::log {

/// spdlog's level for a spate level (`off` to spdlog's off).
inline spdlog::level::level_enum to_spdlog(level severity) noexcept {
  switch (severity) {
    case level::trace:
      return spdlog::level::trace;
    case level::debug:
      return spdlog::level::debug;
    case level::info:
      return spdlog::level::info;
    case level::warn:
      return spdlog::level::warn;
    case level::error:
      return spdlog::level::err;
    case level::off:
      return spdlog::level::off;
  }
  return spdlog::level::err;
}

/// spate's level for an spdlog level (critical is spate's error, the highest it has).
inline level from_spdlog(spdlog::level::level_enum severity) noexcept {
  switch (severity) {
    case spdlog::level::trace:
      return level::trace;
    case spdlog::level::debug:
      return level::debug;
    case spdlog::level::info:
      return level::info;
    case spdlog::level::warn:
      return level::warn;
    case spdlog::level::err:
    case spdlog::level::critical:
      return level::error;
    default:
      return level::off;
  }
}

/// A sink that hands every record to `logger` as "component: text" (spdlog loggers are
/// thread-safe, as a sink must be; the `_mt` ones are).
inline sink spdlog_sink(std::shared_ptr<spdlog::logger> logger) {
  return [logger = std::move(logger)](const record& r) {
    logger->log(to_spdlog(r.severity), "{}: {}", r.component, r.text);
  };
}

/// Sends spate's records to `logger` (spdlog's default logger when null) and sets spate's
/// minimum level to the logger's, so records the logger would drop are not even built.
/// Returns the sink it replaced. Change both levels together afterwards (set_min_level).
inline sink log_to_spdlog(std::shared_ptr<spdlog::logger> logger = nullptr) {
  if (!logger) logger = spdlog::default_logger();
  set_min_level(from_spdlog(logger->level()));
  return set_sink(spdlog_sink(std::move(logger)));
}

}  // namespace spate::log
