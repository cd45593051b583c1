// Nexmark q4 and q6 (examples/apps/nexmark: q4.hpp, q6.hpp, on closing_prices.hpp) against
// references written apart from them: the SQL evaluated on the whole input at once — for each
// auction id's first auction, the highest price of its bids (whatever their arrival order)
// whose time is within [dateTime, expires]; q4: per category, the sum of those prices over
// their count; q6: per seller, the same over its 11 latest such auctions (by dateTime, then
// id). The graph's final table (each group's last row) equals it for 1 to 3 workers, on
// generated events slowed down and shuffled in groups of 10 (so that bids come before their
// auction) and on events written by hand; each group's rows change its average every time;
// the one-thread loop's final table equals the reference after every prefix of the input
// tried; its table for the first 50,000 events of the default generator is the one the Flink
// program printed (a run restored from a checkpoint: nexmark_restore_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
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
#include "../../examples/apps/nexmark/q4.hpp"
#include "../../examples/apps/nexmark/q6.hpp"

namespace flow = spate::flow;
namespace nx = apps::nexmark;

namespace {

// group (category or seller) → average, the order-free form of a final table.
using table = std::map<std::int64_t, std::int64_t>;

template <class Row>
table as_map(const std::vector<Row>& final_rows) {
  table t;
  for (const Row& r : final_rows) EXPECT_TRUE(t.emplace(r.table_key(), r.average).second);
  return t;
}

struct closing_price {
  const nx::auction* auction;
  std::int64_t price;
};

// The inner GROUP BY on `events`: each auction's highest price over all its matching bids.
std::map<std::int64_t, closing_price> closing_prices(const std::vector<nx::event>& events) {
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
  std::map<std::int64_t, closing_price> prices;
  for (const auto& [id, price] : max_price) prices[id] = {first_auctions.at(id), price};
  return prices;
}

// q4's SQL on `events`: the closing prices' AVG per category.
table reference(const std::vector<nx::event>& events) {
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> sums;  // category → sum, count
  for (const auto& [id, closing] : closing_prices(events)) {
    auto& [sum, count] = sums[closing.auction->category];
    sum += closing.price;
    ++count;
  }
  table t;
  for (const auto& [category, sum_count] : sums) t[category] = sum_count.first / sum_count.second;
  return t;
}

// q6's restated query on `events`: per seller, the AVG of the closing prices of its 11 latest
// priced auctions by (dateTime, id), the sum wrapping as Java's long.
table q6_reference(const std::vector<nx::event>& events) {
  std::map<std::int64_t, std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t>> sellers;
  for (const auto& [id, closing] : closing_prices(events))
    sellers[closing.auction->seller][{closing.auction->date_time, id}] = closing.price;
  table t;
  for (const auto& [seller, auctions] : sellers) {
    std::uint64_t sum = 0;
    std::int64_t n = 0;
    for (auto at = auctions.rbegin(); at != auctions.rend() && n < 11; ++at, ++n)
      sum += std::uint64_t(at->second);
    t[seller] = std::int64_t(sum) / n;
  }
  return t;
}

// The graph's rows from one source, per group in the order the sink saw them.
template <class Row, class Query>
std::map<std::int64_t, std::vector<std::int64_t>> run_graph(Query query,
                                                            const std::vector<nx::event>& events) {
  std::map<std::int64_t, std::vector<std::int64_t>> rows;
  auto sink = flow::sink([&](Row& r) { rows[r.table_key()].push_back(r.average); });
  auto shared = std::make_shared<const std::vector<nx::event>>(events);
  flow::graph job(
      flow::pipeline(flow::make_stage<apps::replay_source<nx::event>>(shared, 0, shared->size()),
                     std::move(query), sink));
  job.run();
  return rows;
}

// For 1 to 3 workers: the graph's final table is `expected`, and no group's row repeats its
// previous one.
template <class Row, class MakeQuery>
void expect_graph_table(MakeQuery make_query, const std::vector<nx::event>& events,
                        const table& expected) {
  for (std::size_t workers : {1u, 2u, 3u}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    table got;
    for (const auto& [group, averages] : run_graph<Row>(make_query(workers), events)) {
      got[group] = averages.back();
      for (std::size_t k = 1; k < averages.size(); ++k)
        EXPECT_NE(averages[k], averages[k - 1]) << "group " << group << " row " << k;
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
nx::event sold_auction(std::int64_t id, std::int64_t seller, std::int64_t from, std::int64_t to) {
  nx::event e;
  e.data = nx::auction{id, "item", "about", 1, 2, from, to, seller, 10, "x"};
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
  expect_graph_table<nx::q4_row>(nx::q4, events, expected);
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
  expect_graph_table<nx::q4_row>(nx::q4, events, table{{10, 48}});
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
// --events=50000, parallelism 1 and 2, 2026-11-29: 5 rows, digest 0e486e02; 7,932 updates, the
// one-thread loop's changelog, which at parallelism 2 may differ).
TEST(nexmark_q4, the_one_thread_loop_gives_the_flink_programs_table) {
  const auto events = nx::generate(nx::generator(nx::generator_config{}), 50'000);
  const auto changelog = nx::q4_sequential(events);
  EXPECT_EQ(changelog.size(), 7'932u);
  const auto rows = nx::final_table(changelog);
  EXPECT_EQ(nx::rows_digest(rows), std::make_pair(std::size_t{5}, std::uint64_t{0x0e486e02}));
  EXPECT_EQ(as_map(rows), (table{{10, 37'454'908},
                                 {11, 36'435'943},
                                 {12, 35'039'890},
                                 {13, 33'973'382},
                                 {14, 36'723'475}}));
  EXPECT_EQ(as_map(rows), reference(events));
}

TEST(nexmark_q6, each_sellers_average_over_its_latest_auctions_is_the_references) {
  const auto events = slow_events(6'000);
  const table expected = q6_reference(events);
  // Some seller has more priced auctions than the 11 kept: its oldest are pushed out.
  std::map<std::int64_t, int> priced;
  for (const auto& [id, closing] : closing_prices(events)) ++priced[closing.auction->seller];
  ASSERT_GT(std::max_element(priced.begin(), priced.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; })
                ->second,
            11);
  expect_graph_table<nx::q6_row>(nx::q6, events, expected);
  for (std::size_t n : {0u, 1u, 50u, 777u, 2'000u, 4'321u, 6'000u}) {
    SCOPED_TRACE(std::to_string(n) + " events");
    const std::vector<nx::event> prefix(events.begin(), events.begin() + std::ptrdiff_t(n));
    EXPECT_EQ(as_map(nx::final_table(nx::q6_sequential(prefix))), q6_reference(prefix));
  }
}

// The same 50,000 events: the table the Flink program printed for q6 (2026-11-29, parallelism
// 1 and 2: 430 rows, digest 88735b31b6; 5,297 updates at parallelism 1, the one-thread loop's).
TEST(nexmark_q6, the_one_thread_loop_gives_the_flink_programs_table) {
  const auto events = nx::generate(nx::generator(nx::generator_config{}), 50'000);
  const auto changelog = nx::q6_sequential(events);
  EXPECT_EQ(changelog.size(), 5'297u);
  const auto rows = nx::final_table(changelog);
  EXPECT_EQ(nx::rows_digest(rows), std::make_pair(std::size_t{430}, std::uint64_t{0x88735b31b6}));
  EXPECT_EQ(as_map(rows), q6_reference(events));
}

TEST(nexmark_q6, an_auction_older_than_the_latest_11_or_pushed_out_never_counts) {
  // Seller 7's auctions 2 to 12 (auction i starts at i * 100) close at 10 each.
  std::vector<nx::event> events;
  for (std::int64_t id = 1; id <= 13; ++id) events.push_back(sold_auction(id, 7, id * 100, 5'000));
  for (std::int64_t id = 2; id <= 12; ++id) events.push_back(bid_event(id, 10, 2'000));
  events.push_back(bid_event(1, 1'000, 2'000));  // older than all 11: no row
  events.push_back(bid_event(2, 120, 2'001));    // (10 × 10 + 120) / 11 = 20
  events.push_back(bid_event(13, 10, 2'002));    // pushes auction 2 out: 10
  events.push_back(bid_event(2, 1'000, 2'003));  // pushed out: no row
  events.push_back(sold_auction(14, 8, 0, 10));  // another seller, no bid: no row
  const auto rows = nx::q6_sequential(events);
  std::vector<std::pair<std::int64_t, std::int64_t>> got;
  for (const auto& r : rows) got.emplace_back(r.seller, r.average);
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected = {{7, 10}, {7, 20}, {7, 10}};
  EXPECT_EQ(got, expected);
  EXPECT_EQ(q6_reference(events), (table{{7, 10}}));
  expect_graph_table<nx::q6_row>(nx::q6, events, table{{7, 10}});
  EXPECT_EQ((nx::q6_row{7, 10, 0}).digest(), nx::fold(nx::fold(0, 7), 10));
}

TEST(nexmark_q6, auctions_at_one_time_are_ordered_by_id) {
  // Seller 9's auctions 1 to 12 all start at 100: the 11 latest are 2 to 12, by id.
  std::vector<nx::event> events;
  for (std::int64_t id = 1; id <= 12; ++id) events.push_back(sold_auction(id, 9, 100, 5'000));
  for (std::int64_t id = 12; id >= 2; --id) events.push_back(bid_event(id, 10, 200));
  events.push_back(bid_event(1, 1'000, 201));  // before all 11 (the same time, a lower id)
  events.push_back(bid_event(2, 120, 202));    // (10 × 10 + 120) / 11 = 20
  const auto rows = nx::q6_sequential(events);
  std::vector<std::pair<std::int64_t, std::int64_t>> got;
  for (const auto& r : rows) got.emplace_back(r.seller, r.average);
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected = {{9, 10}, {9, 20}};
  EXPECT_EQ(got, expected);
  EXPECT_EQ(q6_reference(events), (table{{9, 20}}));
  expect_graph_table<nx::q6_row>(nx::q6, events, table{{9, 20}});
}

TEST(nexmark_q4, a_final_table_keeps_each_keys_last_row_in_first_appearance_order) {
  const std::vector<nx::q4_row> changelog = {{2, 1, 0}, {1, 5, 0}, {2, 7, 0}, {3, 4, 0}, {1, 6, 0}};
  const std::vector<nx::q4_row> expected = {{2, 7, 0}, {1, 6, 0}, {3, 4, 0}};
  EXPECT_EQ(nx::final_table(changelog), expected);
}

}  // namespace
