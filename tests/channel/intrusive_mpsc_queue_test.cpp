#include "spate/channel/intrusive_mpsc_queue.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

namespace {
struct node : spate::intrusive_mpsc_link {
  virtual ~node() = default;  // a vtable puts the link away from offset 0
  int producer = 0;
  int sequence = 0;
};
}  // namespace

TEST(intrusive_mpsc_queue, single_thread_fifo) {
  spate::intrusive_mpsc_queue<node> q;
  EXPECT_EQ(q.pop(), nullptr);
  std::vector<node> nodes(10);
  for (int i = 0; i < 10; ++i) {
    nodes[i].sequence = i;
    q.push(&nodes[i]);
  }
  EXPECT_EQ(q.size_approx(), 10u);
  for (int i = 0; i < 10; ++i) {
    node* n = q.pop();
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->sequence, i);
  }
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_TRUE(q.empty_approx());
  q.push(&nodes[3]);  // reuse after draining through the stub
  EXPECT_EQ(q.pop(), &nodes[3]);
}

TEST(intrusive_mpsc_queue, producers_keep_fifo_order_and_lose_nothing) {
  constexpr int producers = 4;
  constexpr int per_producer = 200'000;
  std::vector<std::unique_ptr<node[]>> nodes;
  for (int p = 0; p < producers; ++p) nodes.push_back(std::make_unique<node[]>(per_producer));
  spate::intrusive_mpsc_queue<node> q;
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < per_producer; ++i) {
        nodes[p][i].producer = p;
        nodes[p][i].sequence = i;
        q.push(&nodes[p][i]);
      }
    });
  }
  std::vector<int> next(producers, 0);
  int received = 0;
  while (received < producers * per_producer) {
    if (node* n = q.pop()) {
      ASSERT_EQ(n->sequence, next[n->producer]);
      ++next[n->producer];
      ++received;
    }
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(q.pop(), nullptr);
}
