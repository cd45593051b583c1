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

// An executor that only counts what it is asked to schedule.
struct counting_executor final : spate::executor {
  int scheduled = 0;
  void schedule(spate::task*) override { ++scheduled; }
};

// A unit at the producer end of a link: idle() is its activation going idle, so that the
// next notify schedules it (once).
class idling_unit final : public spate::unit {
 public:
  spate::resume_result resume(std::size_t) override { return spate::resume_result::awaiting; }
  void idle() {
    ASSERT_FALSE(go_idle([] { return false; }));
  }
};

// R3, on one thread: a unit producer that asked for room is scheduled exactly once, at the pop
// that brings the link down to its resume level — not before, not again below it, and never
// when it did not ask.
TEST(link, a_producer_waiting_for_room_is_woken_at_the_resume_level) {
  counting_executor executor;
  idling_unit producer;
  producer.set_executor(&executor);
  spate::link<int> l({.capacity = 8, .resume_level = 2}, &producer);
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(l.try_push(i));
  ASSERT_FALSE(l.try_push(8));
  l.request_room();                             // R1
  producer.idle();                              // R2 (its re-check would read the full ring)
  for (int expect = 0; expect < 5; ++expect) {  // down to 3 queued: above the level
    ASSERT_EQ(*l.front(), expect);
    l.pop_and_release();
    EXPECT_EQ(executor.scheduled, 0) << "woken with " << l.size_approx() << " queued";
  }
  l.pop_and_release();  // 2 queued: the resume level
  EXPECT_EQ(executor.scheduled, 1);
  l.pop_and_release();  // below it: no second wake-up
  EXPECT_EQ(executor.scheduled, 1);
  // The batch form (release_producer) asks the same question.
  l.release_producer();
  EXPECT_EQ(executor.scheduled, 1);  // already scheduled: the handshake's CAS fails
  // A producer that withdrew (R4) is not woken, even unconditionally.
  producer.idle();
  l.withdraw_room_request();
  l.release_producer(true);
  EXPECT_EQ(executor.scheduled, 1);
  l.request_room();
  l.release_producer(true);  // a consumer that ends early
  EXPECT_EQ(executor.scheduled, 2);
}

TEST(link, thread_to_thread_keeps_order_and_loses_nothing_through_a_tiny_ring) {
  spate::test::within(60s, "thread to thread", [] {
    constexpr int n = 200'000;
    spate::waiter room, items;
    spate::link<int> l({.capacity = 4, .notify_batch = 3}, &room, &items);
    auto got = std::async(std::launch::async, [&] { return drain_on_this_thread(l, items); });
    for (int i = 0; i < n; ++i) ASSERT_TRUE(l.push_waiting_for_room(i, [] { return false; }));
    l.close();
    EXPECT_EQ(got.get(), zero_to(n));
  });
}

TEST(link, thread_to_task_keeps_order_and_loses_nothing_through_a_tiny_ring) {
  spate::test::within(60s, "thread to task", [] {
    constexpr int n = 200'000;
    spate::worker_pool pool(two_workers());
    spate::waiter room;
    spate::link<int> l({.capacity = 2, .notify_batch = 5}, &room);
    link_draining_unit consumer(l);
    // Stops the pool before `consumer` goes, also when an assertion returns early.
    const std::unique_ptr<spate::worker_pool, void (*)(spate::worker_pool*)> stop_first(
        &pool, [](spate::worker_pool* p) { p->stop(); });
    consumer.set_executor(&pool);
    l.set_consumer(&consumer);
    pool.schedule(&consumer);  // its first activation
    for (int i = 0; i < n; ++i) l.push_waiting_for_room(i, [] { return false; });
    l.close();
    ASSERT_TRUE(spate::test::eventually(
        [&] { return consumer.done.load(std::memory_order_acquire); }, 50s));
    EXPECT_EQ(consumer.got, zero_to(n));
  });
}

