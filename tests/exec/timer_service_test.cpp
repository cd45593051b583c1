#include "spate/exec/timer_service.hpp"

#include "spate/exec/worker_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

TEST(timer_service, fires_in_deadline_order_and_honours_cancel) {
  spate::worker_pool pool;
  spate::timer_service timers(pool);
  std::mutex m;
  std::vector<int> fired;
  auto record = [&](int v) {
    return [&, v] {
      std::lock_guard lock(m);
      fired.push_back(v);
    };
  };
  timers.schedule_after(60ms, record(3));
  timers.schedule_after(20ms, record(1));
  auto cancelled = timers.schedule_after(40ms, record(99));
  timers.schedule_after(40ms, record(2));
  EXPECT_TRUE(timers.cancel(cancelled));
  EXPECT_FALSE(timers.cancel(cancelled));
  std::this_thread::sleep_for(300ms);
  std::lock_guard lock(m);
  EXPECT_EQ(fired, (std::vector<int>{1, 2, 3}));
}

TEST(timer_service, a_stopped_pool_does_not_run_pending_timers) {
  std::atomic<int> ran{0};
  {
    spate::worker_pool pool;
    spate::timer_service timers(pool);
    timers.schedule_after(10s, [&] { ran = 1; });
  }
  EXPECT_EQ(ran.load(), 0);
}

TEST(timer_service, cancel_of_a_fired_timer_returns_false_and_keeps_nothing) {
  spate::worker_pool pool;
  spate::timer_service timers(pool);
  std::atomic<int> ran{0};
  auto id = timers.schedule_after(1ms, [&] { ran = 1; });
  while (ran.load() == 0) std::this_thread::sleep_for(1ms);
  EXPECT_FALSE(timers.cancel(id));  // it fired: cancelling it changes nothing
  EXPECT_EQ(timers.pending(), 0u);
  EXPECT_FALSE(timers.cancel(12345));  // never existed
}

TEST(timer_service, a_maximal_delay_means_never_not_at_once) {
  spate::worker_pool pool;
  spate::timer_service timers(pool);
  std::atomic<int> ran{0};
  auto id = timers.schedule_after(std::chrono::nanoseconds::max(), [&] { ran = 1; });
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(ran.load(), 0);
  EXPECT_EQ(timers.pending(), 1u);
  EXPECT_TRUE(timers.cancel(id));
}

TEST(timer_service, many_schedules_while_waiting_keep_the_order) {
  // The timer keeper sleeps until the earliest deadline while other threads add timers
  // (and so grow the heap); the timer thread this replaced waited on a reference into the
  // heap, a use after free under AddressSanitizer.
  spate::worker_pool pool;
  spate::timer_service timers(pool);
  std::atomic<int> ran{0};
  timers.schedule_after(30ms, [&] { ran.fetch_add(1); });
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i)
        timers.schedule_after(std::chrono::microseconds(i), [&] { ran.fetch_add(1); });
    });
  }
  for (auto& t : threads) t.join();
  while (ran.load() != 4001) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(timers.pending(), 0u);
}

TEST(timer_service, periodic_timers_fire_on_schedule_until_cancelled) {
  spate::worker_pool pool;
  spate::timer_service timers(pool);
  std::atomic<int> ticks{0};
  const auto id = timers.schedule_periodic(5ms, 5ms, [&] { ticks.fetch_add(1); });
  std::this_thread::sleep_for(120ms);
  EXPECT_TRUE(timers.cancel(id));
  // A tick that was running when cancel() returned may still finish; none may start after.
  std::this_thread::sleep_for(20ms);
  const int at_cancel = ticks.load();
  EXPECT_GE(at_cancel, 5);  // 24 due; a loaded machine may skip some, never burst
  EXPECT_LE(at_cancel, 26);
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(ticks.load(), at_cancel);  // no tick started after cancel returned
  EXPECT_FALSE(timers.cancel(id));
  EXPECT_THROW(timers.schedule_periodic(1ms, 0ms, [] {}), std::invalid_argument);
}

TEST(timer_service, cancel_frees_the_callback_at_once) {
  spate::worker_pool pool;
  spate::timer_service timers(pool);
  auto owned = std::make_shared<int>(7);
  const auto id = timers.schedule_after(10s, [owned] { (void)owned; });
  EXPECT_EQ(owned.use_count(), 2);
  EXPECT_TRUE(timers.cancel(id));
  EXPECT_EQ(owned.use_count(), 1);  // not kept until the deadline
}

TEST(timer_service, timers_fire_while_every_worker_is_busy) {
  std::atomic<bool> stop{false};
  struct spinning final : spate::task {  // re-queues itself until told to stop
    std::atomic<bool>* stop;
    spate::resume_result resume(std::size_t) override {
      return stop->load() ? spate::resume_result::done : spate::resume_result::resume_later;
    }
  } busy;  // declared before the pool: it outlives every resume the worker makes
  busy.stop = &stop;
  std::promise<void> fired;  // before the pool too: a late timer still finds it
  spate::scheduler_config config;
  config.threads = 1;
  spate::worker_pool pool(config);
  spate::timer_service timers(pool);
  pool.schedule(&busy);
  timers.schedule_after(5ms, [&] { fired.set_value(); });
  const bool fired_in_time = fired.get_future().wait_for(5s) == std::future_status::ready;
  stop = true;
  EXPECT_TRUE(fired_in_time);
}
