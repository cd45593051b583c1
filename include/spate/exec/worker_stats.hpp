#pragma once
#include <chrono>
#include <cstdint>

namespace spate {

/// A snapshot of one worker's counters (read at run time with worker_pool::stats()).
struct worker_stats {
  std::chrono::nanoseconds busy{0};  ///< wall time since start minus idle
  std::chrono::nanoseconds idle{0};  ///< time spent searching for work or parked
  std::uint64_t tasks_run = 0;       ///< activations (resume calls)
  std::uint64_t steals = 0;          ///< tasks taken from another worker
  std::uint64_t parks = 0;           ///< times the worker parked on its event
  std::uint64_t wakeups = 0;         ///< parks ended by a notification (not a timeout)
};

}  // namespace spate
