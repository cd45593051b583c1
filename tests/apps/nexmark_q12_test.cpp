// Nexmark q12 (examples/apps/nexmark/windowed_queries.hpp: bids counted per bidder in
// processing-time tumbling windows). Which window a bid falls in depends on when it arrives, so
// the tests check what does not: each bidder's counts add up to its bids (q12_sequential's
// totals, and a count of the bids written here); a bidder has at most one row per window; each
// window is one length long and starts on a multiple of it; and, with the events sent over
// 30 windows' time, the windows fire while the input still comes, not only at its end.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../examples/apps/common/replay_source.hpp"
#include "../../examples/apps/nexmark/generator.hpp"
#include "../../examples/apps/nexmark/windowed_queries.hpp"

namespace flow = spate::flow;
namespace nx = apps::nexmark;
using namespace std::chrono_literals;

namespace {

// The graph's rows for `events` sent at `rate` a second (0: as fast as taken).
std::vector<nx::q12_row> run_graph(std::size_t workers, std::chrono::nanoseconds window,
                                   const std::vector<nx::event>& events, double rate) {
  std::vector<nx::q12_row> rows;
  auto sink = flow::sink([&](nx::q12_row& r) { rows.push_back(r); });
  auto shared = std::make_shared<const std::vector<nx::event>>(events);
  flow::graph job(
      flow::pipeline(flow::make_stage<apps::replay_source<nx::event>>(shared, rate, shared->size()),
                     nx::q12(workers, window), sink));
  job.run();
  return rows;
}

std::map<std::int64_t, std::int64_t> bids_per_bidder(const std::vector<nx::event>& events) {
  std::map<std::int64_t, std::int64_t> counts;
  for (const nx::event& e : events)
    if (const nx::bid* b = e.as_bid()) ++counts[b->bidder];
  return counts;
}

// The rows' totals per bidder are `expected`; no bidder has two rows for one window; each
// window is `window` long and starts on a multiple of it. Returns the windows seen.
std::set<std::int64_t> expect_rows(const std::vector<nx::q12_row>& rows,
                                   std::chrono::nanoseconds window,
                                   const std::map<std::int64_t, std::int64_t>& expected) {
  std::map<std::int64_t, std::int64_t> totals;
  std::set<std::pair<std::int64_t, std::int64_t>> bidder_windows;
  std::set<std::int64_t> windows;
  for (const nx::q12_row& r : rows) {
    totals[r.bidder] += r.bid_count;
    EXPECT_GT(r.bid_count, 0);
    EXPECT_TRUE(bidder_windows.emplace(r.bidder, r.start_ns).second)
        << "bidder " << r.bidder << " has two rows for the window at " << r.start_ns;
    EXPECT_EQ(r.end_ns - r.start_ns, window.count());
    EXPECT_EQ(r.start_ns % window.count(), 0);
    windows.insert(r.start_ns);
  }
  EXPECT_EQ(totals, expected);
  return windows;
}

TEST(nexmark_q12, each_bidders_window_counts_add_up_to_its_bids) {
  const auto events = nx::generate(nx::generator(nx::generator_config{}), 20'000);
  const auto expected = bids_per_bidder(events);
  ASSERT_GT(expected.size(), 100u);
  std::map<std::int64_t, std::int64_t> sequential;
  for (const nx::q12_row& r : nx::q12_sequential(events)) sequential[r.bidder] += r.bid_count;
  EXPECT_EQ(sequential, expected);
  for (std::size_t workers : {1u, 2u, 3u}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    // The query's 10 s windows: the whole input in one or two of them.
    expect_rows(run_graph(workers, nx::q12_window, events, 0), nx::q12_window, expected);
  }
}

TEST(nexmark_q12, windows_fire_while_the_input_still_comes) {
  // 3,000 events at 10,000 a second: 300 ms, 30 windows of 10 ms. The first event reaches the
  // emitter 300 ms before the last is sent, so they cannot share a window unless the emitter
  // took none of them for 290 ms.
  const auto events = nx::generate(nx::generator(nx::generator_config{}), 3'000);
  for (std::size_t workers : {1u, 2u}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    const auto windows =
        expect_rows(run_graph(workers, 10ms, events, 10'000), 10ms, bids_per_bidder(events));
    EXPECT_GE(windows.size(), 2u);
  }
}

}  // namespace
