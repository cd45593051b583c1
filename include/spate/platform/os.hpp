#pragma once
#include <chrono>
#include <cstddef>

namespace spate {

/// Number of CPUs this process may run on (respects cgroup / taskset limits).
std::size_t available_cpus() noexcept;

/// Pins the calling thread to one CPU. Returns false (and leaves the thread unpinned) when
/// the CPU does not exist or the call is not permitted.
bool pin_current_thread_to_cpu(std::size_t cpu) noexcept;

/// Names the calling thread for debuggers and `top -H` (truncated to 15 characters).
void name_current_thread(const char* name) noexcept;

/// Sets how much later than asked the kernel may end the calling thread's timed sleeps
/// (Linux timer slack, 50 us by default). Returns false when not supported.
bool set_current_thread_timer_slack(std::chrono::nanoseconds slack) noexcept;

}  // namespace spate
