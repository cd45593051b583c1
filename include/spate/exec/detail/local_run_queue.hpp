#pragma once
// A worker's local run queue: bounded, one producer (the owning worker), many consumers
// (the owner and thieves), FIFO. As in Tokio's multi-threaded runtime, the owner pushes at
// the tail and everybody takes from the head with a CAS, so the owner runs its tasks in
// arrival order (fair between actors) and a thief takes the oldest, coldest task.
//
// Why reading a slot before the CAS is safe: the owner overwrites slot `h % capacity` only
// once `tail - head` allows it, i.e. after `head` moved past `h`, in which case the
// thief's CAS on `head` fails and the value it read is discarded. Indices are 64-bit so
// they never wrap in practice (no ABA).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "spate/platform/cache_line.hpp"
#include "spate/exec/task.hpp"

namespace spate {

/// A worker's own task queue: the owner pushes and pops, others steal (see the top of this
/// file).
class local_run_queue {
 public:
  /// Holds up to `capacity` tasks (a power of two).
  explicit local_run_queue(std::size_t capacity)
      : mask_(round_up(capacity) - 1), slots_(new std::atomic<task*>[mask_ + 1]) {}

  /// Owner only. Returns false when full.
  bool push(task* t) noexcept {
    const auto tail = tail_->load(std::memory_order_relaxed);
    const auto head = head_->load(std::memory_order_acquire);
    if (tail - head > mask_) return false;
    slots_[tail & mask_].store(t, std::memory_order_relaxed);
    tail_->store(tail + 1, std::memory_order_release);
    return true;
  }

  /// Owner or thief. nullptr when empty.
  task* pop() noexcept {
    auto head = head_->load(std::memory_order_acquire);
    for (;;) {
      const auto tail = tail_->load(std::memory_order_acquire);
      if (head >= tail) return nullptr;
      task* t = slots_[head & mask_].load(std::memory_order_relaxed);
      if (head_->compare_exchange_weak(head, head + 1, std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
        return t;
      }
    }
  }

  /// Tasks queued (approximate while others steal).
  std::size_t size_approx() const noexcept {
    const auto head = head_->load(std::memory_order_acquire);
    const auto tail = tail_->load(std::memory_order_acquire);
    return tail > head ? static_cast<std::size_t>(tail - head) : 0;
  }

 private:
  static std::size_t round_up(std::size_t n) {
    std::size_t p = 2;
    while (p < n) p <<= 1;
    return p;
  }

  const std::uint64_t mask_;
  std::unique_ptr<std::atomic<task*>[]> slots_;
  cache_padded<std::atomic<std::uint64_t>> head_{0};
  cache_padded<std::atomic<std::uint64_t>> tail_{0};
};

}  // namespace spate
