#pragma once
// A trace of a reactor program's run as Chrome trace-event JSON (open it in Perfetto,
// ui.perfetto.dev, or chrome://tracing): one complete event per reaction run, on the track
// of the worker that ran it, and an instant event per tag. Recording takes a lock per event:
// it is for looking at a program, not for measuring one.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "spate/platform/export.hpp"
#include "spate/reactor/tag.hpp"

namespace spate::reactor {

/// Reactions run and tags started, as Chrome trace events (environment_options::trace).
class SPATE_API trace_recorder {
 public:
  /// Records only when `enabled`.
  explicit trace_recorder(bool enabled) : enabled_(enabled) {}
  /// True when recording.
  bool enabled() const noexcept { return enabled_; }

  /// A reaction ran from `begin` to `end`.
  void reaction_ran(const std::string* name, time_point begin, time_point end);
  /// A tag started.
  void tag_started(const tag& t, time_point start_of_program);
  /// The trace as Chrome trace-event JSON.
  std::string to_json() const;
  /// Events recorded.
  std::size_t size() const;

 private:
  struct record {
    const std::string* name;  ///< null: a tag
    tag at;
    time_point begin, end;
    std::uint32_t thread;
  };
  bool enabled_;
  mutable std::mutex mutex_;
  std::vector<record> records_;
  time_point origin_ = clock::now();
};

}  // namespace spate::reactor
