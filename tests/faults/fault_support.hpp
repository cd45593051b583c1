#pragma once
// Helpers for fault-injection tests: a bound on how long a step may take, so that a
// regression that hangs fails (and ends the binary) instead of stalling CI until its
// time-out.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <utility>

namespace fault_test {

// Runs `step` on a thread of its own and waits at most `bound` for it. A step still running
// then is a hang: the test fails with `what` and the process exits at once (the hung thread
// cannot be cancelled, and the next test must not inherit it).
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
  done.get();  // rethrows the step's exception, if any
}

// Waits until `condition` holds, at most `bound`; true when it held.
template <class C>
bool eventually(std::chrono::milliseconds bound, C&& condition) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace fault_test