TEST(link, a_stop_request_ends_a_producer_waiting_for_room) {
  spate::test::within(30s, "stop request", [] {
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
  });
}

// Fewer items than a batch reach a consumer thread already asleep only through publish().
TEST(link, a_producer_thread_announces_a_part_batch_with_publish) {
  spate::test::within(30s, "publish", [] {
    spate::waiter room, items;
    spate::link<int> l({.capacity = 64, .notify_batch = 32}, &room, &items);
    auto consumer = std::async(std::launch::async,
                               [&] { items.wait_until([&] { return l.size_approx() != 0; }); });
    // Give the consumer time to fall asleep; had it not yet, its first check sees the items
    // and the test proves less, but does not fail.
    std::this_thread::sleep_for(50ms);
    ASSERT_TRUE(l.push_waiting_for_room(1, [] { return false; }));
    ASSERT_TRUE(l.push_waiting_for_room(2, [] { return false; }));
    l.publish();
    ASSERT_EQ(consumer.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(*l.front(), 1);
  });
}

TEST(link, a_notify_batch_of_zero_is_taken_as_one) {
  spate::link<int> l({.notify_batch = 0});
  EXPECT_EQ(l.options().notify_batch, 1u);
}

// ---- markers (M1..M3) -----------------------------------------------------------------------

// A consumer reading with readable_before_marker() stops at each marker, and at_marker() holds
// exactly when every item before it was popped.
TEST(link, a_marker_stands_between_the_items_sent_before_and_after_it) {
  spate::link<int> l({.capacity = 16});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(l.try_push(i));
  ASSERT_TRUE(l.post_marker({.id = 7, .position = l.pushed()}));
  for (int i = 3; i < 5; ++i) ASSERT_TRUE(l.try_push(i));
  ASSERT_TRUE(l.post_marker({.id = 8, .position = l.pushed()}));
  ASSERT_TRUE(l.try_push(5));
  EXPECT_EQ(l.markers_queued(), 2u);

  EXPECT_FALSE(l.at_marker());
  auto batch = l.readable_before_marker(100);
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch[2], 2);
  l.pop_n(2);
  EXPECT_FALSE(l.at_marker());
  EXPECT_EQ(l.readable_before_marker(100).size(), 1u);
  l.pop_n(1);
  ASSERT_TRUE(l.at_marker());
  EXPECT_EQ(l.front_marker()->id, 7u);
  EXPECT_EQ(l.readable_before_marker(100).size(), 0u);  // nothing is read past a marker
  l.pop_marker();

  batch = l.readable_before_marker(1);  // the caller's limit still applies
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0], 3);
  l.pop_n(1);
  batch = l.readable_before_marker(100);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0], 4);
  l.pop_n(1);
  ASSERT_TRUE(l.at_marker());
  EXPECT_EQ(l.front_marker()->id, 8u);
  l.pop_marker();
  EXPECT_EQ(l.front_marker(), nullptr);
  EXPECT_EQ(l.markers_queued(), 0u);
  EXPECT_EQ(l.readable_before_marker(100).size(), 1u);  // the item after the last marker
}

// A marker may count items the producer still buffers: the consumer reaches it only after
// those items were pushed and popped.
TEST(link, a_marker_may_stand_after_items_not_yet_pushed) {
  spate::link<int> l({.capacity = 2});
  ASSERT_TRUE(l.try_push(0));
  ASSERT_TRUE(l.try_push(1));
  // Two more items wait in the producer's buffer (the ring is full).
  ASSERT_TRUE(l.post_marker({.id = 1, .position = l.pushed() + 2}));
  l.pop_n(l.readable_before_marker(10).size());
  EXPECT_FALSE(l.at_marker());
  ASSERT_TRUE(l.try_push(2));
  ASSERT_TRUE(l.try_push(3));
  auto batch = l.readable_before_marker(10);
  ASSERT_EQ(batch.size(), 2u);
  l.pop_n(2);
  EXPECT_TRUE(l.at_marker());
}

