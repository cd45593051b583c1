#include "spate/channel/mpsc_queue.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

TEST(mpsc_queue, fifo_across_many_blocks) {
  spate::mpsc_queue<int> q;
  const int n = static_cast<int>(spate::mpsc_queue<int>::block_capacity) * 5 + 7;
  for (int i = 0; i < n; ++i) q.push(i);
  EXPECT_EQ(q.size_approx(), static_cast<std::size_t>(n));
  int out;
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(q.try_pop(out));
    EXPECT_EQ(out, i);
  }
  EXPECT_FALSE(q.try_pop(out));
  EXPECT_EQ(q.size_approx(), 0u);
}

TEST(mpsc_queue, consumer_position_detects_new_items) {
  spate::mpsc_queue<int> q;
  const auto mark = q.consumer_position();
  EXPECT_FALSE(q.has_items_after(mark));
  q.push(1);
  EXPECT_TRUE(q.has_items_after(mark));
}

TEST(mpsc_queue, destroys_remaining_elements) {
  auto tracker = std::make_shared<int>(0);
  {
    spate::mpsc_queue<std::shared_ptr<int>> q;
    for (int i = 0; i < 200; ++i) q.push(tracker);
    std::shared_ptr<int> out;
    for (int i = 0; i < 70; ++i) q.try_pop(out);
  }
  EXPECT_EQ(tracker.use_count(), 1);
}

TEST(mpsc_queue, producers_keep_fifo_order_and_lose_nothing) {
  constexpr int producers = 4;
  constexpr std::uint32_t per_producer = 300'000;
  struct item {
    std::uint32_t producer;
    std::uint32_t sequence;
  };
  spate::mpsc_queue<item> q;
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      for (std::uint32_t i = 0; i < per_producer; ++i) q.push(item{std::uint32_t(p), i});
    });
  }
  std::vector<std::uint32_t> next(producers, 0);
  std::uint64_t received = 0;
  while (received < std::uint64_t(producers) * per_producer) {
    if (item* it = q.front()) {
      ASSERT_EQ(it->sequence, next[it->producer]) << "producer " << it->producer;
      ++next[it->producer];
      q.pop();
      ++received;
    }
  }
  for (auto& t : threads) t.join();
  for (int p = 0; p < producers; ++p) EXPECT_EQ(next[p], per_producer);
  EXPECT_EQ(q.front(), nullptr);
}

namespace {
// Copying may throw (like a std::string running out of memory); moving never does.
struct fragile {
  static inline bool fail_next_copy = false;
  int value = 0;
  explicit fragile(int v) : value(v) {}
  fragile(const fragile& other) : value(other.value) {
    if (std::exchange(fail_next_copy, false)) throw std::runtime_error("copy failed");
  }
  fragile(fragile&&) noexcept = default;
  fragile& operator=(const fragile&) = default;
  fragile& operator=(fragile&&) noexcept = default;
};
}  // namespace

TEST(mpsc_queue, a_throwing_copy_leaves_the_queue_usable) {
  spate::mpsc_queue<fragile> q;
  fragile a(1), b(2), c(3);
  q.push(a);
  fragile::fail_next_copy = true;
  EXPECT_THROW(q.push(b), std::runtime_error);  // nothing reserved: no hole for the consumer
  q.push(c);
  ASSERT_NE(q.front(), nullptr);
  EXPECT_EQ(q.front()->value, 1);
  q.pop();
  ASSERT_NE(q.front(), nullptr);
  EXPECT_EQ(q.front()->value, 3);
  q.pop();
  EXPECT_EQ(q.front(), nullptr);
}
