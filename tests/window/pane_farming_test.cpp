// Pane farming against the sequential reference: the same windows and aggregates, per key in
// window order, for sliding, tumbling and hopping shapes, uniform and skewed keys, 1 to 3
// workers, with an aggregate that is associative but not commutative-blind (min, max, count,
// sum together).
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <vector>

namespace spate::window {
namespace {

struct trade {
  int symbol;
  std::int64_t price;
};
struct stats {
  std::int64_t sum = 0, count = 0;
  std::int64_t low = std::numeric_limits<std::int64_t>::max();
  std::int64_t high = std::numeric_limits<std::int64_t>::min();
  friend bool operator==(const stats&, const stats&) = default;
};
stats of(std::span<const trade> w) {
  stats s;
  for (const trade& t : w) {
    s.sum += t.price;
    ++s.count;
    s.low = std::min(s.low, t.price);
    s.high = std::max(s.high, t.price);
  }
  return s;
}

auto pane_stats = panes<stats>(
    [](stats& s, const trade& t) {
      s.sum += t.price;
      ++s.count;
      s.low = std::min(s.low, t.price);
      s.high = std::max(s.high, t.price);
    },
    [](const stats& a, const stats& b) {
      return stats{a.sum + b.sum, a.count + b.count, std::min(a.low, b.low),
                   std::max(a.high, b.high)};
    },
    [](const int&, const stats& s) { return s; });

TEST(pane_farming, matches_the_sequential_reference) {
  const std::pair<std::uint64_t, std::uint64_t> shapes[] = {{12, 4}, {10, 10}, {9, 6},
                                                            {4, 10}, {30, 1},  {16, 12}};
  for (bool skewed : {false, true}) {
    std::mt19937 random{skewed ? 5u : 9u};
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<trade> stream;
    for (int i = 0; i < 2500; ++i)
      stream.push_back({skewed ? int(8 * std::pow(u(random), 3.0)) : int(random() % 8),
                        std::int64_t(random() % 1000)});
    for (auto [length, slide] : shapes) {
      const count_window spec{length, slide};
      std::map<int, std::vector<trade>> by_key;
      for (const trade& t : stream) by_key[t.symbol].push_back(t);
      std::map<int, std::vector<window_result<int, stats>>> expected;
      for (auto& [k, ts] : by_key)
        for (std::uint64_t w = 0; spec.start(w) < ts.size(); ++w) {
          const auto end = std::min<std::uint64_t>(spec.end(w), ts.size());
          std::span<const trade> window(ts.data() + spec.start(w), end - spec.start(w));
          expected[k].push_back({k, w, of(window), spec.end(w) <= ts.size(), window.size()});
        }
      for (std::size_t workers : {1, 2, 3}) {
        SCOPED_TRACE("length " + std::to_string(length) + " slide " + std::to_string(slide) +
                     " workers " + std::to_string(workers));
        std::map<int, std::vector<window_result<int, stats>>> got;
        flow::graph job(flow::pipeline(
            flow::from_range(stream),
            pane_farming<trade>(
                spec, [](const trade& t) { return t.symbol; }, pane_stats, workers),
            flow::sink([&](window_result<int, stats>& r) { got[r.key].push_back(r); })));
        job.run();
        EXPECT_EQ(got, expected);
      }
    }
  }
}

}  // namespace
}  // namespace spate::window
