#pragma once
// The one way spate prints: every report the library makes (a stalled graph, late tuples in
// a window, progress lines, errors in actors and reactors, timer callbacks that throw, Kafka's
// commit failures and librdkafka's own log) is a record with a level and a component, handed
// to one process-wide sink. The default sink writes a line to stderr:
//
//   spate [warn] flow: for 30000 ms no item moved and no activation ended ...
//
// A program sends records elsewhere by setting its own sink (spate/log/spdlog_sink.hpp does
// it for spdlog), and chooses how much it sees with the minimum level:
//
//   spate::log::set_sink([](const spate::log::record& r) { my_logger(r.severity, r.text); });
//   spate::log::set_min_level(spate::log::level::debug);
//
// Why a layer of its own, below everything: flow, window, exec and kafka all report, and a
// layer may use only the layers under it; the interface depends on the standard library only
// (and platform/export.hpp's SPATE_API macro).
//
// Threads: set_sink() and set_min_level() may be called from any thread at any time, also
// while other threads log. A record below the minimum level costs one relaxed atomic load
// (enabled()). A record being written when set_sink() replaces the sink may still reach the
// old sink, which is kept alive until that call returns; records that start after set_sink()
// returned reach the new one. Sinks are called concurrently from several threads (workers,
// reader threads, librdkafka's threads): a sink must be thread-safe. A sink that throws loses
// that record, never the caller's work.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "spate/platform/export.hpp"

namespace spate::log {

/// How serious a record is, from the least to the most; `off` as a minimum level silences all.
enum class level : std::uint8_t {
  trace,  ///< step by step (nothing in spate logs at this level today)
  debug,  ///< for whoever debugs a job: dead letters, librdkafka's debug lines
  info,   ///< what an operator wants to see: progress lines
  warn,   ///< something is wrong with the job's data or pace: a stall, late tuples
  error,  ///< something failed: an actor's unhandled exception, a timer callback that threw
  off     ///< as a minimum level: no records at all
};

/// "trace", "debug", "info", "warn", "error" or "off".
SPATE_API const char* to_string(level severity) noexcept;

/// One report. Its views are valid only during the sink's call: copy what you keep.
struct record {
  level severity;              ///< how serious
  std::string_view component;  ///< who reports: "flow", "window", "exec", "runtime", "kafka", ...
  std::string_view text;       ///< the message; a report that lists things may span lines
};

/// Where records go. Called from any thread, concurrently: must be thread-safe.
using sink = std::function<void(const record&)>;

namespace detail {
/// The minimum level, read by enabled() (one relaxed load).
extern SPATE_API std::atomic<std::uint8_t> minimum;
}  // namespace detail

/// True when a record at `severity` would reach the sink: one relaxed atomic load, so a
/// report that is costly to build is built only when someone will read it.
inline bool enabled(level severity) noexcept {
  return static_cast<std::uint8_t>(severity) >= detail::minimum.load(std::memory_order_relaxed) &&
         severity != level::off;
}

/// Sends every later record to `s`; an empty function restores the default (stderr).
/// Returns the sink it replaces (empty: the default). Thread-safe (see the top of this file).
SPATE_API sink set_sink(sink s);
/// Records below `minimum` are dropped before they reach the sink; default: info.
SPATE_API void set_min_level(level minimum) noexcept;
/// The minimum level in force.
SPATE_API level min_level() noexcept;

/// Hands one record to the sink when its level is enabled; never throws (a failing sink
/// loses the record). Thread-safe.
SPATE_API void write(level severity, std::string_view component, std::string_view text) noexcept;

/// Sets a sink for its lifetime and then puts back the one it replaced (a test, a scope).
class scoped_sink {
 public:
  /// Sends records to `s` until destroyed.
  explicit scoped_sink(sink s) : previous_(set_sink(std::move(s))) {}
  ~scoped_sink() { set_sink(std::move(previous_)); }  ///< the previous sink again
  scoped_sink(const scoped_sink&) = delete;
  scoped_sink& operator=(const scoped_sink&) = delete;

 private:
  sink previous_;
};

/// `r` as the default sink prints it: "spate [warn] flow: text" (no newline).
SPATE_API std::string format(const record& r);
/// The default sink: format(r) and a newline to stderr, in one write, so lines of
/// concurrent records do not interleave. A user sink may call it to keep stderr output.
SPATE_API void write_to_stderr(const record& r) noexcept;

}  // namespace spate::log
