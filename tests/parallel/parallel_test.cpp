#include <gtest/gtest.h>

#include <numeric>

#include <atomic>
#include <vector>

#include "spate/flow.hpp"
#include "spate/parallel.hpp"

namespace {
namespace flow = spate::flow;
spate::scheduler_config workers(std::size_t n) {
  auto c = spate::scheduler_config::default_preset();
  c.threads = n;
  return c;
}
spate::runtime_config runtime_with(spate::scheduler_config scheduler) {
  spate::runtime_config c;
  c.scheduler = scheduler;
  c.read_environment = false;
  return c;
}
}  // namespace

TEST(parallel, parallel_for_visits_each_index_once) {
  spate::runtime rt(runtime_with(workers(2)));
  std::vector<std::atomic<int>> hits(100'003);
  spate::parallel_for(rt, hits.size(), [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1);
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(parallel, map_reduce_matches_sequential) {
  spate::runtime rt(runtime_with(workers(2)));
  std::vector<int> v(1'000'000);
  std::iota(v.begin(), v.end(), 0);
  const long sum = spate::map_reduce(
      rt, v, 0L, [](int x) { return long(x) % 7; }, [](long a, long b) { return a + b; });
  long expected = 0;
  for (int x : v) expected += x % 7;
  EXPECT_EQ(sum, expected);
}

TEST(parallel, exception_in_a_chunk_is_rethrown) {
  spate::runtime rt(runtime_with(workers(2)));
  EXPECT_THROW(spate::parallel_for(
                   rt, 1000,
                   [](std::size_t b, std::size_t) {
                     if (b >= 500) throw std::runtime_error("chunk failed");
                   },
                   10),
               std::runtime_error);
}

TEST(parallel, divide_and_conquer_mergesort) {
  spate::runtime rt(runtime_with(workers(2)));
  std::vector<int> data(50'000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = int((i * 7919) % 10007);
  auto sorted = spate::divide_and_conquer(
      rt, data, [](const std::vector<int>& v) { return v.size() <= 512; },
      [](const std::vector<int>& v) {
        auto copy = v;
        std::sort(copy.begin(), copy.end());
        return copy;
      },
      [](const std::vector<int>& v) {
        const auto mid = v.begin() + std::ptrdiff_t(v.size() / 2);
        return std::vector<std::vector<int>>{{v.begin(), mid}, {mid, v.end()}};
      },
      [](std::vector<std::vector<int>> parts) {
        std::vector<int> merged;
        std::merge(parts[0].begin(), parts[0].end(), parts[1].begin(), parts[1].end(),
                   std::back_inserter(merged));
        return merged;
      });
  auto expected = data;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(sorted, expected);
}

TEST(parallel, usable_inside_a_node_on_a_single_worker_pool) {
  spate::runtime rt(runtime_with(workers(1)));
  std::vector<long> sums;
  auto summing = flow::map([&rt](std::vector<int>& v) {
    return spate::map_reduce(
        rt, v, 0L, [](int x) { return long(x); }, [](long a, long b) { return a + b; });
  });
  flow::graph g(
      flow::pipeline(flow::generate<std::vector<int>>(
                         20, [](std::size_t i) { return std::vector<int>(1000, int(i)); }),
                     summing, flow::sink([&](long& s) { sums.push_back(s); })));
  g.run(rt);
  ASSERT_EQ(sums.size(), 20u);
  for (std::size_t i = 0; i < 20; ++i) EXPECT_EQ(sums[i], long(i) * 1000);
}
