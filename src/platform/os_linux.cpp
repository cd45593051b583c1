// The Linux implementation of include/spate/platform/os.hpp.
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <thread>

#include "spate/platform/os.hpp"

namespace spate {

std::size_t available_cpus() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return static_cast<std::size_t>(count);
  }
  const auto hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

bool pin_current_thread_to_cpu(std::size_t cpu) noexcept {
  if (cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

void name_current_thread(const char* name) noexcept {
  char truncated[16];
  std::strncpy(truncated, name, sizeof(truncated) - 1);
  truncated[sizeof(truncated) - 1] = '\0';
  pthread_setname_np(pthread_self(), truncated);
}

bool set_current_thread_timer_slack(std::chrono::nanoseconds slack) noexcept {
  const auto ns = slack.count() < 1 ? 1 : slack.count();  // 0 would restore the default
  return prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(ns), 0, 0, 0) == 0;
}

namespace platform {

// Private futexes are enough: a word never crosses a process boundary.
void wait_on_address(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                     std::chrono::nanoseconds timeout) noexcept {
  auto* address = reinterpret_cast<std::uint32_t*>(&word);
  if (timeout == std::chrono::nanoseconds::max()) {
    syscall(SYS_futex, address, FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
    return;
  }
  if (timeout <= std::chrono::nanoseconds::zero()) return;
  const auto ns = timeout.count();
  const timespec relative{static_cast<time_t>(ns / 1'000'000'000),
                          static_cast<long>(ns % 1'000'000'000)};
  syscall(SYS_futex, address, FUTEX_WAIT_PRIVATE, expected, &relative, nullptr, 0);
}

void wake_address_waiter(std::atomic<std::uint32_t>& word) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr,
          nullptr, 0);
}

}  // namespace platform
}  // namespace spate
