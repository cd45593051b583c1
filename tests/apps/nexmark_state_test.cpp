// Nexmark's queries with state (examples/apps/nexmark: q3, q5, q7, q8, q20) against
// references written apart from them: brute-force loops over the same events that transcribe
// each query's SQL, with event time slowed down (so the input spans many windows) and shuffled
// in groups of 10 (out of order, none late), for 1 to 3 workers; each query's edge cases (ties,
// BETWEEN's inclusive end, a person without an auction, a join's sides far apart in time and
// in either order) on events written by hand; and the benchmark's one-thread loops, against
// the same references.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "../../examples/apps/common/replay_source.hpp"
#include "../../examples/apps/nexmark/generator.hpp"
#include "../../examples/apps/nexmark/windowed_queries.hpp"

namespace flow = spate::flow;
namespace nx = apps::nexmark;

namespace {

// 200 events a second of event time: 30,000 events span 150 s (15 tumbling windows of 10 s).
const nx::generator& slow_generator() {
  static const nx::generator g(
      nx::generator_config{.first_event_rate = 200, .out_of_order_group_size = 10});
  return g;
}
constexpr std::uint64_t window_events = 30'000;

std::vector<nx::event> slow_events() {
  return nx::generate(slow_generator(), window_events);
}

// The query's rows over `events` (or, without them, the slow generator's), sorted by `order`.
template <class Row, class Query, class Order>
std::vector<Row> run_graph(Query query, Order order, const std::vector<nx::event>* events) {
  std::vector<Row> got;
  auto sink = flow::sink([&](Row& r) { got.push_back(std::move(r)); });
  if (events != nullptr) {
    auto shared = std::make_shared<const std::vector<nx::event>>(*events);
    flow::graph job(flow::pipeline(
        flow::make_stage<apps::replay_source<nx::event>>(shared, 0, shared->size()), query, sink));
    job.run();
  } else {
    flow::graph job(flow::pipeline(
        flow::make_stage<nx::generator_source>(slow_generator(), window_events), query, sink));
    job.run();
  }
  std::sort(got.begin(), got.end(), order);
  return got;
}

// For 1 to 3 workers: the graph's rows, sorted, equal the reference's.
template <class Row, class MakeQuery, class Order>
void expect_rows(MakeQuery make_query, std::vector<Row> expected, Order order,
                 const std::vector<nx::event>* events = nullptr) {
  std::sort(expected.begin(), expected.end(), order);
  for (std::size_t workers : {1u, 2u, 3u}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    const std::vector<Row> got = run_graph<Row>(make_query(workers), order, events);
    EXPECT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected) << "the rows differ from the reference";
  }
}

nx::event bid_at(std::int64_t time, std::int64_t auction, std::int64_t price,
                 std::int64_t bidder = 1, std::string extra = "x") {
  nx::event e;
  e.data = nx::bid{auction, bidder, price, "channel", "url", time, std::move(extra)};
  return e;
}

// ---------------------------------------------------------------- q5: hot items

const auto q5_order = [](const nx::q5_row& a, const nx::q5_row& b) {
  return std::tuple(a.start, a.auction, a.num) < std::tuple(b.start, b.auction, b.num);
};

