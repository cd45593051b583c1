#pragma once
// A per-thread event a worker parks on (reducing-message-latency paper, Sect. III, Fig. 4):
// `wait_for` suspends the calling thread until `notify` or a timeout, whichever comes first.
// Built on the Linux futex, so an unsignalled event costs no system call on `notify`'s
// fast path: notify only enters the kernel when the owner is actually asleep.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace spate {

class parking_event {
 public:
  // Blocks until notified or until `timeout` passes. Returns true when notified.
  // A notify that happened before this call is not lost: it makes the call return at once.
  bool wait_for(std::chrono::nanoseconds timeout) noexcept;
  // Blocks until notified.
  void wait() noexcept;
  // Wakes the waiter (or pre-signals the next wait).
  void notify() noexcept;
  // Clears a pending signal without waiting.
  void reset() noexcept { state_.store(unsignalled, std::memory_order_relaxed); }

 private:
  static constexpr std::uint32_t unsignalled = 0;
  static constexpr std::uint32_t signalled = 1;
  static constexpr std::uint32_t sleeping = 2;
  std::atomic<std::uint32_t> state_{unsignalled};
};

}  // namespace spate
