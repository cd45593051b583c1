#pragma once
// Nexmark q18 and q19: unwindowed rankings over the bids (the Flink suite's q18.sql and
// q19.sql), whose result Flink SQL updates as each bid comes —
//   q18 find last bid: SELECT auction, bidder, price, channel, url, dateTime, extra
//       FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC)
//             AS rank_number FROM bid)
//       WHERE rank_number <= 1
//   q19 auction TOP-10 price: SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction
//       ORDER BY price DESC) AS rank_number FROM bid) WHERE rank_number <= 10
//
// As aggregate_queries.hpp's, each is a changelog in upsert form, keyed by the partition, its
// state in spate's keyed state, from one source so that each partition sees its bids in the
// source's order:
//   q18 keeps the time of a (bidder, auction)'s last bid; a bid at that time or later replaces
//       it (a later arrival at the same time wins: Flink's keep-last-row deduplication on event
//       time) and is emitted;
//   q19 keeps an auction's at most 10 highest bids, by price, the earlier first among equal
//       prices; a bid that enters at rank r emits the bid now at each rank from r to the
//       list's end (the ranks whose row changed, as Flink's top-N with a row number updates).
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aggregate_queries.hpp"
#include "model.hpp"
#include "queries.hpp"

namespace apps::nexmark {

// ---------------------------------------------------------------- q18

struct q18_row {
  std::int64_t auction = 0, bidder = 0, price = 0;
  std::string channel, url;
  std::int64_t date_time = 0;
  std::string extra;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q18_row& a, const q18_row& b) {
    return a.auction == b.auction && a.bidder == b.bidder && a.price == b.price &&
           a.channel == b.channel && a.url == b.url && a.date_time == b.date_time &&
           a.extra == b.extra;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(fold(fold(fold(0, auction), bidder), price), text_digest(channel)),
                          text_digest(url)),
                     date_time),
                text_digest(extra));
  }
};

class q18_node : public spate::flow::node<q18_row, q18_row> {
 public:
  static number_pair key_of(const q18_row& b) noexcept { return {b.bidder, b.auction}; }
  auto state_fields() { return std::tie(last_time_); }
  void consume(q18_row& b) {
    std::int64_t& last = last_time_.get_or_init(b.date_time);
    if (b.date_time < last) return;
    last = b.date_time;
    send_next(std::move(b));
  }

 private:
  spate::state::value<std::int64_t> last_time_{"q18_last_time"};
};

inline auto q18(std::size_t workers) {
  namespace flow = spate::flow;
  auto bids = flow::flat_map<q18_row>([](event& e, auto emit) {
    bid* b = e.as_bid();
    if (b == nullptr) return;
    emit(q18_row{b->auction, b->bidder, b->price, std::move(b->channel), std::move(b->url),
                 b->date_time, std::move(b->extra), e.stamp_ns});
  });
  return flow::pipeline(
      std::move(bids).named("q18_bids"),
      flow::farm(flow::make_stage<q18_node>().named("q18"), workers,
                 flow::by_key{[](const q18_row& b) { return q18_node::key_of(b); }}));
}

// ---------------------------------------------------------------- q19

inline constexpr std::size_t q19_top = 10;

/// A bid as q19 ranks and reports it.
struct ranked_bid {
  std::int64_t bidder = 0, price = 0, date_time = 0;
  friend bool operator==(const ranked_bid&, const ranked_bid&) = default;
};

struct q19_row {
  std::int64_t auction = 0;
  ranked_bid bid;
  std::int64_t rank = 0;  // ROW_NUMBER(), from 1
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q19_row& a, const q19_row& b) {
    return a.auction == b.auction && a.bid == b.bid && a.rank == b.rank;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(fold(0, auction), bid.bidder), bid.price), bid.date_time), rank);
  }
};

/// An auction's kept bids, highest price first, at most q19_top. Puts `b` in its place if it
/// enters and calls emit(bid, rank) for every rank whose bid changed; false if it does not enter.
template <class Emit>
bool q19_enter(std::vector<ranked_bid>& top, const ranked_bid& b, Emit&& emit) {
  // After every kept bid of a price >= b's: the earlier of two equal prices ranks first.
  const auto at = std::find_if(top.begin(), top.end(),
                               [&](const ranked_bid& kept) { return kept.price < b.price; });
  const auto rank = std::size_t(at - top.begin());
  if (rank >= q19_top) return false;
  top.insert(at, b);
  if (top.size() > q19_top) top.pop_back();
  for (std::size_t r = rank; r < top.size(); ++r) emit(top[r], std::int64_t(r + 1));
  return true;
}

class q19_node : public spate::flow::node<q19_row, q19_row> {
 public:
  auto state_fields() { return std::tie(top_); }
  void consume(q19_row& in) {
    std::vector<ranked_bid>& top = top_.get_or_init();
    if (top.empty()) top.reserve(q19_top + 1);
    q19_enter(top, in.bid, [&](const ranked_bid& b, std::int64_t rank) {
      send_next(q19_row{in.auction, b, rank, in.stamp_ns});
    });
  }

 private:
  spate::state::value<std::vector<ranked_bid>> top_{"q19_top"};
};

inline auto q19(std::size_t workers) {
  namespace flow = spate::flow;
  auto bids = flow::flat_map<q19_row>([](event& e, auto emit) {
    if (const bid* b = e.as_bid())
      emit(q19_row{b->auction, {b->bidder, b->price, b->date_time}, 0, e.stamp_ns});
  });
  return flow::pipeline(std::move(bids).named("q19_bids"),
                        flow::farm(flow::make_stage<q19_node>().named("q19"), workers,
                                   flow::by_key{[](const q19_row& b) { return b.auction; }}));
}

// ---------------------------------------------------------------- one-thread loops

/// q18's or q19's rows for `events`, by one loop on one thread, in event order (what the
/// benchmark checks a graph's digest against).
inline std::vector<q18_row> q18_sequential(const std::vector<event>& events) {
  std::unordered_map<number_pair, std::int64_t> last_time;
  std::vector<q18_row> rows;
  for (const event& e : events) {
    const bid* b = e.as_bid();
    if (b == nullptr) continue;
    auto [at, added] = last_time.try_emplace(number_pair{b->bidder, b->auction}, b->date_time);
    if (!added && b->date_time < at->second) continue;
    at->second = b->date_time;
    rows.push_back(
        {b->auction, b->bidder, b->price, b->channel, b->url, b->date_time, b->extra, 0});
  }
  return rows;
}
inline std::vector<q19_row> q19_sequential(const std::vector<event>& events) {
  std::unordered_map<std::int64_t, std::vector<ranked_bid>> tops;
  std::vector<q19_row> rows;
  for (const event& e : events) {
    const bid* b = e.as_bid();
    if (b == nullptr) continue;
    q19_enter(tops[b->auction], ranked_bid{b->bidder, b->price, b->date_time},
              [&](const ranked_bid& kept, std::int64_t rank) {
                rows.push_back({b->auction, kept, rank, 0});
              });
  }
  return rows;
}

}  // namespace apps::nexmark
