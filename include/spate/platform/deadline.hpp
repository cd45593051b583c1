#pragma once
// "now + timeout" on the steady clock without overflow: a timeout too large to add (as
// nanoseconds::max(), which callers use for "no time-out") gives time_point::max().
#include <chrono>

namespace spate {

inline std::chrono::steady_clock::time_point saturating_deadline(
    std::chrono::nanoseconds timeout,
    std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now()) noexcept {
  using clock = std::chrono::steady_clock;
  if (timeout >= clock::time_point::max() - now) return clock::time_point::max();
  return now + std::chrono::duration_cast<clock::duration>(timeout);
}

}  // namespace spate