// M1's bound: a full marker queue refuses a marker and keeps the ones it holds; popping one
// makes room again (the slot is reused).
TEST(link, a_full_marker_queue_refuses_a_marker_and_keeps_the_others) {
  spate::link<int> l;
  for (std::uint64_t id = 0; id < spate::link_base::marker_capacity; ++id) {
    ASSERT_TRUE(l.post_marker({.id = id, .position = 0}));
  }
  EXPECT_FALSE(l.post_marker({.id = 99, .position = 0}));
  EXPECT_EQ(l.markers_queued(), spate::link_base::marker_capacity);
  EXPECT_EQ(l.front_marker()->id, 0u);
  l.pop_marker();
  ASSERT_TRUE(l.post_marker({.id = 4, .position = 0}));
  for (std::uint64_t id = 1; id <= 4; ++id) {
    ASSERT_TRUE(l.at_marker());
    EXPECT_EQ(l.front_marker()->id, id);
    l.pop_marker();
  }
  EXPECT_EQ(l.markers_queued(), 0u);
}

// M2: a marker with no item after it wakes an idle consumer; a marker is news to its re-check.
TEST(link, a_marker_alone_wakes_an_idle_consumer) {
  counting_executor executor;
  idling_unit consumer;
  consumer.set_executor(&executor);
  spate::link<int> l({}, {}, &consumer);
  consumer.idle();
  ASSERT_TRUE(l.post_marker({.id = 1, .position = l.pushed()}));
  l.wake_consumer();
  EXPECT_EQ(executor.scheduled, 1);
  EXPECT_EQ(l.markers_queued(), 1u);
  EXPECT_TRUE(l.at_marker());
}

// Markers across threads: every marker a producer thread posted is met by a consumer task at
// exactly its position, in order, and no item is lost (the stress build injects delays
// between M1 and M2, tests/stress).
TEST(link, a_consumer_task_meets_every_marker_at_its_position) {
  spate::test::within(60s, "markers", [] {
    spate::worker_pool pool(two_workers());
    spate::waiter room;
    spate::link<int> l({.capacity = 4, .notify_batch = 3}, &room);
    spate_test::marker_recording_unit consumer(l);
    const std::unique_ptr<spate::worker_pool, void (*)(spate::worker_pool*)> stop_first(
        &pool, [](spate::worker_pool* p) { p->stop(); });
    consumer.set_executor(&pool);
    l.set_consumer(&consumer);
    pool.schedule(&consumer);
    const auto posted = spate_test::push_with_markers(l, 50'000, 37);
    ASSERT_TRUE(spate::test::eventually(
        [&] { return consumer.done.load(std::memory_order_acquire); }, 50s));
    EXPECT_EQ(consumer.got, zero_to(50'000));
    EXPECT_EQ(consumer.markers, posted);
  });
}

// M3 at the end of a stream: a marker at the last item is due before the stream ends; one
// beyond it (it counted buffered items a cancelled producer dropped) never is, and ended()
// holds without it.
TEST(link, a_stream_ends_after_its_last_due_marker_and_without_one_beyond_it) {
  spate::link<int> l;
  ASSERT_TRUE(l.try_push(1));
  ASSERT_TRUE(l.post_marker({.id = 1, .position = l.pushed()}));
  ASSERT_TRUE(l.post_marker({.id = 2, .position = l.pushed() + 3}));  // 3 items never pushed
  l.close();
  l.pop_n(l.readable_before_marker(10).size());
  EXPECT_TRUE(l.closed_and_drained());
  EXPECT_FALSE(l.ended());  // marker 1 is due
  ASSERT_TRUE(l.at_marker());
  EXPECT_EQ(l.front_marker()->id, 1u);
  l.pop_marker();
  EXPECT_FALSE(l.at_marker());
  EXPECT_TRUE(l.ended());
  EXPECT_EQ(l.markers_queued(), 1u);  // marker 2 stays, never due
}
