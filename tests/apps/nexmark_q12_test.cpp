// Nexmark q12 (examples/apps/nexmark/windowed_queries.hpp: bids counted per bidder in
// processing-time tumbling windows). Which window a bid falls in depends on when it arrives, so
// the tests check what does not: each bidder's counts add up to its bids (q12_sequential's
// totals, and a count of the bids written here); a bidder has at most one row per window; and,
// with the events sent over 60 windows' time, windows fire on the clock while the input still
// comes, not only when it ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
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

// A row, and when the sink received it (steady clock, as the rows' stamps).
struct received_row {
  nx::q12_row row;
  std::int64_t at_ns;
};

// The graph's rows for `events` sent at `rate` a second (0: as fast as taken).
std::vector<received_row> run_graph(std::size_t workers, std::chrono::nanoseconds window,
                                    const std::vector<nx::event>& events, double rate) {
  std::vector<received_row> rows;
  auto sink = flow::sink([&](nx::q12_row& r) { rows.push_back({r, apps::steady_ns()}); });
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

// The rows' totals per bidder are `expected`, and no bidder has two rows for one window.
void expect_rows(const std::vector<received_row>& rows,
                 const std::map<std::int64_t, std::int64_t>& expected) {
  std::map<std::int64_t, std::int64_t> totals;
  std::set<std::pair<std::int64_t, std::int64_t>> bidder_windows;
  for (const auto& [r, at_ns] : rows) {
    totals[r.bidder] += r.bid_count;
    EXPECT_GT(r.bid_count, 0);
    EXPECT_TRUE(bidder_windows.emplace(r.bidder, r.start_ns).second)
        << "bidder " << r.bidder << " has two rows for the window at " << r.start_ns;
  }
  EXPECT_EQ(totals, expected);
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
    expect_rows(run_graph(workers, nx::q12_window, events, 0), expected);
  }
}

TEST(nexmark_q12, windows_fire_while_the_input_still_comes) {
  // 6,000 events at 10,000 a second: 600 ms, 60 windows of 10 ms. A window that fired on the
  // clock reached the sink before the source sent its last bid (the newest stamp: a row's is
  // its window's newest); the windows flushed at the end of the input come after it. Failing
  // needs the windows' timer to stay silent for the whole 600 ms.
  const auto events = nx::generate(nx::generator(nx::generator_config{}), 6'000);
  for (std::size_t workers : {1u, 2u}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    const auto rows = run_graph(workers, 10ms, events, 10'000);
    expect_rows(rows, bids_per_bidder(events));
    std::int64_t last_sent = 0, first_received = std::numeric_limits<std::int64_t>::max();
    for (const auto& [r, at_ns] : rows) {
      last_sent = std::max(last_sent, r.stamp_ns);
      first_received = std::min(first_received, at_ns);
    }
    EXPECT_LT(first_received, last_sent) << "no window fired before the input's end";
  }
}

}  // namespace
