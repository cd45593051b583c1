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
