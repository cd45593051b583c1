// window::top_n against a reference that sorts each window's tuples (stable, best first) and
// keeps n: in count and time windows, both patterns, and in sessions, where accumulators
// merge; n larger than a window; n == 0 refused.
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

namespace spate::window {
namespace {

struct bid {
  int auction;
  std::uint64_t time;
  int price;
  std::uint32_t id;  // arrival number
  friend bool operator==(const bid&, const bid&) = default;
};
auto auction_of = [](const bid& b) { return b.auction; };
auto time_of = [](const bid& b) { return b.time; };
auto price_of = [](const bid& b) { return b.price; };

// Prices from a small range, so that ties are common.
std::vector<bid> bids(std::size_t n, unsigned seed) {
  std::mt19937 random{seed};
  std::vector<bid> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(
        {int(random() % 4), 1000 + i * 3 - random() % 20, int(random() % 30), std::uint32_t(i)});
  return out;
}

// The reference window function: all tuples, stably sorted best first, the first n.
auto sorted_best(std::size_t n) {
  return [n](const int&, std::span<const bid> w) {
    std::vector<bid> all(w.begin(), w.end());
    std::stable_sort(all.begin(), all.end(),
                     [](const bid& a, const bid& b) { return a.price > b.price; });
    if (all.size() > n) all.resize(n);
    return all;
  };
}

template <class Result, class Pattern>
std::map<int, std::vector<Result>> run(const std::vector<bid>& in, Pattern pattern) {
  std::map<int, std::vector<Result>> out;
  flow::graph job(flow::pipeline(flow::from_range(in), std::move(pattern),
                                 flow::sink([&](Result& r) { out[r.key].push_back(r); })));
  job.run();
  return out;
}

TEST(top_n, keeps_the_best_n_of_each_window_ties_in_arrival_order) {
  const auto stream = bids(4000, 7);
  using result = window_result<int, std::vector<bid>>;
  for (std::size_t n : {1u, 3u, 50u}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const auto expected_count =
        run<result>(stream, key_partitioning<bid>(sliding(40, 10), auction_of, sorted_best(n), 1));
    EXPECT_EQ(run<result>(stream, window_farming<bid>(sliding(40, 10), auction_of,
                                                      top_n<bid>(n, price_of), 3)),
              expected_count);
    const time_window spec{.length = 120, .slide = 30, .lateness = 25};
    const auto expected_time =
        run<result>(stream, key_partitioning<bid>(spec, auction_of, time_of, sorted_best(n), 1));
    EXPECT_EQ(run<result>(stream, key_partitioning<bid>(spec, auction_of, time_of,
                                                        top_n<bid>(n, price_of), 2)),
              expected_time);
  }
}

TEST(top_n, sessions_that_merge_keep_the_best_n_of_both) {
  // Times jump by 40 every 50 bids, past the gap of 30: sessions of ~50 bids, and the
  // disorder (up to 19) makes some bids bridge two of them.
  auto stream = bids(3000, 11);
  for (bid& b : stream) b.time += 40 * (b.id / 50);
  using result = session_result<int, std::vector<bid>>;
  const session_window spec{.gap = 30, .lateness = 40};
  for (std::size_t n : {1u, 4u}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const auto expected =
        run<result>(stream, sessions<bid>(spec, auction_of, time_of, sorted_best(n), 1));
    const auto got =
        run<result>(stream, sessions<bid>(spec, auction_of, time_of, top_n<bid>(n, price_of), 2));
    // Scores and session extents match exactly; among equal prices a merge keeps the earlier
    // session's first, where the reference keeps arrival order.
    ASSERT_EQ(got.size(), expected.size());
    for (const auto& [key, list] : expected) {
      ASSERT_EQ(got.at(key).size(), list.size()) << "key " << key;
      for (std::size_t i = 0; i < list.size(); ++i) {
        EXPECT_EQ(got.at(key)[i].start, list[i].start);
        EXPECT_EQ(got.at(key)[i].tuples, list[i].tuples);
        std::vector<int> a, b;
        for (const bid& x : got.at(key)[i].value) a.push_back(x.price);
        for (const bid& x : list[i].value) b.push_back(x.price);
        EXPECT_EQ(a, b) << "key " << key << " session " << i;
      }
    }
  }
}

TEST(top_n, merging_two_accumulators_keeps_the_best_n_of_both_the_first_ones_first) {
  std::mt19937 random{5};
  for (int round = 0; round < 200; ++round) {
    const std::size_t n = 1 + random() % 6;
    auto f = top_n<bid>(n, price_of);
    std::vector<bid> a_in, b_in;
    std::vector<bid> a, b;
    for (std::uint32_t i = 0; i < random() % 12; ++i) {
      a_in.push_back({0, 0, int(random() % 5), i});
      f.update(a, a_in.back());
    }
    for (std::uint32_t i = 0; i < random() % 12; ++i) {
      b_in.push_back({0, 0, int(random() % 5), 100 + i});
      f.update(b, b_in.back());
    }
    f.merge(a, b);
    std::vector<bid> all = a_in;
    all.insert(all.end(), b_in.begin(), b_in.end());
    EXPECT_EQ(a, sorted_best(n)(0, all)) << "round " << round;
  }
}

TEST(top_n, zero_is_refused) {
  EXPECT_THROW((void)top_n<bid>(0, price_of), std::invalid_argument);
}

}  // namespace
}  // namespace spate::window
