#pragma once
// A per-thread event a worker parks on (reducing-message-latency paper, Sect. III, Fig. 4):
// `wait_for` suspends the calling thread until `notify` or a timeout, whichever comes first.
// Built on platform::wait_on_address (a futex on Linux; spate/platform/os.hpp), so an
// unsignalled event costs no system call on `notify`'s fast path: notify only enters the
// kernel when the owner is actually asleep.
#include <atomic>
#include <chrono>
#include <cstdint>
#include "spate/platform/export.hpp"

namespace spate {

/// An address-wait-based event one thread parks on and any thread notifies (see the top of this
/// file).
class SPATE_API parking_event {
 public:
  /// Owner thread only (one waiter per event). Blocks until notified or until `timeout`
  /// passes (nanoseconds::max(): no time-out). Returns true when notified. A notify that
  /// happened before this call is not lost: it makes the call return at once. What the
  /// notifier wrote before notify() is visible after a notified return.
  bool wait_for(std::chrono::nanoseconds timeout) noexcept;
  /// Blocks until notified.
  void wait() noexcept;
  /// Any thread. Wakes the waiter (or pre-signals the next wait; signals do not add up).
  void notify() noexcept;
  /// Owner thread only. Clears a pending signal without waiting.
  void reset() noexcept { state_.store(unsignalled, std::memory_order_relaxed); }

 private:
  bool consume_signal() noexcept;

  static constexpr std::uint32_t unsignalled = 0;
  static constexpr std::uint32_t signalled = 1;
  static constexpr std::uint32_t sleeping = 2;
  std::atomic<std::uint32_t> state_{unsignalled};
};

}  // namespace spate
