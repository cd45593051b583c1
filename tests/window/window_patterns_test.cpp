// Key Partitioning and Window Farming against a sequential reference: the same windows, the
// same results, in the same per-key order, on random streams with uniform and skewed keys,
// over many (length, slide) pairs, both window function forms, 1 to 4 workers and both
// tuple memories; plus end of stream (partial windows flagged) and misuse.
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
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

struct summary {  // what the non-incremental function computes over a window
  std::int64_t sum, first, last;
  friend bool operator==(const summary&, const summary&) = default;
};

auto summarise = [](const int&, std::span<const trade> w) {
  return summary{[&] {
                   std::int64_t s = 0;
                   for (const trade& t : w) s += t.price;
                   return s;
                 }(),
                 w.front().price, w.back().price};
};
auto running_sum =
    incremental<std::int64_t>([](std::int64_t& acc, const trade& t) { acc += t.price; },
                              [](const int&, const std::int64_t& acc) { return acc; });
auto symbol_of = [](const trade& t) { return t.symbol; };

std::vector<trade> random_stream(std::size_t n, int symbols, bool skewed, unsigned seed) {
  std::mt19937 random{seed};
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<trade> out;
  for (std::size_t i = 0; i < n; ++i) {
    // Skewed: symbol ~ symbols · u³, so low symbols dominate.
    const int s = skewed ? int(symbols * std::pow(u(random), 3.0)) : int(random() % symbols);
    out.push_back({s, std::int64_t(random() % 1000)});
  }
  return out;
}

// The reference: for each key in order, window w is its tuples [w·slide, w·slide + length).
template <class R, class F>
std::map<int, std::vector<window_result<int, R>>> sequential(const std::vector<trade>& in,
                                                             count_window spec, F f) {
  std::map<int, std::vector<trade>> by_key;
  for (const trade& t : in) by_key[t.symbol].push_back(t);
  std::map<int, std::vector<window_result<int, R>>> out;
  for (auto& [key, tuples] : by_key) {
    for (std::uint64_t w = 0; spec.start(w) < tuples.size(); ++w) {
      const std::uint64_t end = std::min<std::uint64_t>(spec.end(w), tuples.size());
      std::span<const trade> window(tuples.data() + spec.start(w), end - spec.start(w));
      out[key].push_back({key, w, f(key, window), spec.end(w) <= tuples.size(), window.size()});
    }
  }
  return out;
}

template <class R, class Pattern>
std::map<int, std::vector<window_result<int, R>>> run_parallel(const std::vector<trade>& in,
                                                               Pattern pattern) {
  std::map<int, std::vector<window_result<int, R>>> out;
  flow::graph job(
      flow::pipeline(flow::from_range(in), std::move(pattern),
                     flow::sink([&](window_result<int, R>& r) { out[r.key].push_back(r); })));
  job.run();
  return out;
}

struct shape {
  std::uint64_t length, slide;
};
const shape shapes[] = {{1, 1}, {5, 5}, {10, 3}, {3, 10}, {7, 1}, {16, 4}, {9, 6}};

TEST(window_patterns, match_the_sequential_reference_for_every_shape_pattern_and_worker_count) {
  for (bool skewed : {false, true}) {
    const auto stream = random_stream(3000, 12, skewed, skewed ? 7u : 11u);
    for (shape sh : shapes) {
      const count_window spec{sh.length, sh.slide};
      const auto expect_summary = sequential<summary>(stream, spec, summarise);
      const auto expect_sum =
          sequential<std::int64_t>(stream, spec, [](const int&, std::span<const trade> w) {
            std::int64_t s = 0;
            for (const trade& t : w) s += t.price;
            return s;
          });
      for (std::size_t workers : {1, 2, 3, 4}) {
        SCOPED_TRACE("length " + std::to_string(sh.length) + " slide " + std::to_string(sh.slide) +
                     " workers " + std::to_string(workers) + (skewed ? " skewed" : " uniform"));
        EXPECT_EQ(run_parallel<summary>(
                      stream, key_partitioning<trade>(spec, symbol_of, summarise, workers)),
                  expect_summary);
        EXPECT_EQ(run_parallel<summary>(stream,
                                        window_farming<trade>(spec, symbol_of, summarise, workers)),
                  expect_summary);
        EXPECT_EQ(run_parallel<std::int64_t>(
                      stream, key_partitioning<trade>(spec, symbol_of, running_sum, workers)),
                  expect_sum);
        EXPECT_EQ(run_parallel<std::int64_t>(
                      stream, window_farming<trade>(spec, symbol_of, running_sum, workers)),
                  expect_sum);
      }
    }
  }
}

TEST(window_patterns, heap_envelopes_give_the_same_results_as_slab_ones) {
  const auto stream = random_stream(2000, 5, true, 3);
  const count_window spec = sliding(20, 5);
  const auto expect = sequential<summary>(stream, spec, summarise);
  EXPECT_EQ(run_parallel<summary>(stream, window_farming<trade>(spec, symbol_of, summarise, 3,
                                                                {.memory = tuple_memory::heap})),
            expect);
  EXPECT_EQ(run_parallel<summary>(stream, key_partitioning<trade>(spec, symbol_of, summarise, 3,
                                                                  {.memory = tuple_memory::heap})),
            expect);
}

TEST(window_patterns, the_end_of_the_stream_fires_open_windows_marked_incomplete) {
  // One key, 10 tuples, length 4, slide 2: windows 0..3 complete, 4 holds 8..9 only.
  std::vector<trade> stream;
  for (int i = 0; i < 10; ++i) stream.push_back({1, i});
  const auto out = run_parallel<std::int64_t>(
      stream, window_farming<trade>(sliding(4, 2), symbol_of, running_sum, 2))[1];
  ASSERT_EQ(out.size(), 5u);
  for (std::uint64_t w = 0; w < 4; ++w) {
    EXPECT_EQ(out[w].window, w);
    EXPECT_TRUE(out[w].complete);
    EXPECT_EQ(out[w].tuples, 4u);
  }
  EXPECT_FALSE(out[4].complete);
  EXPECT_EQ(out[4].tuples, 2u);
  EXPECT_EQ(out[4].value, 8 + 9);
}

TEST(window_patterns, a_window_without_length_or_slide_is_refused_by_name) {
  auto message = [](count_window spec) {
    try {
      (void)key_partitioning<trade>(spec, symbol_of, running_sum, 2);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message({0, 1}).find("length"), std::string::npos);
  EXPECT_NE(message({4, 0}).find("slide"), std::string::npos);
  EXPECT_THROW((void)window_farming<trade>(tumbling(4), symbol_of, running_sum, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace spate::window
