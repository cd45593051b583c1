#pragma once
// Nexmark q15, q16 and q17: unwindowed GROUP BY aggregates over the bids (the Flink suite's
// q15.sql, q16.sql, q17.sql), whose result Flink SQL updates as each bid comes —
//   q15 SELECT DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`, count(*) AS total_bids,
//              count(*) FILTER (WHERE price < 10000) AS rank1_bids, ... rank2, rank3,
//              count(DISTINCT bidder) AS total_bidders, ... FILTER per rank,
//              count(DISTINCT auction) AS total_auctions, ... FILTER per rank
//       FROM bid GROUP BY DATE_FORMAT(dateTime, 'yyyy-MM-dd')
//   q16 the same per channel and day, with max(DATE_FORMAT(dateTime, 'HH:mm')) AS `minute`
//   q17 SELECT auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`, count(*) AS total_bids,
//              count(*) FILTER per rank, min(price), max(price), avg(price), sum(price)
//       FROM bid GROUP BY auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd')
// with the ranks of a price: rank 1 below 10,000, rank 2 from 10,000 below 1,000,000, rank 3
// from 1,000,000.
//
// Each query is a changelog in upsert form: every bid changes its group's row, and the stage
// emits that row's new value (Flink emits the same update, with the old row retracted first).
// The graph: the bids projected (flat_map, chained to the source) → a farm keyed by the group
// whose node keeps each group's aggregate in spate's keyed state (state/keyed.hpp, so a
// checkpoint takes it). One source and key partitioning give each group its bids in the
// source's order, so the rows, and their digest, are the same for any number of workers.
// `day` is a day number (days since the epoch, UTC) and `minute` a minute of the day: the
// DATE_FORMAT texts as numbers, in the same order.
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model.hpp"
#include "queries.hpp"

namespace apps::nexmark {

inline constexpr std::int64_t ms_per_day = 86'400'000;

/// DATE_FORMAT(dateTime, 'yyyy-MM-dd') as a number: days since the epoch (UTC), rounded down
/// (Java's floorDiv; defined for every time).
inline std::int64_t day_of(std::int64_t date_time) noexcept {
  const std::int64_t day = date_time / ms_per_day;
  return date_time % ms_per_day < 0 ? day - 1 : day;
}
/// DATE_FORMAT(dateTime, 'HH:mm') as a number: the minute of the day (UTC; Java's floorMod).
inline std::int64_t minute_of_day(std::int64_t date_time) noexcept {
  const std::int64_t in_day = date_time % ms_per_day;
  return (in_day < 0 ? in_day + ms_per_day : in_day) / 60'000;
}
/// The queries' price ranks: 1 below 10,000, 2 below 1,000,000, else 3.
inline std::size_t price_rank(std::int64_t price) noexcept {
  return price < 10'000 ? 1 : price < 1'000'000 ? 2 : 3;
}

/// COUNT(*) and COUNT(DISTINCT bidder), COUNT(DISTINCT auction), each over all of a group's bids
/// (index 0) and over its bids of each rank (1 to 3): q15's and q16's aggregate.
struct bid_counts {
  std::array<std::int64_t, 4> bids{};
  std::array<std::int64_t, 4> bidders{};
  std::array<std::int64_t, 4> auctions{};
  std::uint64_t fold_into(std::uint64_t h) const noexcept {
    for (const auto* counts : {&bids, &bidders, &auctions})
      for (std::int64_t c : *counts) h = fold(h, c);
    return h;
  }
  friend bool operator==(const bid_counts&, const bid_counts&) = default;
};

/// The distinct bidders and auctions a group has seen: for each, the ranks of its bids (bit r
/// for rank r), so a bid costs one lookup per COUNT(DISTINCT ...) whatever the rank.
struct distinct_seen {
  std::unordered_map<std::int64_t, std::uint8_t> bidders, auctions;
  /// Adds a bid; the group's counts afterwards.
  void add(std::int64_t bidder, std::int64_t auction, std::int64_t price, bid_counts& counts) {
    const std::size_t rank = price_rank(price);
    ++counts.bids[0];
    ++counts.bids[rank];
    note(bidders[bidder], rank, counts.bidders);
    note(auctions[auction], rank, counts.auctions);
  }

