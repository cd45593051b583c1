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
