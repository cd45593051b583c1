#include "spate/exec/worker_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

namespace {

spate::scheduler_config two_workers() {
  auto c = spate::scheduler_config::default_preset();
  c.threads = 2;
  return c;
}

// Runs `steps` activations of one step each, re-queueing itself via resume_later.
struct stepping_task final : spate::task {
  int steps_left = 0;
  std::atomic<int>* finished = nullptr;
  spate::resume_result resume(std::size_t) override {
    if (--steps_left > 0) return spate::resume_result::resume_later;
    finished->fetch_add(1);
    return spate::resume_result::done;
  }
};

// Schedules `children` more tasks from inside the pool, then finishes.
struct spawning_task final : spate::task {
  spate::worker_pool* pool = nullptr;
  std::vector<spate::task*> children;
  spate::resume_result resume(std::size_t) override {
    for (auto* c : children) pool->schedule(c);
    return spate::resume_result::done;
  }
};

// Busy for a while and records the thread it ran on.
struct recording_task final : spate::task {
  std::mutex* mutex = nullptr;
  std::set<std::thread::id>* threads = nullptr;
  std::atomic<int>* finished = nullptr;
  spate::resume_result resume(std::size_t) override {
    const auto until = std::chrono::steady_clock::now() + 2ms;
    while (std::chrono::steady_clock::now() < until) {
    }
    {
      std::lock_guard lock(*mutex);
      threads->insert(std::this_thread::get_id());
    }
    finished->fetch_add(1);
    return spate::resume_result::done;
  }
};

template <class Predicate>
bool wait_until(Predicate p, std::chrono::seconds limit = 30s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!p()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

}  // namespace

TEST(worker_pool, runs_every_externally_scheduled_task_to_completion) {
  spate::worker_pool pool(two_workers());
  std::atomic<int> finished{0};
  constexpr int n = 20'000;
  std::vector<stepping_task> tasks(n);
  for (auto& t : tasks) {
    t.steps_left = 5;
    t.finished = &finished;
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < 2; ++p) {
    producers.emplace_back([&, p] {
      for (int i = p; i < n; i += 2) pool.schedule(&tasks[i]);
    });
  }
  for (auto& p : producers) p.join();
  ASSERT_TRUE(wait_until([&] { return finished.load() == n; }));
  std::uint64_t run = 0;
  for (const auto& s : pool.stats()) run += s.tasks_run;
  EXPECT_EQ(run, std::uint64_t(n) * 5);
}

TEST(worker_pool, parked_workers_wake_on_enqueue_after_long_idle) {
  auto config = two_workers();
  config.park_timeout = 5s;  // the timeout must not be what wakes them
  spate::worker_pool pool(config);
  std::this_thread::sleep_for(100ms);  // both workers park
  std::uint64_t parks = 0;
  for (const auto& s : pool.stats()) parks += s.parks;
  std::atomic<int> finished{0};
  stepping_task t;
  t.steps_left = 1;
  t.finished = &finished;
  const auto start = std::chrono::steady_clock::now();
  pool.schedule(&t);
  ASSERT_TRUE(wait_until([&] { return finished.load() == 1; }));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  std::uint64_t wakeups = 0;
  for (const auto& s : pool.stats()) wakeups += s.wakeups;
  EXPECT_GE(wakeups, 1u);
  (void)parks;
}

TEST(worker_pool, parked_worker_is_woken_to_steal_work_created_inside_the_pool) {
  auto config = two_workers();
  config.park_timeout = 10s;  // only a notification can bring the second worker in time
  spate::worker_pool pool(config);
  std::this_thread::sleep_for(50ms);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> finished{0};
  std::vector<recording_task> children(200);
  spawning_task root;
  root.pool = &pool;
  for (auto& c : children) {
    c.mutex = &mutex;
    c.threads = &threads;
    c.finished = &finished;
    root.children.push_back(&c);
  }
  pool.schedule(&root);
  ASSERT_TRUE(wait_until([&] { return finished.load() == 200; }));
  std::lock_guard lock(mutex);
  EXPECT_EQ(threads.size(), 2u) << "the second worker never stole";
  std::uint64_t steals = 0;
  for (const auto& s : pool.stats()) steals += s.steals;
  EXPECT_GT(steals, 0u);
}

TEST(worker_pool, spin_preset_runs_tasks_and_never_parks) {
  auto config = spate::scheduler_config::spin();
  config.threads = 2;
  spate::worker_pool pool(config);
  std::atomic<int> finished{0};
  std::vector<stepping_task> tasks(1000);
  for (auto& t : tasks) {
    t.steps_left = 3;
    t.finished = &finished;
    pool.schedule(&t);
  }
  ASSERT_TRUE(wait_until([&] { return finished.load() == 1000; }));
  for (const auto& s : pool.stats()) EXPECT_EQ(s.parks, 0u);
}

TEST(worker_pool, oversubscribed_pool_completes) {
  auto config = spate::scheduler_config::default_preset();
  config.threads = 8;  // four times the cores of the CI machine
  spate::worker_pool pool(config);
  std::atomic<int> finished{0};
  std::vector<stepping_task> tasks(5000);
  for (auto& t : tasks) {
    t.steps_left = 4;
    t.finished = &finished;
    pool.schedule(&t);
  }
  ASSERT_TRUE(wait_until([&] { return finished.load() == 5000; }));
}

TEST(worker_pool, stops_cleanly_many_times) {
  for (int i = 0; i < 50; ++i) {
    spate::worker_pool pool(two_workers());
    std::atomic<int> finished{0};
    stepping_task t;
    t.steps_left = 2;
    t.finished = &finished;
    pool.schedule(&t);
    ASSERT_TRUE(wait_until([&] { return finished.load() == 1; }));
  }
}

TEST(worker_pool, work_from_outside_is_not_starved_by_a_task_that_never_idles) {
  // One worker; a task that always has more to do (resume_later) keeps its local queue
  // non-empty. Tasks scheduled from outside land in the inbox and must still run.
  // The tasks are declared before the pool: they outlive every resume its worker makes.
  std::atomic<bool> stop{false};
  struct endless final : spate::task {
    std::atomic<bool>* stop = nullptr;
    spate::resume_result resume(std::size_t) override {
      return stop->load() ? spate::resume_result::done : spate::resume_result::resume_later;
    }
  } busy;
  busy.stop = &stop;
  std::atomic<int> finished{0};
  std::vector<stepping_task> outside(10);
  auto config = spate::scheduler_config::default_preset();
  config.threads = 1;
  spate::worker_pool pool(config);
  pool.schedule(&busy);
  std::this_thread::sleep_for(5ms);  // `busy` is now cycling through the local queue
  for (auto& t : outside) {
    t.steps_left = 1;
    t.finished = &finished;
    pool.schedule(&t);
  }
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (finished.load() != 10 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(finished.load(), 10);
  stop = true;
}
