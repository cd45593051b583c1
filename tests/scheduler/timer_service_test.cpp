#include "spate/scheduler/timer_service.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

TEST(timer_service, fires_in_deadline_order_and_honours_cancel) {
  spate::timer_service timers;
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

TEST(timer_service, destruction_with_pending_timers_does_not_run_them) {
  std::atomic<int> ran{0};
  {
    spate::timer_service timers;
    timers.schedule_after(10s, [&] { ran = 1; });
  }
  EXPECT_EQ(ran.load(), 0);
}

TEST(timer_service, cancel_of_a_fired_timer_returns_false_and_keeps_nothing) {
  spate::timer_service timers;
  std::atomic<int> ran{0};
  auto id = timers.schedule_after(1ms, [&] { ran = 1; });
  while (ran.load() == 0) std::this_thread::sleep_for(1ms);
  EXPECT_FALSE(timers.cancel(id));  // it fired: cancelling it changes nothing
  EXPECT_EQ(timers.pending(), 0u);
  EXPECT_FALSE(timers.cancel(12345));  // never existed
}

TEST(timer_service, a_maximal_delay_means_never_not_at_once) {
  spate::timer_service timers;
  std::atomic<int> ran{0};
  auto id = timers.schedule_after(std::chrono::nanoseconds::max(), [&] { ran = 1; });
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(ran.load(), 0);
  EXPECT_EQ(timers.pending(), 1u);
  EXPECT_TRUE(timers.cancel(id));
}

TEST(timer_service, many_schedules_while_waiting_keep_the_order) {
  // The timer thread waits on the earliest deadline while other threads push (and so grow
  // the heap): under AddressSanitizer a wait on a reference into the heap was a use after
  // free.
  spate::timer_service timers;
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
