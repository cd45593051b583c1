// Nexmark's updating queries (examples/apps/nexmark: q9 in q9.hpp; q15, q16, q17 in
// aggregate_queries.hpp; q18, q19 in rank_queries.hpp) against references written apart from
// them: brute-force loops that, for each bid, recompute its group's whole result from every bid
// before it (the SQL's GROUP BY or ROW_NUMBER over the input so far), with event time slowed
// down so that the input spans several days and shuffled in groups of 10 (so q18 meets older
// bids and q9 bids that came before their auction); for 1 to 3 workers, each group's rows in
// the reference's order; prices on the rank boundaries, ranking ties and the ends of an
// auction's span on events written by hand; the rows' digests, field by field and, for the
// first 50,000 events of the default generator, as the Flink program printed them; and the
// benchmark's one-thread loops, against the same references.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "../../examples/apps/common/replay_source.hpp"
#include "../../examples/apps/nexmark/aggregate_queries.hpp"
#include "../../examples/apps/nexmark/generator.hpp"
#include "../../examples/apps/nexmark/q9.hpp"
#include "../../examples/apps/nexmark/rank_queries.hpp"

namespace flow = spate::flow;
namespace nx = apps::nexmark;

namespace {

// One event every 50 s of event time: 4,000 events span 2.3 days from midnight.
std::vector<nx::event> slow_events() {
  static const nx::generator g(
      nx::generator_config{.first_event_rate = 0.02, .out_of_order_group_size = 10});
  return nx::generate(g, 4'000);
}

std::vector<nx::bid> bids_of(const std::vector<nx::event>& events) {
  std::vector<nx::bid> bids;
  for (const nx::event& e : events)
    if (const nx::bid* b = e.as_bid()) bids.push_back(*b);
  return bids;
}

constexpr std::int64_t day_ms = 86'400'000;
std::int64_t day_by_division(std::int64_t t) {
  return t / day_ms;  // the tests' times are after 1970
}
int rank_by_comparison(std::int64_t price) {
  if (price < 10'000) return 1;
  if (price < 1'000'000) return 2;
  return 3;
}

// The rows the graph gives for `events` from one source: for each group (by `group_of`), its
// rows in the order the sink saw them.
template <class Row, class Query, class GroupOf>
auto run_graph(Query query, const std::vector<nx::event>& events, GroupOf group_of) {
  std::map<decltype(group_of(std::declval<const Row&>())), std::vector<Row>> rows;
  auto sink = flow::sink([&](Row& r) { rows[group_of(r)].push_back(std::move(r)); });
  auto shared = std::make_shared<const std::vector<nx::event>>(events);
  flow::graph job(flow::pipeline(
      flow::make_stage<apps::replay_source<nx::event>>(shared, 0, shared->size()), query, sink));
  job.run();
  return rows;
}

// For 1 to 3 workers: each group's rows, in order, are the reference's.
template <class Row, class MakeQuery, class GroupOf>
void expect_rows(MakeQuery make_query, const std::vector<Row>& expected, GroupOf group_of,
                 const std::vector<nx::event>& events) {
  std::map<decltype(group_of(std::declval<const Row&>())), std::vector<Row>> by_group;
  for (const Row& r : expected) by_group[group_of(r)].push_back(r);
  ASSERT_FALSE(expected.empty());
  for (std::size_t workers : {1u, 2u, 3u}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    const auto got = run_graph<Row>(make_query(workers), events, group_of);
    EXPECT_EQ(got.size(), by_group.size()) << "groups";
    for (const auto& [group, rows] : by_group) {
      const auto found = got.find(group);
      ASSERT_NE(found, got.end()) << "a group has no rows";
      EXPECT_EQ(found->second.size(), rows.size()) << "a group's rows";
      EXPECT_TRUE(found->second == rows) << "a group's rows differ from the reference's";
    }
  }
}

// ---------------------------------------------------------------- q15, q16, q17

// COUNT(*), COUNT(DISTINCT bidder), COUNT(DISTINCT auction) over `bids`, all and per rank.
nx::bid_counts counts_of(const std::vector<const nx::bid*>& bids) {
  nx::bid_counts c;
  std::set<std::int64_t> bidders[4], auctions[4];
  for (const nx::bid* b : bids) {
    for (int k : {0, rank_by_comparison(b->price)}) {
      ++c.bids[std::size_t(k)];
      bidders[k].insert(b->bidder);
      auctions[k].insert(b->auction);
    }
  }
  for (std::size_t k = 0; k < 4; ++k) {
    c.bidders[k] = std::int64_t(bidders[k].size());
    c.auctions[k] = std::int64_t(auctions[k].size());
  }
  return c;
}

// For each bid, the bids so far of its group (by `same_group(earlier, bid)`), itself last.
template <class SameGroup>
std::vector<std::vector<const nx::bid*>> groups_so_far(const std::vector<nx::bid>& bids,
                                                       SameGroup same_group) {
  std::vector<std::vector<const nx::bid*>> so_far;
  for (std::size_t i = 0; i < bids.size(); ++i) {
    std::vector<const nx::bid*> group;
    for (std::size_t j = 0; j <= i; ++j)
      if (same_group(bids[j], bids[i])) group.push_back(&bids[j]);
    so_far.push_back(std::move(group));
  }
  return so_far;
}

std::vector<nx::q15_row> q15_reference(const std::vector<nx::event>& events) {
  const std::vector<nx::bid> bids = bids_of(events);
  const auto so_far = groups_so_far(bids, [](const nx::bid& a, const nx::bid& b) {
    return day_by_division(a.date_time) == day_by_division(b.date_time);
  });
  std::vector<nx::q15_row> rows;
  for (std::size_t i = 0; i < bids.size(); ++i)
    rows.push_back({day_by_division(bids[i].date_time), counts_of(so_far[i]), 0});
  return rows;
}
const auto q15_group = [](const nx::q15_row& r) { return r.day; };

TEST(nexmark_updates, q15_counts_each_days_bids_bidders_and_auctions_per_rank) {
  const auto events = slow_events();
  const auto expected = q15_reference(events);
  std::set<std::int64_t> days;
  for (const auto& r : expected) days.insert(r.day);
  ASSERT_GE(days.size(), 3u) << "the input spans several days";
  expect_rows<nx::q15_row>(nx::q15, expected, q15_group, events);
}

std::vector<nx::q16_row> q16_reference(const std::vector<nx::event>& events) {
  const std::vector<nx::bid> bids = bids_of(events);
  const auto so_far = groups_so_far(bids, [](const nx::bid& a, const nx::bid& b) {
    return a.channel == b.channel && day_by_division(a.date_time) == day_by_division(b.date_time);
  });
  std::vector<nx::q16_row> rows;
  for (std::size_t i = 0; i < bids.size(); ++i) {
    std::int64_t minute = 0;  // MAX(DATE_FORMAT(dateTime, 'HH:mm')), as a number
    for (const nx::bid* b : so_far[i])
      minute = std::max(
          minute, (b->date_time % day_ms) / 3'600'000 * 60 + (b->date_time % 3'600'000) / 60'000);
    rows.push_back(
        {bids[i].channel, day_by_division(bids[i].date_time), minute, counts_of(so_far[i]), 0});
  }
  return rows;
}
const auto q16_group = [](const nx::q16_row& r) { return std::make_pair(r.channel, r.day); };

TEST(nexmark_updates, q16_counts_per_channel_and_day_with_the_latest_minute) {
  const auto events = slow_events();
  const auto expected = q16_reference(events);
  std::set<std::int64_t> minutes;
  for (const auto& r : expected) minutes.insert(r.minute);
  ASSERT_GE(minutes.size(), 100u);
  expect_rows<nx::q16_row>(nx::q16, expected, q16_group, events);
}

std::vector<nx::q17_row> q17_reference(const std::vector<nx::event>& events) {
  const std::vector<nx::bid> bids = bids_of(events);
  const auto so_far = groups_so_far(bids, [](const nx::bid& a, const nx::bid& b) {
    return a.auction == b.auction && day_by_division(a.date_time) == day_by_division(b.date_time);
  });
  std::vector<nx::q17_row> rows;
  for (std::size_t i = 0; i < bids.size(); ++i) {
    nx::q17_row r{bids[i].auction, day_by_division(bids[i].date_time), {}, 0};
    r.stats.min = r.stats.max = bids[i].price;
    for (const nx::bid* b : so_far[i]) {
      ++r.stats.bids[0];
      ++r.stats.bids[std::size_t(rank_by_comparison(b->price))];
      r.stats.min = std::min(r.stats.min, b->price);
      r.stats.max = std::max(r.stats.max, b->price);
      r.stats.sum += b->price;
    }
    rows.push_back(r);
  }
  return rows;
}
const auto q17_group = [](const nx::q17_row& r) { return std::make_pair(r.auction, r.day); };

TEST(nexmark_updates, q17_keeps_each_auctions_daily_price_statistics) {
  const auto events = slow_events();
  expect_rows<nx::q17_row>(nx::q17, q17_reference(events), q17_group, events);
}

nx::event bid_event(std::int64_t auction, std::int64_t bidder, std::int64_t price,
                    std::int64_t time, std::string channel = "c") {
  nx::event e;
  e.data = nx::bid{auction, bidder, price, std::move(channel), "url", time, "x"};
  return e;
}

TEST(nexmark_updates, the_aggregates_rank_prices_on_their_boundaries_and_split_days_at_midnight) {
  // 9,999 rank 1; 10,000 and 999,999 rank 2; 1,000,000 rank 3. The last bid is a day later
  // (a new group); the one before it is 1 ms before midnight.
  const std::vector<nx::event> events = {
      bid_event(1, 7, 9'999, day_ms + 5), bid_event(1, 8, 10'000, day_ms + 60'000),
      bid_event(2, 7, 999'999, day_ms + 120'000), bid_event(1, 7, 1'000'000, 2 * day_ms - 1),
      bid_event(1, 7, 3, 2 * day_ms)};
  const auto q15 = nx::q15_sequential(events);
  ASSERT_EQ(q15.size(), 5u);
  const nx::bid_counts& full = q15[3].counts;
  EXPECT_EQ(full.bids, (std::array<std::int64_t, 4>{4, 1, 2, 1}));
  EXPECT_EQ(full.bidders, (std::array<std::int64_t, 4>{2, 1, 2, 1}));
  EXPECT_EQ(full.auctions, (std::array<std::int64_t, 4>{2, 1, 2, 1}));
  EXPECT_EQ(q15[4].day, 2);
  EXPECT_EQ(q15[4].counts.bids, (std::array<std::int64_t, 4>{1, 1, 0, 0}));
  EXPECT_EQ(q15, q15_reference(events));
  const auto q16 = nx::q16_sequential(events);
  EXPECT_EQ(q16[3].minute, 23 * 60 + 59);
  EXPECT_EQ(q16[4].minute, 0);
  EXPECT_EQ(q16, q16_reference(events));
  const auto q17 = nx::q17_sequential(events);
  EXPECT_EQ(q17[3].stats.min, 9'999);
  EXPECT_EQ(q17[3].stats.max, 1'000'000);
  EXPECT_EQ(q17[3].average(), (9'999 + 10'000 + 1'000'000) / 3);
  EXPECT_EQ(q17, q17_reference(events));
  expect_rows<nx::q15_row>(nx::q15, q15_reference(events), q15_group, events);
  expect_rows<nx::q16_row>(nx::q16, q16_reference(events), q16_group, events);
  expect_rows<nx::q17_row>(nx::q17, q17_reference(events), q17_group, events);
}

TEST(nexmark_updates, days_and_minutes_round_down_for_every_time) {
  EXPECT_EQ(nx::day_of(0), 0);
  EXPECT_EQ(nx::day_of(day_ms - 1), 0);
  EXPECT_EQ(nx::day_of(-1), -1);
  EXPECT_EQ(nx::minute_of_day(-1), 1439);
  EXPECT_EQ(nx::day_of(-day_ms), -1);
  EXPECT_EQ(nx::minute_of_day(-day_ms), 0);
  EXPECT_EQ(nx::day_of(-day_ms - 1), -2);
  const std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  const std::int64_t highest = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(nx::day_of(lowest), -106'751'991'168);  // Math.floorDiv(Long.MIN_VALUE, 86400000)
  EXPECT_EQ(nx::minute_of_day(lowest), 1'007);      // Math.floorMod(...) / 60000
  EXPECT_EQ(nx::day_of(highest), 106'751'991'167);
  EXPECT_EQ(nx::minute_of_day(highest), 432);
}

// The rows' digests, folded here field by field in the order the Flink program folds them
// (bench/flink/NexmarkUpdating.java): h * 1,000,003 + v, wrapping.
// FNV-1a 64 of a text's bytes, as the Flink program hashes a text's chars.
std::int64_t fnv1a(std::string_view text) {
  std::uint64_t h = 14'695'981'039'346'656'037u;
  for (unsigned char c : text) h = (h ^ c) * 1'099'511'628'211u;
  return std::int64_t(h);
}
std::uint64_t folded(std::initializer_list<std::int64_t> values) {
  std::uint64_t h = 0;
  for (std::int64_t v : values) h = h * 1'000'003u + std::uint64_t(v);
  return h;
}

TEST(nexmark_updates, each_rows_digest_folds_its_fields_in_the_flink_programs_order) {
  nx::bid_counts c;
  c.bids = {9, 2, 3, 4};
  c.bidders = {8, 1, 2, 3};
  c.auctions = {7, 1, 1, 1};
  EXPECT_EQ((nx::q15_row{5, c, 0}).digest(), folded({5, 9, 2, 3, 4, 8, 1, 2, 3, 7, 1, 1, 1}));
  EXPECT_EQ((nx::q16_row{"ch", 5, 61, c, 0}).digest(),
            folded({fnv1a("ch"), 5, 61, 9, 2, 3, 4, 8, 1, 2, 3, 7, 1, 1, 1}));
  nx::price_stats p;
  p.bids = {3, 1, 1, 1};
  p.min = 5;
  p.max = 2'000'000;
  p.sum = 2'020'005;
  EXPECT_EQ((nx::q17_row{11, 5, p, 0}).digest(),
            folded({11, 5, 3, 1, 1, 1, 5, 2'000'000, 673'335, 2'020'005}));
  EXPECT_EQ((nx::q18_row{1, 2, 3, "c", "u", 4, "e", 0}).digest(),
            folded({1, 2, 3, fnv1a("c"), fnv1a("u"), 4, fnv1a("e")}));
  EXPECT_EQ((nx::q19_row{1, {2, 3, 4}, 5, 0}).digest(), folded({1, 2, 3, 4, 5}));
}

// The first 50,000 events of the default generator (`nexmark generate --events 50000`): the
// rows and digests the Flink program printed for them (tools/flink/run-nexmark ... --events=50000,
// parallelism 1 and 2, 2026-11-29), so a digest that drifted from Flink's fails here.
TEST(nexmark_updates, the_one_thread_loops_give_the_flink_programs_digests) {
  const auto events = nx::generate(nx::generator(nx::generator_config{}), 50'000);
  using expected = std::pair<std::size_t, std::uint64_t>;
  EXPECT_EQ(nx::rows_digest(nx::q15_sequential(events)), expected(46'000, 0x8b8374b7a1a24b40));
  EXPECT_EQ(nx::rows_digest(nx::q16_sequential(events)), expected(46'000, 0x5ea893ed9afa7af6));
  EXPECT_EQ(nx::rows_digest(nx::q17_sequential(events)), expected(46'000, 0x255bff9e2d0e9264));
  EXPECT_EQ(nx::rows_digest(nx::q18_sequential(events)), expected(46'000, 0x2b091f2058cce9f4));
  EXPECT_EQ(nx::rows_digest(nx::q19_sequential(events)), expected(73'387, 0xd7d8294a68591694));
  EXPECT_EQ(nx::rows_digest(nx::q9_sequential(events)), expected(7'942, 0x5f070ad6df48b732));
}

// What a checkpoint writes of q16's state: its key and its distinct values, through their codecs.
TEST(nexmark_updates, q16s_key_and_distinct_values_round_trip_through_their_codecs) {
  namespace state = spate::state;
  const nx::channel_day key{"channel-7", 3};
  EXPECT_EQ(state::from_bytes<nx::channel_day>(state::to_bytes(key)), key);
  nx::distinct_seen seen;
  nx::bid_counts counts;
  seen.add(1, 2, 5, counts);
  seen.add(3, 2, 2'000'000, counts);
  const auto back = state::from_bytes<nx::distinct_seen>(state::to_bytes(seen));
  EXPECT_EQ(back.bidders, seen.bidders);
  EXPECT_EQ(back.auctions, seen.auctions);
  EXPECT_EQ(counts.auctions, (std::array<std::int64_t, 4>{1, 1, 0, 1}));
}

// ---------------------------------------------------------------- q18, q19

std::vector<nx::q18_row> q18_reference(const std::vector<nx::event>& events) {
  const std::vector<nx::bid> bids = bids_of(events);
  std::vector<nx::q18_row> rows;
  for (std::size_t i = 0; i < bids.size(); ++i) {
    const nx::bid& b = bids[i];
    // ROW_NUMBER() ... ORDER BY dateTime DESC is 1 for b when no earlier bid of the partition
    // is later than it (of equal times, the last to come is kept)
    bool last = true;
    for (std::size_t j = 0; j < i; ++j)
      last = last && !(bids[j].bidder == b.bidder && bids[j].auction == b.auction &&
                       bids[j].date_time > b.date_time);
    if (last)
      rows.push_back({b.auction, b.bidder, b.price, b.channel, b.url, b.date_time, b.extra});
  }
  return rows;
}
const auto q18_group = [](const nx::q18_row& r) { return std::make_pair(r.bidder, r.auction); };

TEST(nexmark_updates, q18_emits_each_bid_that_is_its_bidder_and_auctions_latest) {
  const auto events = slow_events();
  const auto expected = q18_reference(events);
  ASSERT_LT(expected.size(), bids_of(events).size()) << "some bids come after a later one";
  expect_rows<nx::q18_row>(nx::q18, expected, q18_group, events);
}

// Each bid's auction's top 10 before and after it (stable by arrival among equal prices), and a
// row for every rank whose bid changed.
std::vector<nx::q19_row> q19_reference(const std::vector<nx::event>& events) {
  const std::vector<nx::bid> bids = bids_of(events);
  const auto top_of = [&](std::int64_t auction, std::size_t end) {
    std::vector<std::size_t> at;
    for (std::size_t j = 0; j < end; ++j)
      if (bids[j].auction == auction) at.push_back(j);
    std::stable_sort(at.begin(), at.end(),
                     [&](std::size_t a, std::size_t b) { return bids[a].price > bids[b].price; });
    if (at.size() > 10) at.resize(10);
    return at;
  };
  std::vector<nx::q19_row> rows;
  for (std::size_t i = 0; i < bids.size(); ++i) {
    const auto before = top_of(bids[i].auction, i), after = top_of(bids[i].auction, i + 1);
    for (std::size_t r = 0; r < after.size(); ++r) {
      if (r < before.size() && before[r] == after[r]) continue;
      const nx::bid& b = bids[after[r]];
      rows.push_back({b.auction, {b.bidder, b.price, b.date_time}, std::int64_t(r + 1), 0});
    }
  }
  return rows;
}
const auto q19_group = [](const nx::q19_row& r) { return r.auction; };

TEST(nexmark_updates, q19_keeps_each_auctions_ten_highest_bids_and_updates_the_ranks_that_move) {
  const auto events = slow_events();
  const auto expected = q19_reference(events);
  std::int64_t deepest = 0;
  for (const auto& r : expected) deepest = std::max(deepest, r.rank);
  ASSERT_EQ(deepest, 10) << "some auction has more than ten bids";
  expect_rows<nx::q19_row>(nx::q19, expected, q19_group, events);
}

TEST(nexmark_updates, q19_ranks_the_earlier_of_equal_prices_first_and_drops_the_eleventh) {
  std::vector<nx::event> events;
  for (std::int64_t k = 0; k < 10; ++k) events.push_back(bid_event(5, 100 + k, 50, k));
  events.push_back(bid_event(5, 200, 50, 10));  // ties the 10th: does not enter
  events.push_back(bid_event(5, 201, 60, 11));  // enters first; bidder 109 drops out
  events.push_back(bid_event(5, 202, 50, 12));  // ties the new 10th (108): does not enter
  const auto rows = nx::q19_sequential(events);
  ASSERT_EQ(rows.size(), 10u + 10u);
  for (std::size_t k = 0; k < 10; ++k) EXPECT_EQ(rows[k].rank, std::int64_t(k) + 1);
  EXPECT_EQ(rows[10].bid.bidder, 201);
  EXPECT_EQ(rows[10].rank, 1);
  EXPECT_EQ(rows[19].bid.bidder, 108);
  EXPECT_EQ(rows[19].rank, 10);
  EXPECT_EQ(rows, q19_reference(events));
  expect_rows<nx::q19_row>(nx::q19, rows, q19_group, events);
}

TEST(nexmark_updates, q18_keeps_the_later_arrival_of_equal_times) {
  const std::vector<nx::event> events = {bid_event(1, 2, 10, 100), bid_event(1, 2, 11, 50),
                                         bid_event(1, 2, 12, 100), bid_event(3, 2, 13, 0)};
  const auto rows = nx::q18_sequential(events);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].price, 12);
  EXPECT_EQ(rows[2].auction, 3);
  EXPECT_EQ(rows, q18_reference(events));
  expect_rows<nx::q18_row>(nx::q18, rows, q18_group, events);
}

// ---------------------------------------------------------------- q9

// For each auction, its matching bids (its id, a time within [dateTime, expires]) in the order
// they came, whether before or after it; the k-th is a row when it alone tops ROW_NUMBER's
// order (price descending, time ascending, then arrival) over the first k, and the first k - 1
// had another top.
std::vector<nx::q9_row> q9_reference(const std::vector<nx::event>& events) {
  std::vector<nx::q9_row> rows;
  std::set<std::int64_t> seen;  // an id's first auction is the one (the generator repeats none)
  for (const nx::event& e : events) {
    const nx::auction* a = e.as_auction();
    if (a == nullptr || !seen.insert(a->id).second) continue;
    std::vector<const nx::bid*> matching;
    for (const nx::event& other : events) {
      const nx::bid* b = other.as_bid();
      if (b != nullptr && b->auction == a->id && b->date_time >= a->date_time &&
          b->date_time <= a->expires)
        matching.push_back(b);
    }
    const auto top_of = [&](std::size_t k) {
      std::vector<const nx::bid*> first(matching.begin(), matching.begin() + std::ptrdiff_t(k));
      std::stable_sort(first.begin(), first.end(), [](const nx::bid* x, const nx::bid* y) {
        return x->price != y->price ? x->price > y->price : x->date_time < y->date_time;
      });
      return first.front();
    };
    for (std::size_t k = 1; k <= matching.size(); ++k) {
      const nx::bid* top = top_of(k);
      if (k > 1 && top == top_of(k - 1)) continue;
      rows.push_back({*a, top->bidder, top->price, top->date_time, top->extra, 0});
    }
  }
  return rows;
}
const auto q9_group = [](const nx::q9_row& r) { return r.a.id; };

TEST(nexmark_updates, q9_follows_each_auctions_winning_bid) {
  const auto events = slow_events();
  const auto expected = q9_reference(events);
  std::set<std::int64_t> auctions;
  for (const auto& r : expected) auctions.insert(r.a.id);
  ASSERT_LT(auctions.size(), expected.size()) << "some auction's winner changes";
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> spans;
  std::size_t early_matches = 0;  // bids that came before their auction and fall in its span
  for (auto at = events.rbegin(); at != events.rend(); ++at) {
    if (const nx::auction* a = at->as_auction()) spans[a->id] = {a->date_time, a->expires};
    const nx::bid* b = at->as_bid();
    if (b == nullptr) continue;
    const auto span = spans.find(b->auction);
    early_matches += span != spans.end() && b->date_time >= span->second.first &&
                     b->date_time <= span->second.second;
  }
  ASSERT_GT(early_matches, 0u);
  expect_rows<nx::q9_row>(nx::q9, expected, q9_group, events);
}

nx::event auction_event(std::int64_t id, std::int64_t from, std::int64_t to) {
  nx::event e;
  e.data = nx::auction{id, "item", "about", 1, 2, from, to, 7, 10, "x"};
  return e;
}

nx::event q9_bid(std::int64_t auction, std::int64_t bidder, std::int64_t price, std::int64_t time) {
  nx::event e = bid_event(auction, bidder, price, time);
  std::get<nx::bid>(e.data).extra = "extra-" + std::to_string(bidder);
  return e;
}

TEST(nexmark_updates, q9_takes_bids_that_came_first_and_both_ends_of_the_auctions_span) {
  const std::vector<nx::event> events = {
      q9_bid(1, 50, 20, 100),      // before its auction, at its start: wins when it comes
      q9_bid(1, 51, 25, 120),      // before its auction too: wins next
      q9_bid(1, 52, 99, 99),       // before the auction's start: never matches
      auction_event(1, 100, 200),  //
      q9_bid(1, 53, 25, 130),      // the same price, later: no row
      q9_bid(1, 54, 25, 120),      // the same price and time: the earlier arrival stays
      q9_bid(1, 55, 25, 110),      // the same price, earlier: wins
      q9_bid(1, 56, 30, 200),      // at `expires`: matches, and wins
      q9_bid(1, 57, 90, 201),      // after `expires`: never matches
      auction_event(1, 0, 1'000),  // the id again: the first auction stays
      q9_bid(1, 58, 95, 500),      // so this is after its `expires`
      q9_bid(2, 59, 10, 100),      // an auction that never comes: no row
      auction_event(3, 0, 10)};    // an auction with no bid: no row
  const auto rows = nx::q9_sequential(events);
  ASSERT_EQ(rows.size(), 4u);
  const std::int64_t winners[] = {50, 51, 55, 56};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(rows[k].bidder, winners[k]);
    EXPECT_EQ(rows[k].bid_extra, "extra-" + std::to_string(winners[k]));
    EXPECT_EQ(rows[k].a.expires, 200);
  }
  EXPECT_EQ(rows, q9_reference(events));
  expect_rows<nx::q9_row>(nx::q9, rows, q9_group, events);
  nx::q9_row r{nx::auction{1, "i", "d", 2, 3, 4, 5, 6, 7, "x"}, 8, 9, 10, "y", 0};
  EXPECT_EQ(r.digest(), folded({1, fnv1a("i"), fnv1a("d"), 2, 3, 4, 5, 6, 7, fnv1a("x"), 8, 9, 10,
                                fnv1a("y")}));
}

TEST(nexmark_updates, q9s_kept_auction_and_early_bids_round_trip_through_their_codecs) {
  namespace state = spate::state;
  const nx::auction a{1, "item", "about", 2, 3, 4, 5, 6, 7, "extra"};
  EXPECT_EQ(state::from_bytes<nx::auction>(state::to_bytes(a)), a);
  const std::vector<nx::bid> bids = {nx::bid{1, 2, 3, "c", "u", 4, "e"}, nx::bid{}};
  EXPECT_EQ(state::from_bytes<std::vector<nx::bid>>(state::to_bytes(bids)), bids);
}

TEST(nexmark_updates, the_benchmarks_one_thread_loops_give_the_references_rows) {
  const auto events = slow_events();
  EXPECT_EQ(nx::q15_sequential(events), q15_reference(events));
  EXPECT_EQ(nx::q16_sequential(events), q16_reference(events));
  EXPECT_EQ(nx::q17_sequential(events), q17_reference(events));
  EXPECT_EQ(nx::q18_sequential(events), q18_reference(events));
  EXPECT_EQ(nx::q19_sequential(events), q19_reference(events));
  // q9's reference lists its rows auction by auction; the loop, as the events come
  const auto by_auction = [](const std::vector<nx::q9_row>& rows) {
    std::map<std::int64_t, std::vector<nx::q9_row>> groups;
    for (const nx::q9_row& r : rows) groups[q9_group(r)].push_back(r);
    return groups;
  };
  EXPECT_TRUE(by_auction(nx::q9_sequential(events)) == by_auction(q9_reference(events)));
}

}  // namespace
