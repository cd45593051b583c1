#include "spate/log/log.hpp"

#include <cstdio>
#include <memory>
#include <mutex>

namespace spate::log {

namespace detail {
std::atomic<std::uint8_t> minimum{static_cast<std::uint8_t>(level::info)};
}  // namespace detail

namespace {

// The sink in force; null: the default. Writers copy the pointer under the mutex and call
// the sink outside it, so a slow sink does not hold up set_sink() or other writers, and a
// sink replaced meanwhile lives until its last call returns. A sink that logs (directly or
// through spate code it calls) would call itself without end: such a nested record goes to
// stderr instead (in_sink below).
struct sink_slot {
  std::mutex mutex;
  std::shared_ptr<const sink> current;
};

// Never destroyed: objects destroyed at exit (a runtime in a static) may still log.
sink_slot& slot() {
  static sink_slot* s = new sink_slot;
  return *s;
}

// True on a thread while it runs the user's sink.
thread_local bool in_sink = false;

}  // namespace

const char* to_string(level severity) noexcept {
  switch (severity) {
    case level::trace:
      return "trace";
    case level::debug:
      return "debug";
    case level::info:
      return "info";
    case level::warn:
      return "warn";
    case level::error:
      return "error";
    case level::off:
      return "off";
  }
  return "?";
}

sink set_sink(sink s) {
  std::shared_ptr<const sink> next;
  if (s) next = std::make_shared<const sink>(std::move(s));
  std::shared_ptr<const sink> previous;
  {
    std::lock_guard lock(slot().mutex);
    previous = std::exchange(slot().current, std::move(next));
  }
  return previous ? *previous : sink{};
}

void set_min_level(level minimum) noexcept {
  detail::minimum.store(static_cast<std::uint8_t>(minimum), std::memory_order_relaxed);
}

level min_level() noexcept {
  return static_cast<level>(detail::minimum.load(std::memory_order_relaxed));
}

void write(level severity, std::string_view component, std::string_view text) noexcept {
  if (!enabled(severity)) return;
  const record r{severity, component, text};
  try {
    std::shared_ptr<const sink> s;
    {
      std::lock_guard lock(slot().mutex);
      s = slot().current;
    }
    if (s && !in_sink) {
      struct sink_call {
        sink_call() noexcept { in_sink = true; }
        ~sink_call() { in_sink = false; }
      } guard;
      (*s)(r);
      return;
    }
  } catch (...) {
    return;  // the sink failed: the record is lost, the reporting code goes on
  }
  write_to_stderr(r);
}

std::string format(const record& r) {
  std::string line = "spate [";
  line += to_string(r.severity);
  line += "] ";
  line += r.component;
  line += ": ";
  line += r.text;
  return line;
}

void write_to_stderr(const record& r) noexcept {
  try {
    std::string line = format(r);
    line += '\n';
    // One call: stdio locks the stream for it, so concurrent records do not interleave.
    std::fwrite(line.data(), 1, line.size(), stderr);
  } catch (...) {  // no memory for the line: the bare text, still one record per line
    std::fprintf(stderr, "spate: %.*s\n", static_cast<int>(r.text.size()), r.text.data());
  }
}

}  // namespace spate::log
