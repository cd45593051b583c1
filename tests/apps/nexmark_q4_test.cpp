// Nexmark q4 (examples/apps/nexmark/q4.hpp) against a reference written apart from it: the
// SQL evaluated on the whole input at once — for each auction id's first auction, the highest
// price of its bids (whatever their arrival order) whose time is within [dateTime, expires];
// per category, the sum of those maxima over their count. The graph's final table (each
// category's last row) equals it for 1 to 3 workers, on generated events slowed down and
// shuffled in groups of 10 (so that bids come before their auction) and on events written by
// hand; each category's rows change its average every time; the one-thread loop's final table
// equals the reference after every prefix of the input tried; its table for the first 50,000
// events of the default generator is the one the Flink program printed; and a run cancelled
// after two checkpoints, then restored, ends with the same table.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../examples/apps/common/replay_source.hpp"
#include "../../examples/apps/nexmark/generator.hpp"
#include "../../examples/apps/nexmark/q4.hpp"
#include "../temp_dir.hpp"

namespace flow = spate::flow;
namespace nx = apps::nexmark;
using spate::test::temp_dir;

namespace {

// category → average, the order-free form of a final table.
using table = std::map<std::int64_t, std::int64_t>;

table as_map(const std::vector<nx::q4_row>& final_rows) {
  table t;
  for (const nx::q4_row& r : final_rows) EXPECT_TRUE(t.emplace(r.category, r.average).second);
  return t;
}

// The SQL on `events`: the inner GROUP BY (auction id, category) as the maximum over all of an
// auction's matching bids, then the outer AVG per category.
table reference(const std::vector<nx::event>& events) {
  std::map<std::int64_t, const nx::auction*> first_auctions;
  for (const nx::event& e : events)
    if (const nx::auction* a = e.as_auction()) first_auctions.emplace(a->id, a);
  std::map<std::int64_t, std::int64_t> max_price;  // auction id → its closing price
  for (const nx::event& e : events) {
    const nx::bid* b = e.as_bid();
    if (b == nullptr) continue;
    const auto a = first_auctions.find(b->auction);
    if (a == first_auctions.end() || b->date_time < a->second->date_time ||
        b->date_time > a->second->expires)
      continue;
    const auto [at, inserted] = max_price.emplace(b->auction, b->price);
    if (!inserted) at->second = std::max(at->second, b->price);
  }
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> sums;  // category → sum, count
  for (const auto& [id, price] : max_price) {
    auto& [sum, count] = sums[first_auctions.at(id)->category];
    sum += price;
    ++count;
  }
  table t;
  for (const auto& [category, sum_count] : sums) t[category] = sum_count.first / sum_count.second;
  return t;
}

// The graph's rows from one source, per category in the order the sink saw them.
std::map<std::int64_t, std::vector<std::int64_t>> run_graph(std::size_t workers,
                                                            const std::vector<nx::event>& events) {
  std::map<std::int64_t, std::vector<std::int64_t>> rows;
  auto sink = flow::sink([&](nx::q4_row& r) { rows[r.category].push_back(r.average); });
  auto shared = std::make_shared<const std::vector<nx::event>>(events);
  flow::graph job(
      flow::pipeline(flow::make_stage<apps::replay_source<nx::event>>(shared, 0, shared->size()),
                     nx::q4(workers), sink));
  job.run();
  return rows;
}

// For 1 to 3 workers: the graph's final table is `expected`, and no category's row repeats its
// previous one.
void expect_graph_table(const std::vector<nx::event>& events, const table& expected) {
  for (std::size_t workers : {1u, 2u, 3u}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    table got;
    for (const auto& [category, averages] : run_graph(workers, events)) {
      got[category] = averages.back();
      for (std::size_t k = 1; k < averages.size(); ++k)
        EXPECT_NE(averages[k], averages[k - 1]) << "category " << category << " row " << k;
    }
    EXPECT_EQ(got, expected);
  }
}

nx::event auction_event(std::int64_t id, std::int64_t category, std::int64_t from,
                        std::int64_t to) {
  nx::event e;
  e.data = nx::auction{id, "item", "about", 1, 2, from, to, 7, category, "x"};
  return e;
}
nx::event bid_event(std::int64_t auction, std::int64_t price, std::int64_t time) {
  nx::event e;
  e.data = nx::bid{auction, 5, price, "c", "url", time, "x"};
  return e;
}

// One event every 50 s of event time, shuffled in groups of 10.
std::vector<nx::event> slow_events(std::uint64_t count) {
  static const nx::generator g(
      nx::generator_config{.first_event_rate = 0.02, .out_of_order_group_size = 10});
  return nx::generate(g, count);
}

TEST(nexmark_q4, each_categorys_average_closing_price_is_the_sqls) {
  const auto events = slow_events(6'000);
  const table expected = reference(events);
  ASSERT_GE(expected.size(), 2u) << "several categories";
  // Some bid came before its auction and is within its span: the kept early bids are tried.
  std::map<std::int64_t, const nx::auction*> auctions;
  for (const nx::event& e : events)
    if (const nx::auction* a = e.as_auction()) auctions.emplace(a->id, a);
  std::set<std::int64_t> arrived;
  std::size_t early_matches = 0;
  for (const nx::event& e : events) {
    if (const nx::auction* a = e.as_auction()) arrived.insert(a->id);
    const nx::bid* b = e.as_bid();
    if (b == nullptr || arrived.count(b->auction) != 0) continue;
    const auto a = auctions.find(b->auction);
    early_matches += a != auctions.end() && b->date_time >= a->second->date_time &&
                     b->date_time <= a->second->expires;
  }
  ASSERT_GT(early_matches, 0u);
  expect_graph_table(events, expected);
}

TEST(nexmark_q4, the_one_thread_loops_table_is_the_sqls_after_each_prefix) {
  const auto events = slow_events(6'000);
  for (std::size_t n : {0u, 1u, 50u, 777u, 2'000u, 4'321u, 6'000u}) {
    SCOPED_TRACE(std::to_string(n) + " events");
    const std::vector<nx::event> prefix(events.begin(), events.begin() + std::ptrdiff_t(n));
    EXPECT_EQ(as_map(nx::final_table(nx::q4_sequential(prefix))), reference(prefix));
  }
}

TEST(nexmark_q4, early_bids_span_ends_ties_a_repeated_id_and_rounding) {
  const std::vector<nx::event> events = {
      bid_event(1, 20, 100),            // before its auction, at its start: counts
      bid_event(1, 15, 150),            // before it too, lower: no change
      bid_event(1, 99, 99),             // before the auction's start: never counts
      auction_event(1, 10, 100, 200),   // category 10: 20
      bid_event(1, 30, 200),            // at `expires`: counts (30)
      bid_event(1, 90, 201),            // after `expires`: never counts
      bid_event(1, 30, 150),            // the same price: no change
      auction_event(2, 10, 0, 1'000),   //
      bid_event(2, 1, 5),               // category 10: (30 + 1) / 2 = 15, rounded down
      auction_event(1, 11, 0, 10'000),  // the id again: the first auction stays
      bid_event(1, 95, 5'000),          // within the second's span only: no change
      bid_event(1, 95, 150),            // within the first auction's span: (95 + 1) / 2 = 48
      bid_event(2, 2, 6),               // (95 + 2) / 2 = 48 still: no row
      auction_event(3, 12, 0, 10),      // an auction with no bid: no row
      bid_event(4, 10, 100)};           // an auction that never comes: no row
  const auto rows = nx::q4_sequential(events);
  std::vector<std::pair<std::int64_t, std::int64_t>> got;
  for (const auto& r : rows) got.emplace_back(r.category, r.average);
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected = {
      {10, 20}, {10, 30}, {10, 15}, {10, 48}};
  EXPECT_EQ(got, expected);
  EXPECT_EQ(reference(events), (table{{10, 48}}));
  expect_graph_table(events, table{{10, 48}});
  EXPECT_EQ((nx::q4_row{10, 48, 0}).digest(), nx::fold(nx::fold(0, 10), 48));
}

TEST(nexmark_q4, a_sum_past_int64s_range_wraps_as_javas_long) {
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();
  const std::vector<nx::event> events = {auction_event(1, 3, 0, 10), auction_event(2, 3, 0, 10),
                                         bid_event(1, big, 1), bid_event(2, 2, 1)};
  const auto rows = nx::q4_sequential(events);
  ASSERT_EQ(rows.size(), 2u);
  // max + 2 wraps to min + 1; Java's long division rounds toward zero
  EXPECT_EQ(rows[1].average, (std::numeric_limits<std::int64_t>::min() + 1) / 2);
}

// The first 50,000 events of the default generator (`nexmark generate --events 50000`): the
// final table the Flink program printed (tools/flink/run-nexmark nexmark --impl flink --query=q4
// --events=50000, parallelism 1 and 2, 2026-11-29: 5 rows, digest 0e486e02; its 7,932 updates).
TEST(nexmark_q4, the_one_thread_loop_gives_the_flink_programs_table) {
  const auto events = nx::generate(nx::generator(nx::generator_config{}), 50'000);
  const auto changelog = nx::q4_sequential(events);
  EXPECT_EQ(changelog.size(), 7'932u);
  const auto rows = nx::final_table(changelog);
  std::uint64_t digest = 0;
  for (const auto& r : rows) digest += r.digest();
  EXPECT_EQ(digest, 0x0e486e02u);
  EXPECT_EQ(as_map(rows), (table{{10, 37'454'908},
                                 {11, 36'435'943},
                                 {12, 35'039'890},
                                 {13, 33'973'382},
                                 {14, 36'723'475}}));
  EXPECT_EQ(as_map(rows), reference(events));
}

// The sink of the checkpoint test: each category's last average, in its own (checkpointed)
// state; `stopped` learns the table at the end of a run that was not cancelled.
struct table_sink : flow::node<nx::q4_row, void> {
  std::function<void(const table&)> stopped;
  table now;
  explicit table_sink(std::function<void(const table&)> s) : stopped(std::move(s)) {}
  void consume(nx::q4_row& r) { now[r.category] = r.average; }
  table snapshot_state() const { return now; }
  void restore_state(table t) { now = std::move(t); }
  void on_stop() { stopped(now); }
};

// q4's keyed state (both farms') and its sink's table survive a crash: a run cancelled after two
// checkpoints, then a run from the same directory, end with the failure-free table.
TEST(nexmark_q4, a_run_restored_from_a_checkpoint_ends_with_the_same_table) {
  temp_dir dir("q4-checkpoints");
  const auto events = std::make_shared<const std::vector<nx::event>>(
      nx::generate(nx::generator(nx::generator_config{}), 200'000));
  const table expected = reference(*events);
  spate::runtime rt;
  // 1,000,000 events a second: at least 200 ms, against a checkpoint every 5 ms.
  const auto job = [&](flow::checkpoint_options checkpoints, std::function<void(const table&)> s) {
    return flow::graph(
        flow::pipeline(
            flow::make_stage<apps::replay_source<nx::event>>(events, 1e6, events->size()),
            nx::q4(2), flow::make_stage<table_sink>(std::move(s))),
        flow::graph_options{.links = {.capacity = 64}, .checkpoints = std::move(checkpoints)});
  };
  // Either the second checkpoint's id, or 0 when the run ended first (so no wait hangs).
  std::promise<std::uint64_t> second_checkpoint;
  std::atomic<bool> told{false};
  const auto tell = [&](std::uint64_t id) {
    if (!told.exchange(true)) second_checkpoint.set_value(id);
  };
  std::atomic<int> completed{0};
  auto first = job({.directory = dir.path,
                    .interval = std::chrono::milliseconds(5),
                    .on_complete =
                        [&](std::uint64_t id) {
                          if (++completed == 2) tell(id);
                        }},
                   [&](const table&) { tell(0); });
  first.start(rt);
  const std::uint64_t id = second_checkpoint.get_future().get();
  first.cancel();
  first.wait();
  ASSERT_NE(id, 0u) << "the run ended before its second checkpoint";

  table got;
  auto second = job({.directory = dir.path}, [&](const table& t) { got = t; });
  second.run(rt);
  EXPECT_GE(second.checkpoints().restored_from, id);
  EXPECT_EQ(got, expected);
}

TEST(nexmark_q4, a_final_table_keeps_each_keys_last_row_in_first_appearance_order) {
  const std::vector<nx::q4_row> changelog = {{2, 1, 0}, {1, 5, 0}, {2, 7, 0}, {3, 4, 0}, {1, 6, 0}};
  const std::vector<nx::q4_row> expected = {{2, 7, 0}, {1, 6, 0}, {3, 4, 0}};
  EXPECT_EQ(nx::final_table(changelog), expected);
}

}  // namespace
