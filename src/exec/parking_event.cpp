#include "spate/exec/detail/parking_event.hpp"

#include "spate/platform/deadline.hpp"

#include "spate/platform/os.hpp"
#include "spate/platform/stress_point.hpp"

namespace spate {

// State machine: unsignalled -> sleeping (waiter about to enter the kernel) -> unsignalled
// (woke) and any -> signalled (notify). The waiter consumes the signal on return with an
// acquiring exchange, never with a plain store: a notify that lands between the waiter's
// look and its reset would otherwise be erased, and the waiter would not see (acquire) the
// work that notifier published before signalling.
bool parking_event::consume_signal() noexcept {
  return state_.exchange(unsignalled, std::memory_order_acquire) == signalled;
}

bool parking_event::wait_for(std::chrono::nanoseconds timeout) noexcept {
  if (timeout == std::chrono::nanoseconds::max()) {
    wait();
    return true;
  }
  std::uint32_t expected = unsignalled;
  if (!state_.compare_exchange_strong(expected, sleeping, std::memory_order_acquire)) {
    consume_signal();  // an early notify
    return true;
  }
  stress_point();
  const auto deadline = saturating_deadline(timeout);  // a huge timeout: until notified
  for (;;) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds::zero()) break;
    platform::wait_on_address(state_, sleeping,
                              std::chrono::duration_cast<std::chrono::nanoseconds>(left));
    if (state_.load(std::memory_order_relaxed) == signalled) return consume_signal();
  }
  // Timed out: withdraw from `sleeping`; a notify racing with the timeout still counts.
  expected = sleeping;
  if (state_.compare_exchange_strong(expected, unsignalled, std::memory_order_acquire)) {
    return false;
  }
  consume_signal();
  return true;
}

void parking_event::wait() noexcept {
  std::uint32_t expected = unsignalled;
  if (!state_.compare_exchange_strong(expected, sleeping, std::memory_order_acquire)) {
    consume_signal();
    return;
  }
  stress_point();
  while (state_.load(std::memory_order_relaxed) == sleeping) {
    platform::wait_on_address(state_, sleeping, std::chrono::nanoseconds::max());
  }
  consume_signal();
}

void parking_event::notify() noexcept {
  if (state_.exchange(signalled, std::memory_order_release) == sleeping)
    platform::wake_address_waiter(state_);
}

}  // namespace spate