// Every 2 s window of 10 s that holds a bid: each auction's bids counted by scanning all the
// bids, and the auctions at the top.
std::vector<nx::q5_row> q5_reference(const std::vector<nx::event>& events) {
  std::vector<const nx::bid*> bids;
  for (const nx::event& e : events)
    if (const nx::bid* b = e.as_bid()) bids.push_back(b);
  std::int64_t first = bids.front()->date_time, last = first;
  for (const nx::bid* b : bids) {
    first = std::min(first, b->date_time);
    last = std::max(last, b->date_time);
  }
  std::vector<nx::q5_row> rows;
  // From time 0 on: spate's windows start there (q5.hpp); the SQL's HOP would also make the
  // ones before 0 for a bid in the first 8 s.
  for (std::int64_t start = std::max<std::int64_t>(0, first / 2000 * 2000 - 8000); start <= last;
       start += 2000) {
    std::map<std::int64_t, std::int64_t> count;
    for (const nx::bid* b : bids)
      if (b->date_time >= start && b->date_time < start + 10'000) ++count[b->auction];
    std::int64_t top = 0;
    for (const auto& [auction, n] : count) top = std::max(top, n);
    for (const auto& [auction, n] : count)
      if (n == top) rows.push_back({auction, n, start, 0});
  }
  return rows;
}

TEST(nexmark_state, q5_finds_each_sliding_windows_most_bid_auctions) {
  const auto events = slow_events();
  auto expected = q5_reference(events);
  ASSERT_GT(expected.size(), 70u) << "about 75 windows";
  expect_rows<nx::q5_row>([](std::size_t w) { return nx::q5(w); }, expected, q5_order);
}

TEST(nexmark_state, q5_keeps_every_auction_tied_at_the_top) {
  // Bids at base + 1, 1.5, 3, 4, 5 and 10 s on auctions 1, 2, 3, 1, 2, 2 (windows start at
  // time 0 or later: the base keeps the earliest ones whole).
  constexpr std::int64_t base = 100'000;
  const std::vector<nx::event> events = {bid_at(base + 1000, 1, 5), bid_at(base + 1500, 2, 5),
                                         bid_at(base + 3000, 3, 5), bid_at(base + 4000, 1, 5),
                                         bid_at(base + 5000, 2, 5), bid_at(base + 10'000, 2, 5)};
  std::vector<nx::q5_row> by_hand = {
      {1, 1, base - 8000, 0}, {2, 1, base - 8000, 0},                          // 1 and 2 once
      {1, 1, base - 6000, 0}, {2, 1, base - 6000, 0}, {3, 1, base - 6000, 0},  // three once
      {1, 2, base - 4000, 0}, {2, 2, base - 4000, 0},                          // 1 and 2 twice
      {1, 2, base - 2000, 0}, {2, 2, base - 2000, 0}, {1, 2, base, 0},
      {2, 2, base, 0},        {2, 2, base + 2000, 0}, {2, 2, base + 4000, 0},  // 2 alone
      {2, 1, base + 6000, 0}, {2, 1, base + 8000, 0}, {2, 1, base + 10'000, 0}};
  auto expected = q5_reference(events);
  std::sort(by_hand.begin(), by_hand.end(), q5_order);
  std::sort(expected.begin(), expected.end(), q5_order);
  EXPECT_TRUE(by_hand == expected) << "the reference disagrees with the hand count";
  expect_rows<nx::q5_row>([](std::size_t w) { return nx::q5(w); }, expected, q5_order, &events);
}

// ---------------------------------------------------------------- q7: highest bid

const auto q7_order = [](const nx::q7_row& a, const nx::q7_row& b) {
  return std::tie(a.date_time, a.auction, a.bidder, a.price, a.extra) <
         std::tie(b.date_time, b.auction, b.bidder, b.price, b.extra);
};

// Each 10 s window's highest price, then every bid at that price within [start, end] —
// both ends, as BETWEEN — once per window it matches.
std::vector<nx::q7_row> q7_reference(const std::vector<nx::event>& events) {
  std::map<std::int64_t, std::int64_t> highest;  // window start → price
  for (const nx::event& e : events)
    if (const nx::bid* b = e.as_bid()) {
      const std::int64_t start = b->date_time / 10'000 * 10'000;
      highest[start] = std::max(highest.count(start) ? highest[start] : -1, b->price);
    }
  std::vector<nx::q7_row> rows;
  for (const auto& [start, price] : highest)
    for (const nx::event& e : events)
      if (const nx::bid* b = e.as_bid())
        if (b->price == price && b->date_time >= start && b->date_time <= start + 10'000)
          rows.push_back({b->auction, b->price, b->bidder, b->date_time, b->extra, 0});
  return rows;
}

TEST(nexmark_state, q7_finds_each_tumbling_windows_highest_bids) {
  const auto events = slow_events();
  const auto expected = q7_reference(events);
  ASSERT_GE(expected.size(), 15u) << "15 windows, one row each at least";
  expect_rows<nx::q7_row>([](std::size_t w) { return nx::q7(w); }, expected, q7_order);
}

TEST(nexmark_state, q7_matches_a_bid_at_a_windows_end_and_every_tie) {
  // [0, 10 s): highest 100, twice; the bid at exactly 10 s (window [10 s, 20 s), whose highest
  // is 300) matches [0, 10 s]'s 100 too. [30 s, 40 s) follows an empty window: its bid at
  // 30 s is only its own.
  const std::vector<nx::event> events = {
      bid_at(5000, 1, 100, 1, "a"),   bid_at(7000, 2, 100, 2, "b"),
      bid_at(9000, 3, 50, 3, "c"),    bid_at(10'000, 4, 100, 4, "d"),
      bid_at(12'000, 5, 300, 5, "e"), bid_at(30'000, 6, 300, 6, "f"),
      bid_at(31'000, 7, 20, 7, "g")};
  const auto expected = q7_reference(events);
  std::vector<std::string> extras;
  for (const nx::q7_row& r : expected) extras.push_back(r.extra);
  std::sort(extras.begin(), extras.end());
  EXPECT_EQ(extras, (std::vector<std::string>{"a", "b", "d", "e", "f"}));
  expect_rows<nx::q7_row>([](std::size_t w) { return nx::q7(w); }, expected, q7_order, &events);
}

// ---------------------------------------------------------------- q8: monitor new users

const auto q8_order = [](const nx::q8_row& a, const nx::q8_row& b) {
  return std::tie(a.start, a.id, a.name) < std::tie(b.start, b.id, b.name);
};

// Each person whose id is the seller of an auction in the person's 10 s window.
std::vector<nx::q8_row> q8_reference(const std::vector<nx::event>& events) {
  std::set<std::pair<std::int64_t, std::int64_t>> sold;  // (window start, seller)
  for (const nx::event& e : events)
    if (const nx::auction* a = e.as_auction())
      sold.insert({a->date_time / 10'000 * 10'000, a->seller});
  std::set<std::tuple<std::int64_t, std::int64_t, std::string>> rows;
  for (const nx::event& e : events)
    if (const nx::person* p = e.as_person()) {
      const std::int64_t start = p->date_time / 10'000 * 10'000;
      if (sold.count({start, p->id})) rows.insert({start, p->id, p->name});
    }
  std::vector<nx::q8_row> out;
  for (const auto& [start, id, name] : rows) out.push_back({id, name, start, 0});
  return out;
}

TEST(nexmark_state, q8_finds_the_people_who_sell_in_their_first_window) {
  const auto events = slow_events();
  const auto expected = q8_reference(events);
  ASSERT_GT(expected.size(), 10u);
  expect_rows<nx::q8_row>([](std::size_t w) { return nx::q8(w); }, expected, q8_order);
}

TEST(nexmark_state, q8_needs_person_and_auction_in_one_window) {
  const auto person_at = [](std::int64_t time, std::int64_t id, std::string name) {
    nx::event e;
    e.data = nx::person{id, std::move(name), "e@x", "c", "city", "OR", time, "x"};
    return e;
  };
  const auto auction_at = [](std::int64_t time, std::int64_t seller) {
    nx::event e;
    e.data = nx::auction{1, "item", "d", 1, 2, time, time + 1, seller, 10, "x"};
    return e;
  };
  // 7 sells in its window (twice: one row; its person event comes twice: a GROUP BY's one
  // row); 8's auction comes a window late; 9 never sells.
  const std::vector<nx::event> events = {
      person_at(1000, 7, "ann"), person_at(1200, 7, "ann"),   person_at(2000, 8, "bob"),
      auction_at(3000, 7),       auction_at(9000, 7),         person_at(4000, 9, "cy"),
      auction_at(10'000, 8),     person_at(15'000, 10, "di"), auction_at(19'999, 10)};
  const auto expected = q8_reference(events);
  ASSERT_EQ(expected.size(), 2u);
  EXPECT_EQ(expected[0].name, "ann");
  EXPECT_EQ(expected[1].name, "di");
  expect_rows<nx::q8_row>([](std::size_t w) { return nx::q8(w); }, expected, q8_order, &events);
}

// ---------------------------------------------------------------- q3, q20: regular joins

const auto q3_order = [](const nx::q3_row& a, const nx::q3_row& b) {
  return std::tie(a.id, a.name, a.city, a.state) < std::tie(b.id, b.name, b.city, b.state);
};

// Every pair of a person in OR, ID or CA and an auction of category 10 that person sells.
std::vector<nx::q3_row> q3_reference(const std::vector<nx::event>& events) {
  std::vector<nx::q3_row> rows;
  for (const nx::event& pe : events) {
    const nx::person* p = pe.as_person();
    if (p == nullptr || (p->state != "OR" && p->state != "ID" && p->state != "CA")) continue;
    for (const nx::event& ae : events)
      if (const nx::auction* a = ae.as_auction(); a && a->category == 10 && a->seller == p->id)
        rows.push_back({p->name, p->city, p->state, a->id, 0});
  }
  return rows;
}

TEST(nexmark_state, q3_joins_local_sellers_with_their_category_10_auctions) {
  const auto events = slow_events();
  const auto expected = q3_reference(events);
  ASSERT_GT(expected.size(), 20u);
  expect_rows<nx::q3_row>([](std::size_t w) { return nx::q3(w); }, expected, q3_order);
}

const auto q20_order = [](const nx::q20_row& a, const nx::q20_row& b) {
  return a.fields() < b.fields();
};

// Every pair of a bid and its auction, when that is of category 10.
std::vector<nx::q20_row> q20_reference(const std::vector<nx::event>& events) {
  std::vector<nx::q20_row> rows;
  for (const nx::event& ae : events) {
    const nx::auction* a = ae.as_auction();
    if (a == nullptr || a->category != 10) continue;
    for (const nx::event& be : events)
      if (const nx::bid* b = be.as_bid(); b && b->auction == a->id)
        rows.push_back(
            {std::make_shared<const nx::bid>(*b), std::make_shared<const nx::auction>(*a), 0});
  }
  return rows;
}

TEST(nexmark_state, q20_expands_each_bid_on_a_category_10_auction) {
  const auto events = slow_events();
  const auto expected = q20_reference(events);
  ASSERT_GT(expected.size(), 1000u);
  expect_rows<nx::q20_row>([](std::size_t w) { return nx::q20(w); }, expected, q20_order);
}

TEST(nexmark_state, a_regular_join_matches_whichever_side_comes_first_and_whenever) {
  nx::event seller, sold, early_bid;
  seller.data = nx::person{7, "ann", "e@x", "c", "Bend", "OR", 50'000, "x"};
  sold.data = nx::auction{3, "item", "d", 1, 2, 1'000, 2'000, 7, 10, "x"};  // long before
  early_bid.data = nx::bid{3, 9, 100, "c", "u", 900'000, "late but kept"};  // long after
  // The auction comes after its bid (arrival order), 49 s before its seller (event time).
  const std::vector<nx::event> events = {early_bid, sold, seller};
  const auto q3_expected = q3_reference(events);
  ASSERT_EQ(q3_expected.size(), 1u);
  expect_rows<nx::q3_row>([](std::size_t w) { return nx::q3(w); }, q3_expected, q3_order, &events);
  const auto q20_expected = q20_reference(events);
  ASSERT_EQ(q20_expected.size(), 1u);
  expect_rows<nx::q20_row>([](std::size_t w) { return nx::q20(w); }, q20_expected, q20_order,
                           &events);
}

// ---------------------------------------------------------------- the benchmark's loops

template <class Row, class Order>
void expect_same_rows(std::vector<Row> got, std::vector<Row> expected, Order order,
                      const char* query) {
  std::sort(got.begin(), got.end(), order);
  std::sort(expected.begin(), expected.end(), order);
  EXPECT_TRUE(got == expected) << query << "'s one-thread loop differs from the reference";
}

TEST(nexmark_state, the_benchmarks_one_thread_loops_give_the_references_rows) {
  // In time order (the loops refuse late input): the generator without shuffled groups.
  const auto events =
      nx::generate(nx::generator(nx::generator_config{.first_event_rate = 200}), window_events);
  expect_same_rows(nx::q5_sequential(events), q5_reference(events), q5_order, "q5");
  expect_same_rows(nx::q7_sequential(events), q7_reference(events), q7_order, "q7");
  expect_same_rows(nx::q8_sequential(events), q8_reference(events), q8_order, "q8");
  expect_same_rows(nx::q3_sequential(events), q3_reference(events), q3_order, "q3");
  expect_same_rows(nx::q20_sequential(events), q20_reference(events), q20_order, "q20");
  std::vector<nx::event> late = {bid_at(10'000, 1, 1), bid_at(6000, 1, 1)};
  EXPECT_THROW(nx::q5_sequential(late), std::invalid_argument) << "4 s behind the newest";
  EXPECT_THROW(nx::q7_sequential(late), std::invalid_argument);
  EXPECT_THROW(nx::q11_sequential(late), std::invalid_argument);
  nx::event person_late, person_before_0;
  person_late.data = nx::person{1, "a", "e", "c", "x", "OR", 10'000, ""};
  person_before_0.data = nx::person{2, "b", "e", "c", "x", "OR", -1, ""};
  std::vector<nx::event> persons_late = {person_late, person_late};
  std::get<nx::person>(persons_late[1].data).date_time = 6000;
  EXPECT_THROW(nx::q8_sequential(persons_late), std::invalid_argument);
  EXPECT_NO_THROW(nx::q8_sequential({person_late, late[1]})) << "a bid does not count for q8";
  EXPECT_THROW(nx::q5_sequential({bid_at(-1, 1, 1)}), std::invalid_argument) << "before time 0";
  EXPECT_THROW(nx::q8_sequential({person_before_0}), std::invalid_argument);
  EXPECT_THROW(nx::q3_sequential({person_before_0}), std::invalid_argument);
  EXPECT_THROW(nx::q20_sequential({bid_at(-1, 1, 1)}), std::invalid_argument);
  EXPECT_NO_THROW(nx::q20_sequential({bid_at(900'000, 1, 1), bid_at(1, 1, 1)}))
      << "a regular join has no lateness";
}

}  // namespace