 private:
  // A value with no bit set is new to the group.
  static void note(std::uint8_t& ranks, std::size_t rank, std::array<std::int64_t, 4>& counts) {
    const auto bit = std::uint8_t(1u << rank);
    counts[0] += ranks == 0 ? 1 : 0;
    counts[rank] += (ranks & bit) == 0 ? 1 : 0;
    ranks = std::uint8_t(ranks | bit);
  }
};

/// q16's group: a channel on a day.
struct channel_day {
  std::string channel;
  std::int64_t day = 0;
  friend bool operator==(const channel_day&, const channel_day&) = default;
};

/// q17's aggregate of an auction's bids on a day.
struct price_stats {
  std::array<std::int64_t, 4> bids{};  // all, then per rank
  std::int64_t min = std::numeric_limits<std::int64_t>::max();
  std::int64_t max = std::numeric_limits<std::int64_t>::min();
  std::int64_t sum = 0;
  void add(std::int64_t price) noexcept {
    ++bids[0];
    ++bids[price_rank(price)];
    min = std::min(min, price);
    max = std::max(max, price);
    sum = std::int64_t(std::uint64_t(sum) + std::uint64_t(price));  // wraps, as Java's long
  }
  friend bool operator==(const price_stats&, const price_stats&) = default;
};

/// q17's group, and q18's (bidder, auction): two numbers.
struct number_pair {
  std::int64_t first = 0, second = 0;
  friend bool operator==(const number_pair&, const number_pair&) = default;
};

}  // namespace apps::nexmark

template <>
struct std::hash<apps::nexmark::channel_day> {
  std::size_t operator()(const apps::nexmark::channel_day& k) const noexcept {
    return std::hash<std::string>{}(k.channel) * 31 + std::hash<std::int64_t>{}(k.day);
  }
};
template <>
struct std::hash<apps::nexmark::number_pair> {
  std::size_t operator()(const apps::nexmark::number_pair& k) const noexcept {
    return std::hash<std::int64_t>{}(k.first) * 0x9e3779b97f4a7c15ull +
           std::hash<std::int64_t>{}(k.second);
  }
};
template <>
struct spate::state::codec<apps::nexmark::channel_day> {
  static void encode(const apps::nexmark::channel_day& k, byte_writer& out) {
    state::encode(k.channel, out);
    state::encode(k.day, out);
  }
  static apps::nexmark::channel_day decode(byte_reader& in) {
    auto channel = state::decode<std::string>(in);
    return {std::move(channel), state::decode<std::int64_t>(in)};
  }
};
template <>
struct spate::state::codec<apps::nexmark::distinct_seen> {
  static void encode(const apps::nexmark::distinct_seen& s, byte_writer& out) {
    state::encode(s.bidders, out);
    state::encode(s.auctions, out);
  }
  static apps::nexmark::distinct_seen decode(byte_reader& in) {
    apps::nexmark::distinct_seen s;
    s.bidders = state::decode<decltype(s.bidders)>(in);
    s.auctions = state::decode<decltype(s.auctions)>(in);
    return s;
  }
};

namespace apps::nexmark {

/// A bid as q15, q16 and q17 read it (the channel is q16's).
struct counted_bid {
  std::int64_t auction = 0, bidder = 0, price = 0, day = 0, minute = 0;
  std::string channel;
  std::int64_t stamp_ns = 0;
};

/// The bids, projected for q15–q17 (with the channel when `WithChannel`).
template <bool WithChannel>
auto counted_bids() {
  return spate::flow::flat_map<counted_bid>([](event& e, auto emit) {
    bid* b = e.as_bid();
    if (b == nullptr) return;
    counted_bid c{
        b->auction, b->bidder, b->price, day_of(b->date_time), minute_of_day(b->date_time),
        {},         e.stamp_ns};
    if constexpr (WithChannel) c.channel = std::move(b->channel);
    emit(std::move(c));
  });
}

// ---------------------------------------------------------------- q15

struct q15_row {
  std::int64_t day = 0;
  bid_counts counts;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q15_row& a, const q15_row& b) {
    return a.day == b.day && a.counts == b.counts;
  }
  std::uint64_t digest() const noexcept { return counts.fold_into(fold(0, day)); }
};

class q15_node : public spate::flow::node<counted_bid, q15_row> {
 public:
  static std::int64_t key_of(const counted_bid& b) noexcept { return b.day; }
  auto state_fields() { return std::tie(counts_, seen_); }
  void consume(counted_bid& b) {
    bid_counts& counts = counts_.get_or_init();
    seen_.get_or_init().add(b.bidder, b.auction, b.price, counts);
    send_next(q15_row{b.day, counts, b.stamp_ns});
  }

 private:
  spate::state::value<bid_counts> counts_{"q15_counts"};
  spate::state::value<distinct_seen> seen_{"q15_seen"};
};

// ---------------------------------------------------------------- q16

struct q16_row {
  std::string channel;
  std::int64_t day = 0, minute = 0;
  bid_counts counts;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q16_row& a, const q16_row& b) {
    return a.channel == b.channel && a.day == b.day && a.minute == b.minute && a.counts == b.counts;
  }
  std::uint64_t digest() const noexcept {
    return counts.fold_into(fold(fold(fold(0, text_digest(channel)), day), minute));
  }
};

