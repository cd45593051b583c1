#include "spate/channel/unbounded_spsc_queue.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

TEST(unbounded_spsc_queue, grows_past_one_segment) {
  spate::unbounded_spsc_queue<int> q(4);
  for (int i = 0; i < 100; ++i) q.push(i);
  EXPECT_EQ(q.size_approx(), 100u);
  int out;
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(q.try_pop(out));
    EXPECT_EQ(out, i);
  }
  EXPECT_FALSE(q.try_pop(out));
}

TEST(unbounded_spsc_queue, destroys_remaining_elements_across_segments) {
  auto tracker = std::make_shared<int>(0);
  {
    spate::unbounded_spsc_queue<std::shared_ptr<int>> q(2);
    for (int i = 0; i < 9; ++i) q.push(tracker);
  }
  EXPECT_EQ(tracker.use_count(), 1);
}

TEST(unbounded_spsc_queue, two_threads_transfer_in_order_without_loss) {
  constexpr std::uint64_t n = 2'000'000;
  spate::unbounded_spsc_queue<std::uint64_t> q(64);  // small segments: many hand-overs
  std::thread producer([&] {
    for (std::uint64_t i = 0; i < n; ++i) q.push(i);
  });
  std::uint64_t expected = 0;
  while (expected < n) {
    if (auto* v = q.front()) {
      ASSERT_EQ(*v, expected);
      q.pop();
      ++expected;
    }
  }
  producer.join();
  EXPECT_EQ(q.front(), nullptr);
}
