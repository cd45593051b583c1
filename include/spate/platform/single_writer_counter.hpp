#pragma once
// Statistics counters that one thread writes and any thread may read.
#include <atomic>
#include <cstdint>

namespace spate {

/// Adds `by` to a counter that only the calling thread (or, for a task, the one activation
/// running at a time) ever writes. A relaxed load and store, not a fetch_add: there is no
/// other writer to race with, and readers only need a value that is not torn.
inline void add_single_writer(std::atomic<std::uint64_t>& counter, std::uint64_t by = 1) noexcept {
  counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

}  // namespace spate