class q16_node : public spate::flow::node<counted_bid, q16_row> {
 public:
  static channel_day key_of(const counted_bid& b) { return {b.channel, b.day}; }
  auto state_fields() { return std::tie(counts_, minute_, seen_); }
  void consume(counted_bid& b) {
    bid_counts& counts = counts_.get_or_init();
    seen_.get_or_init().add(b.bidder, b.auction, b.price, counts);
    std::int64_t& minute = minute_.get_or_init(b.minute);
    minute = std::max(minute, b.minute);
    send_next(q16_row{std::move(b.channel), b.day, minute, counts, b.stamp_ns});
  }

 private:
  spate::state::value<bid_counts> counts_{"q16_counts"};
  spate::state::value<std::int64_t> minute_{"q16_minute"};
  spate::state::value<distinct_seen> seen_{"q16_seen"};
};

// ---------------------------------------------------------------- q17

struct q17_row {
  std::int64_t auction = 0, day = 0;
  price_stats stats;
  std::int64_t stamp_ns = 0;
  /// AVG(price) of a BIGINT: the sum divided by the count, truncated.
  std::int64_t average() const noexcept { return stats.sum / stats.bids[0]; }
  friend bool operator==(const q17_row& a, const q17_row& b) {
    return a.auction == b.auction && a.day == b.day && a.stats == b.stats;
  }
  std::uint64_t digest() const noexcept {
    std::uint64_t h = fold(fold(0, auction), day);
    for (std::int64_t c : stats.bids) h = fold(h, c);
    return fold(fold(fold(fold(h, stats.min), stats.max), average()), stats.sum);
  }
};

class q17_node : public spate::flow::node<counted_bid, q17_row> {
 public:
  static number_pair key_of(const counted_bid& b) noexcept { return {b.auction, b.day}; }
  auto state_fields() { return std::tie(stats_); }
  void consume(counted_bid& b) {
    price_stats& s = stats_.get_or_init();
    s.add(b.price);
    send_next(q17_row{b.auction, b.day, s, b.stamp_ns});
  }

 private:
  spate::state::value<price_stats> stats_{"q17_stats"};
};

/// source-side projection → farm of `workers` copies of `Node`, keyed by Node::key_of.
template <class Node, bool WithChannel>
auto grouped_query(std::size_t workers, const char* name) {
  namespace flow = spate::flow;
  return flow::pipeline(
      counted_bids<WithChannel>().named(std::string(name) + "_bids"),
      flow::farm(flow::make_stage<Node>().named(name), workers,
                 flow::by_key{[](const counted_bid& b) { return Node::key_of(b); }}));
}
inline auto q15(std::size_t workers) {
  return grouped_query<q15_node, false>(workers, "q15");
}
inline auto q16(std::size_t workers) {
  return grouped_query<q16_node, true>(workers, "q16");
}
inline auto q17(std::size_t workers) {
  return grouped_query<q17_node, false>(workers, "q17");
}

// ---------------------------------------------------------------- one-thread loops

/// q15's, q16's or q17's rows for `events`, by one loop on one thread, in event order: what the
/// benchmark checks a graph's digest against (the tests compare the graphs with references of
/// their own).
inline std::vector<q15_row> q15_sequential(const std::vector<event>& events) {
  std::unordered_map<std::int64_t, std::pair<bid_counts, distinct_seen>> groups;
  std::vector<q15_row> rows;
  for (const event& e : events) {
    const bid* b = e.as_bid();
    if (b == nullptr) continue;
    auto& [counts, seen] = groups[day_of(b->date_time)];
    seen.add(b->bidder, b->auction, b->price, counts);
    rows.push_back({day_of(b->date_time), counts, 0});
  }
  return rows;
}
inline std::vector<q16_row> q16_sequential(const std::vector<event>& events) {
  struct group {
    bid_counts counts;
    distinct_seen seen;
    std::int64_t minute = 0;
  };
  std::unordered_map<channel_day, group> groups;
  std::vector<q16_row> rows;
  for (const event& e : events) {
    const bid* b = e.as_bid();
    if (b == nullptr) continue;
    const std::int64_t day = day_of(b->date_time), minute = minute_of_day(b->date_time);
    auto [at, added] = groups.try_emplace(channel_day{b->channel, day});
    group& g = at->second;
    g.minute = added ? minute : std::max(g.minute, minute);
    g.seen.add(b->bidder, b->auction, b->price, g.counts);
    rows.push_back({b->channel, day, g.minute, g.counts, 0});
  }
  return rows;
}
inline std::vector<q17_row> q17_sequential(const std::vector<event>& events) {
  std::unordered_map<number_pair, price_stats> groups;
  std::vector<q17_row> rows;
  for (const event& e : events) {
    const bid* b = e.as_bid();
    if (b == nullptr) continue;
    const std::int64_t day = day_of(b->date_time);
    price_stats& s = groups[number_pair{b->auction, day}];
    s.add(b->price);
    rows.push_back({b->auction, day, s, 0});
  }
  return rows;
}

}  // namespace apps::nexmark
