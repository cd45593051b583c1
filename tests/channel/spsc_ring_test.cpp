#include "spate/channel/spsc_ring.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

TEST(spsc_ring, rounds_capacity_up_and_reports_full) {
  spate::spsc_ring<int> ring(5);
  EXPECT_EQ(ring.capacity(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(ring.try_push(i));
  EXPECT_FALSE(ring.try_push(99));
  EXPECT_EQ(ring.size_approx(), 8u);
  int out = -1;
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(ring.try_pop(out));
    EXPECT_EQ(out, i);
  }
  EXPECT_FALSE(ring.try_pop(out));
  EXPECT_TRUE(ring.empty_approx());
}

TEST(spsc_ring, rejects_zero_capacity) {
  EXPECT_THROW(spate::spsc_ring<int>(0), std::invalid_argument);
}

TEST(spsc_ring, destroys_remaining_elements) {
  auto tracker = std::make_shared<int>(0);
  {
    spate::spsc_ring<std::shared_ptr<int>> ring(4);
    ring.try_push(tracker);
    ring.try_push(tracker);
    EXPECT_EQ(tracker.use_count(), 3);
  }
  EXPECT_EQ(tracker.use_count(), 1);
}

TEST(spsc_ring, two_threads_transfer_in_order_without_loss) {
  constexpr std::uint64_t n = 2'000'000;
  spate::spsc_ring<std::uint64_t> ring(1024);
  std::thread producer([&] {
    for (std::uint64_t i = 0; i < n; ++i) {
      while (!ring.try_push(i)) std::this_thread::yield();
    }
  });
  std::uint64_t expected = 0;
  while (expected < n) {
    if (auto* v = ring.front()) {
      ASSERT_EQ(*v, expected);
      ring.pop();
      ++expected;
    }
  }
  producer.join();
  EXPECT_EQ(ring.front(), nullptr);
}

TEST(spsc_ring, write_window_is_invisible_until_committed_and_bounded_by_room) {
  spate::spsc_ring<int> ring(8);
  ASSERT_TRUE(ring.try_push(100));
  auto window = ring.reserve(16);  // asks for more than the 7 free slots
  int written = 0;
  while (!window.full()) window.emplace(written++);
  EXPECT_EQ(written, 7);
  EXPECT_EQ(ring.size_approx(), 1u);  // not yet published
  EXPECT_EQ(ring.commit(window), 7u);
  EXPECT_EQ(ring.commit(window), 0u);  // committing twice publishes nothing new
  EXPECT_EQ(ring.size_approx(), 8u);
  EXPECT_FALSE(ring.try_push(99));
  int out = -1;
  ASSERT_TRUE(ring.try_pop(out));
  EXPECT_EQ(out, 100);
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(ring.try_pop(out));
    EXPECT_EQ(out, i);
  }
}

TEST(spsc_ring, read_batch_sees_published_items_and_pop_n_destroys_them) {
  auto tracker = std::make_shared<int>(0);
  spate::spsc_ring<std::shared_ptr<int>> ring(8);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(ring.try_push(tracker));
  auto batch = ring.readable(3);
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch[2].get(), tracker.get());
  ring.pop_n(2);
  EXPECT_EQ(tracker.use_count(), 4);  // two destroyed, three left
  EXPECT_EQ(ring.readable(100).size(), 3u);
  ring.pop_n(3);
  EXPECT_EQ(tracker.use_count(), 1);
  EXPECT_EQ(ring.readable(100).size(), 0u);
}

TEST(spsc_ring, windows_and_batches_transfer_in_order_across_threads) {
  constexpr std::uint64_t n = 2'000'000;
  spate::spsc_ring<std::uint64_t> ring(256);
  std::thread producer([&] {
    std::uint64_t next = 0;
    while (next < n) {
      auto window = ring.reserve(32);
      while (!window.full() && next < n) window.emplace(next++);
      if (ring.commit(window) == 0) std::this_thread::yield();
    }
  });
  std::uint64_t expected = 0;
  while (expected < n) {
    const auto batch = ring.readable(64);
    for (std::size_t k = 0; k < batch.size(); ++k) ASSERT_EQ(batch[k], expected + k);
    ring.pop_n(batch.size());
    expected += batch.size();
  }
  producer.join();
  EXPECT_EQ(ring.readable(1).size(), 0u);
}

TEST(spsc_ring, contiguous_runs_stop_where_the_ring_wraps) {
  spate::spsc_ring<int> ring(8);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(ring.try_push(i));
  int out = -1;
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(ring.try_pop(out));  // head and tail now at 6
  auto window = ring.reserve(8);
  // Slots 6 and 7, then the ring wraps to 0: two calls fill the window.
  EXPECT_EQ(window.emplace_contiguous(8, [](std::size_t k) { return 100 + int(k); }), 2u);
  EXPECT_EQ(window.emplace_contiguous(8, [](std::size_t k) { return 200 + int(k); }), 6u);
  EXPECT_TRUE(window.full());
  ring.commit(window);
  const auto batch = ring.readable(8);
  ASSERT_EQ(batch.size(), 8u);
  ASSERT_EQ(batch.contiguous(0), 2u);
  EXPECT_EQ(batch.contiguous_data(0)[1], 101);
  ASSERT_EQ(batch.contiguous(2), 6u);
  for (std::size_t k = 0; k < 6; ++k) EXPECT_EQ(batch.contiguous_data(2)[k], 200 + int(k));
  ring.pop_n(8);
}
