#include "spate/exec/detail/local_run_queue.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace {
struct counted_task final : spate::task {
  std::atomic<int> taken{0};
  spate::resume_result resume(std::size_t) override { return spate::resume_result::done; }
};
}  // namespace

TEST(local_run_queue, owner_fifo_and_bound) {
  spate::local_run_queue q(4);
  std::vector<counted_task> tasks(5);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(q.push(&tasks[i]));
  EXPECT_FALSE(q.push(&tasks[4]));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(q.pop(), &tasks[i]);
  EXPECT_EQ(q.pop(), nullptr);
}

TEST(local_run_queue, owner_and_thieves_take_each_task_exactly_once) {
  constexpr int n = 400'000;
  std::vector<counted_task> tasks(n);
  spate::local_run_queue q(256);
  std::atomic<bool> done{false};
  std::atomic<int> total{0};
  auto take = [&](spate::task* t) {
    static_cast<counted_task*>(t)->taken.fetch_add(1);
    total.fetch_add(1);
  };
  std::vector<std::thread> thieves;
  for (int i = 0; i < 2; ++i) {
    thieves.emplace_back([&] {
      while (!done.load()) {
        if (auto* t = q.pop()) take(t);
      }
    });
  }
  for (int i = 0; i < n; ++i) {
    while (!q.push(&tasks[i])) {
      if (auto* t = q.pop()) take(t);  // the owner pops when full
    }
  }
  while (auto* t = q.pop()) take(t);
  while (total.load() < n) std::this_thread::yield();
  done = true;
  for (auto& t : thieves) t.join();
  for (auto& t : tasks) ASSERT_EQ(t.taken.load(), 1);
}
