#pragma once
// Progress of a job of known size, printed every period from a thread of its own:
//
//   spate word count: 42.0% (4.20 M of 10.0 M lines), 1.31 M lines/s, about 4.4 s left
//
// The count is pulled (a function the reporter calls), so the job pays nothing for it; for
// a flow graph, items_through() counts what one of its stages has handled.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include "spate/platform/export.hpp"

namespace spate::flow {
class graph;
}

namespace spate::observe {

/// What a progress_reporter prints, and how often.
struct progress_options {
  std::string title = "progress";         ///< the line's first words
  std::string unit = "items";             ///< what is counted ("lines")
  std::uint64_t total = 0;                ///< 0: unknown (no percentage, no time left)
  std::chrono::milliseconds period{500};  ///< between lines
  /// Where lines go; when empty, to the log (spate/log/log.hpp) at level info, component
  /// "progress": stderr unless a log sink is set.
  std::function<void(const std::string&)> print;
};

/// Prints a job's progress every period from a thread of its own (RAII).
class SPATE_API progress_reporter {
 public:
  /// `done` is called on the reporter's thread and must be safe there (read atomics).
  progress_reporter(std::function<std::uint64_t()> done, progress_options options);
  progress_reporter(const progress_reporter&) = delete;
  progress_reporter& operator=(const progress_reporter&) = delete;
  /// Stops reporting.
  ~progress_reporter() { stop(); }

  /// Stops reporting (no final line); idempotent. Any thread but the reporter's own.
  void stop();
  /// Seconds since construction.
  double seconds() const;
  /// One report line (also for tests).
  static std::string line(const progress_options& options, std::uint64_t done, double seconds);

 private:
  void run();

  std::function<std::uint64_t()> done_;
  progress_options options_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  std::thread thread_;
};

/// Items the replicas of the stage named `stage` have consumed (a source: sent), read from
/// the graph's counters; any thread, also while the graph runs. Counters move once per
/// activation, so the count trails the truth by at most one batch per replica.
SPATE_API std::function<std::uint64_t()> items_through(const flow::graph& graph, std::string stage);

}  // namespace spate::observe
