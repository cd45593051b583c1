// The portable implementation of include/spate/platform/os.hpp: standard C++ only, so that a
// port to another system starts from a working build (-DSPATE_PLATFORM=portable).
#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "spate/platform/os.hpp"

namespace spate {

std::size_t available_cpus() noexcept {
  const auto hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

bool pin_current_thread_to_cpu(std::size_t) noexcept {
  return false;
}

void name_current_thread(const char*) noexcept {}

bool set_current_thread_timer_slack(std::chrono::nanoseconds) noexcept {
  return false;
}

namespace platform {
namespace {

// std::atomic::wait has no time-out, so timed waits block on a condition variable instead:
// one of a fixed set of buckets, picked by the word's address (a waiter and its waker meet
// in the same bucket). Why no wake is lost: the waiter tests the word under the bucket's
// mutex before it blocks, and the waker changes the word before it takes that mutex to
// notify; so either the waiter's test sees the new value, or the waiter is already blocked
// (the mutex released inside wait_for) when the notify comes.
struct bucket {
  std::mutex mutex;
  std::condition_variable changed;
};
constexpr std::size_t bucket_count = 64;  // bucket_of takes the top 6 bits of a hash

// Never destroyed: a runtime that is itself a static object may still park and wake its
// workers after this file's statics would have been destroyed at exit.
bucket& bucket_of(const std::atomic<std::uint32_t>& word) noexcept {
  static auto* const buckets = new std::array<bucket, bucket_count>;
  // Workers' words sit at multiples of a cache line, so the address is mixed (Fibonacci
  // hashing) before it picks a bucket; its low bits alone would use a few buckets only.
  const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&word));
  return (*buckets)[(address * 0x9E3779B97F4A7C15ull) >> 58];  // the top 6 bits: 0..63
}

// condition_variable::wait_for adds the timeout to now(), which overflows for the huge
// timeouts parking_event passes for "until notified" (its saturating deadline); a wait
// longer than this returns early instead, which callers allow (they re-check the word).
constexpr std::chrono::nanoseconds longest_timed_wait = std::chrono::hours(1);

}  // namespace

void wait_on_address(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                     std::chrono::nanoseconds timeout) noexcept {
  if (timeout == std::chrono::nanoseconds::max()) {
    word.wait(expected, std::memory_order_relaxed);
    return;
  }
  if (timeout <= std::chrono::nanoseconds::zero()) return;
  bucket& b = bucket_of(word);
  std::unique_lock lock(b.mutex);
  b.changed.wait_for(lock, std::min(timeout, longest_timed_wait),
                     [&] { return word.load(std::memory_order_relaxed) != expected; });
}

void wake_address_waiter(std::atomic<std::uint32_t>& word) noexcept {
  word.notify_all();  // an untimed waiter
  bucket& b = bucket_of(word);
  { std::lock_guard lock(b.mutex); }  // orders the change before a timed waiter's test
  b.changed.notify_all();
}

}  // namespace platform
}  // namespace spate
