#pragma once
#include <gtest/gtest.h>
#include <spate/exec/runtime.hpp>
#include <spate/flow.hpp>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace flow_test {

namespace flow = spate::flow;

inline spate::scheduler_config workers(std::size_t n) {
  auto c = spate::scheduler_config::default_preset();
  c.threads = n;
  return c;
}

// A runtime configuration with exactly this scheduler: the SPATE_* environment does not
// override what the test pinned.
inline spate::runtime_config runtime_with(spate::scheduler_config scheduler) {
  spate::runtime_config c;
  c.scheduler = scheduler;
  c.read_environment = false;
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

// A source that sends 0, 1, ..., count-1 with send_next_if(item, max_queue_length): on a
// refusal the item must still be its own, and it counts the refusal, yields and tries the
// same item again. It raises `finished` after the last item.
struct polite_source : flow::source<int> {
  polite_source(int count, std::size_t max_queue_length, std::atomic<int>* refusals,
                std::atomic<bool>* finished)
      : count(count), max_queue_length(max_queue_length), refusals(refusals), finished(finished) {}
  bool produce() {
    int item = next;
    if (send_next_if(std::move(item), max_queue_length)) {
      ++next;
    } else {
      EXPECT_EQ(item, next);  // still ours
      refusals->fetch_add(1);
      std::this_thread::yield();
    }
    if (next < count) return true;
    finished->store(true);
    return false;
  }
  int count;
  std::size_t max_queue_length;
  std::atomic<int>* refusals;
  std::atomic<bool>* finished;
  int next = 0;
};

}  // namespace flow_test
