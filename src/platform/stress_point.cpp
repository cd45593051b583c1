#include "spate/platform/stress_point.hpp"

#if defined(SPATE_STRESS_HOOKS)
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace spate {
namespace {

bool injection_from_environment() noexcept {
  const char* value = std::getenv("SPATE_STRESS_INJECT");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

std::atomic<bool> injection{injection_from_environment()};

std::uint64_t next_random() noexcept {
  thread_local std::uint64_t state =
      0x9E3779B97F4A7C15ull ^ std::hash<std::thread::id>{}(std::this_thread::get_id());
  state ^= state << 13;  // xorshift64
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

}  // namespace

void stress_point() noexcept {
  if (!injection.load(std::memory_order_relaxed)) return;
  const std::uint64_t r = next_random() % 64;
  if (r < 8) {
    std::this_thread::yield();
  } else if (r == 8) {
    std::this_thread::sleep_for(std::chrono::microseconds(1 + next_random() % 50));
  }
}

bool set_stress_injection(bool on) noexcept {
  return injection.exchange(on, std::memory_order_relaxed);
}

}  // namespace spate
#endif
