#include "spate/platform/cpu_affinity.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>

#include <cstring>
#include <thread>

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

}  // namespace spate
