#include "spate/exec/detail/parking_event.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace std::chrono_literals;

TEST(parking_event, notify_before_wait_is_not_lost) {
  spate::parking_event e;
  e.notify();
  EXPECT_TRUE(e.wait_for(10s));  // returns at once
}

TEST(parking_event, times_out_without_notify) {
  spate::parking_event e;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(e.wait_for(20ms));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
}

TEST(parking_event, notify_from_another_thread_wakes_the_waiter) {
  spate::parking_event e;
  std::atomic<bool> woke{false};
  std::thread waiter([&] {
    EXPECT_TRUE(e.wait_for(30s));
    woke = true;
  });
  std::this_thread::sleep_for(20ms);
  e.notify();
  waiter.join();
  EXPECT_TRUE(woke);
}

TEST(parking_event, many_handoffs_lose_no_signal) {
  // Ping-pong between two events: a lost signal would hang (and hit the test timeout).
  spate::parking_event ping, pong;
  constexpr int rounds = 20000;
  std::thread other([&] {
    for (int i = 0; i < rounds; ++i) {
      ping.wait();
      pong.notify();
    }
  });
  for (int i = 0; i < rounds; ++i) {
    ping.notify();
    pong.wait();
  }
  other.join();
}
