#pragma once
#include <chrono>
#include <thread>

#include "spate/actor.hpp"

namespace spate_test {

using namespace std::chrono_literals;

inline spate::actor_system_config quiet_config(std::size_t threads = 2) {
  spate::actor_system_config c;
  c.scheduler.threads = threads;
  c.error_reporter = [](const std::string&) {};  // tests assert on counters instead
  return c;
}

template <class Predicate>
bool eventually(Predicate p, std::chrono::seconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!p()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace spate_test
