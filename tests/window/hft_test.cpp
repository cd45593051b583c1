// The HFT application's pipeline (examples/hft/hft.hpp): Key Partitioning and Window
// Farming give exactly the predictions of a sequential run of the same windows and fits.
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "../../examples/hft/hft.hpp"

namespace {

using result = spate::window::window_result<std::uint32_t, hft::prediction>;

template <class Pattern>
std::map<std::uint32_t, std::vector<result>> parallel(const std::vector<hft::quote>& quotes,
                                                      Pattern pattern) {
  std::map<std::uint32_t, std::vector<result>> out;
  spate::flow::graph job(
      spate::flow::pipeline(spate::flow::from_range(quotes), std::move(pattern),
                            spate::flow::sink([&](result& r) { out[r.key].push_back(r); })));
  job.run();
  return out;
}

TEST(hft, key_partitioning_and_window_farming_predict_exactly_what_a_sequential_run_does) {
  hft::quote_generator generator{7, 12};  // 12 symbols: ~3,300 quotes and ~90 windows each
  std::vector<hft::quote> quotes;
  for (int i = 0; i < 40'000; ++i) quotes.push_back(generator.next());
  const auto expected = hft::sequential(quotes);
  std::size_t complete = 0;
  for (const auto& [s, windows] : expected)
    for (const auto& w : windows) complete += w.complete ? 1 : 0;
  ASSERT_GT(complete, 1000u);
  for (std::size_t workers : {1, 2, 3}) {
    EXPECT_EQ(parallel(quotes, spate::window::key_partitioning<hft::quote>(
                                   hft::windows, hft::symbol_of, hft::predict, workers)),
              expected);
    EXPECT_EQ(parallel(quotes, spate::window::window_farming<hft::quote>(
                                   hft::windows, hft::symbol_of, hft::predict, workers)),
              expected);
  }
}

}  // namespace
