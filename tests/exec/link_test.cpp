// The link (exec/link.hpp): both ends as threads (waiters) and as a task (a unit on a worker
// pool), tiny rings so that nearly every push waits for room, and the options.
#include "spate/exec/link.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "../faults/fault_helpers.hpp"
#include "link_consumers.hpp"
#include "spate/exec/worker_pool.hpp"

namespace {

using namespace std::chrono_literals;
using spate_test::drain_on_this_thread;
using spate_test::link_draining_unit;
using spate_test::zero_to;

spate::scheduler_config two_workers() {
  auto c = spate::scheduler_config::default_preset();
  c.threads = 2;
  return c;
}

}  // namespace

TEST(link, options_set_the_capacity_and_the_resume_level) {
  spate::link<int> by_default;
  EXPECT_EQ(by_default.capacity(), 1024u);
  EXPECT_EQ(by_default.resume_level(), 512u);
  spate::link<int> rounded({.capacity = 100, .resume_level = 10});
  EXPECT_EQ(rounded.capacity(), 128u);
  EXPECT_EQ(rounded.resume_level(), 10u);
  EXPECT_EQ(rounded.options().capacity, 100u);
  // A resume level at or above the capacity would never wake anyone: half is used instead.
  spate::link<int> too_high({.capacity = 8, .resume_level = 8});
  EXPECT_EQ(too_high.resume_level(), 4u);
}

TEST(link, a_producer_is_released_only_when_it_asked_and_only_at_the_resume_level) {
  spate::waiter producer_waiter;
  spate::link<int> l({.capacity = 4, .resume_level = 1}, &producer_waiter);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(l.try_push(i));
  EXPECT_FALSE(l.try_push(4));
  EXPECT_FALSE(l.has_room_to_resume());
  l.request_room();
  EXPECT_TRUE(l.producer_waits());
  auto pop_one = [&] {
    ASSERT_NE(l.front(), nullptr);  // pop() takes what front() returned
    l.pop();
  };
  pop_one();
  pop_one();
  EXPECT_FALSE(l.has_room_to_resume());  // 2 queued, resume level 1
  pop_one();
  EXPECT_TRUE(l.has_room_to_resume());
  l.withdraw_room_request();
  EXPECT_FALSE(l.producer_waits());
}

TEST(link, thread_to_thread_keeps_order_and_loses_nothing_through_a_tiny_ring) {
  constexpr int n = 200'000;
  spate::waiter room, items;
  spate::link<int> l({.capacity = 4, .notify_batch = 3}, &room, &items);
  std::vector<int> got;
  std::thread consumer([&] { got = drain_on_this_thread(l, items); });
  for (int i = 0; i < n; ++i) ASSERT_TRUE(l.push_waiting_for_room(i, [] { return false; }));
  l.close();
  consumer.join();
  EXPECT_EQ(got, zero_to(n));
}

TEST(link, thread_to_task_keeps_order_and_loses_nothing_through_a_tiny_ring) {
  constexpr int n = 200'000;
  spate::worker_pool pool(two_workers());
  spate::waiter room;
  spate::link<int> l({.capacity = 2, .notify_batch = 5}, &room);
  link_draining_unit consumer(l);
  consumer.set_executor(&pool);
  l.set_consumer(&consumer);
  pool.schedule(&consumer);  // its first activation
  for (int i = 0; i < n; ++i) ASSERT_TRUE(l.push_waiting_for_room(i, [] { return false; }));
  l.close();
  ASSERT_TRUE(spate::test::eventually(
      [&] { return consumer.done.load(std::memory_order_acquire); }, 60s));
  EXPECT_EQ(consumer.got, zero_to(n));
}

TEST(link, a_stop_request_ends_a_producer_waiting_for_room) {
  spate::waiter room;
  spate::link<int> l({.capacity = 2}, &room);
  ASSERT_TRUE(l.push_waiting_for_room(1, [] { return false; }));
  ASSERT_TRUE(l.push_waiting_for_room(2, [] { return false; }));
  std::atomic<bool> stop{false};
  auto blocked = std::async(std::launch::async, [&] {
    return l.push_waiting_for_room(3, [&] { return stop.load(std::memory_order_acquire); });
  });
  EXPECT_EQ(blocked.wait_for(50ms), std::future_status::timeout);  // it waits for room
  stop.store(true, std::memory_order_release);
  room.notify();
  ASSERT_EQ(blocked.wait_for(10s), std::future_status::ready);
  EXPECT_FALSE(blocked.get());  // the item was dropped, the two before it stay
  EXPECT_EQ(l.size_approx(), 2u);
}

TEST(link, a_producer_thread_announces_a_part_batch_with_publish) {
  spate::waiter items;
  spate::link<int> l({.capacity = 64, .notify_batch = 32}, {}, &items);
  spate::waiter room;
  l.set_producer(&room);
  std::thread consumer([&] {
    // Two items are pushed, fewer than a batch: only publish() wakes this thread.
    items.wait_until([&] { return l.size_approx() == 2; });
  });
  ASSERT_TRUE(l.push_waiting_for_room(1, [] { return false; }));
  ASSERT_TRUE(l.push_waiting_for_room(2, [] { return false; }));
  l.publish();
  consumer.join();
  EXPECT_EQ(*l.front(), 1);
}
