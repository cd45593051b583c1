#pragma once
// Every operating-system call spate makes outside the io and kafka layers' sockets, in one
// place. Two implementations, chosen when spate is configured (CMake's SPATE_PLATFORM):
//
//   call                      linux (src/platform/os_linux.cpp)   portable (os_portable.cpp)
//   wait_on_address           futex(FUTEX_WAIT_PRIVATE)           std::atomic::wait; timed waits
//                                                                 on a condition variable
//   wake_address_waiter       futex(FUTEX_WAKE_PRIVATE)           notify_all on both
//   available_cpus            sched_getaffinity (cgroups,         std::thread::hardware_concurrency
//                             taskset)
//   pin_current_thread_to_cpu pthread_setaffinity_np              no pinning: returns false
//   name_current_thread       pthread_setname_np                  no-op
//   set_current_thread_       prctl(PR_SET_TIMERSLACK)            returns false
//     timer_slack
//   io::detail::wake_fd       eventfd                             a pipe
//
// The portable build compiles and passes the tests on Linux too (CI builds it), so a port to
// another POSIX system starts from a working build: `-DSPATE_PLATFORM=portable`.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "spate/platform/export.hpp"

namespace spate {

/// Number of CPUs this process may run on (respects cgroup / taskset limits on Linux).
SPATE_API std::size_t available_cpus() noexcept;

/// Pins the calling thread to one CPU. Returns false (and leaves the thread unpinned) when
/// the CPU does not exist, the call is not permitted or the platform has no pinning.
SPATE_API bool pin_current_thread_to_cpu(std::size_t cpu) noexcept;

/// Names the calling thread for debuggers and `top -H` (truncated to 15 characters; a no-op
/// on the portable platform).
SPATE_API void name_current_thread(const char* name) noexcept;

/// Sets how much later than asked the kernel may end the calling thread's timed sleeps
/// (Linux timer slack, 50 us by default). Returns false when not supported.
SPATE_API bool set_current_thread_timer_slack(std::chrono::nanoseconds slack) noexcept;

namespace platform {

/// Blocks the calling thread while `word` holds `expected`, until wake_address_waiter(word)
/// or until `timeout` has passed (a negative or zero timeout returns at once; nanoseconds::max():
/// no time-out). May return spuriously: callers re-check `word`. A wake that comes after
/// `word` changed and before this call blocks is not lost (the call sees the new value).
SPATE_API void wait_on_address(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                               std::chrono::nanoseconds timeout) noexcept;
/// Wakes a thread blocked in wait_on_address(word, ...) (at least one; callers change `word`
/// first).
SPATE_API void wake_address_waiter(std::atomic<std::uint32_t>& word) noexcept;

}  // namespace platform
}  // namespace spate
