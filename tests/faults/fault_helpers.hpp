#pragma once
// Shared by the fault tests: bounded waits and a look at the process's threads.
#include <dirent.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <future>
#include <set>
#include <string>
#include <thread>
#include <utility>

namespace spate::test {

// Polls `condition` until it holds or `limit` passes (the conditions tested here have no
// event to wait on: a thread's name, a syscall it is blocked in, a counter of another
// thread). The interval only sets how soon a true condition is seen.
inline bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// The ids of this process's threads whose name (comm) is `name`.
inline std::set<std::string> threads_named(const std::string& name) {
  std::set<std::string> found;
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return found;
  while (dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string line;
    std::getline(comm, line);
    if (line == name) found.insert(entry->d_name);
  }
  ::closedir(dir);
  return found;
}

// The syscall a thread is blocked in (/proc/self/task/<id>/syscall: its number), -1 when
// running or unreadable.
inline long blocked_in_syscall(const std::string& thread_id) {
  std::ifstream in("/proc/self/task/" + thread_id + "/syscall");
  std::string first;
  in >> first;
  if (first.empty() || first == "running") return -1;
  try {
    return std::stol(first);
  } catch (...) {
    return -1;
  }
}

// Runs `wait` (a graph's wait()) on another thread and waits for it at most `limit`.
// On a timeout `unblock` must make the wait return (so a regression fails, not hangs);
// returns how long the wait took, or nullopt on a timeout. Rethrows what wait() threw.
inline std::optional<std::chrono::milliseconds> bounded_wait(
    const std::function<void()>& wait, std::chrono::milliseconds limit,
    const std::function<void()>& unblock) {
  const auto start = std::chrono::steady_clock::now();
  auto done = std::async(std::launch::async, wait);
  if (done.wait_for(limit) != std::future_status::ready) {
    unblock();
    done.get();
    return std::nullopt;
  }
  done.get();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

// Runs `step` on a thread of its own and waits at most `bound` for it. A step still running
// then is a hang: the test fails with `what` and the process exits at once (the hung thread
// cannot be cancelled, and the next test must not inherit it). Rethrows the step's exception.
template <class F>
void within(std::chrono::milliseconds bound, const std::string& what, F&& step) {
  std::packaged_task<void()> task(std::forward<F>(step));
  auto done = task.get_future();
  std::thread runner(std::move(task));
  if (done.wait_for(bound) != std::future_status::ready) {
    std::fprintf(stderr, "HANG: %s did not end within %lld ms\n", what.c_str(),
                 static_cast<long long>(bound.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }
  runner.join();
  done.get();
}

}  // namespace spate::test
