#pragma once
#include <spate/flow.hpp>

#include <atomic>
#include <mutex>
#include <vector>

namespace flow_test {

namespace flow = spate::flow;

inline spate::scheduler_config workers(std::size_t n) {
  auto c = spate::scheduler_config::default_preset();
  c.threads = n;
  return c;
}

// A thread-safe collector for sinks.
template <class T>
struct collected {
  std::mutex mutex;
  std::vector<T> items;
  void add(T v) {
    std::lock_guard lock(mutex);
    items.push_back(std::move(v));
  }
};

}  // namespace flow_test
