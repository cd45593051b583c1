#pragma once
// Nexmark q9, winning bids (the Flink suite's q9.sql): each auction with its winning bid —
//   SELECT id, itemName, description, initialBid, reserve, dateTime, expires, seller, category,
//          extra, auction, bidder, price, bid_dateTime, bid_extra
//   FROM (SELECT A.*, B.auction, B.bidder, B.price, B.dateTime AS bid_dateTime,
//                B.extra AS bid_extra,
//                ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC)
//                  AS rownum
//         FROM auction A, bid B
//         WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires)
//   WHERE rownum <= 1
// a regular join ranked per auction, whose result Flink SQL updates as bids come. As the
// queries of rank_queries.hpp, it is a changelog in upsert form from one source, keyed — here
// by auction id — so that each auction sees its events in the source's order:
//   - an auction's bids are taken in the order they came; those that came before the auction
//     are kept (keyed list state) and taken when it comes, before any later bid;
//   - a bid whose time is within the auction's [dateTime, expires] (both ends) beats the
//     winner when there is none, or its price is higher, or its price is equal and its time
//     earlier (equal both: the earlier arrival keeps winning);
//   - each bid that beats the winner emits the auction with it;
//   - an id that comes in a second auction keeps the first (the generator repeats none; the
//     Flink program does the same).
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "matching_bids.hpp"
#include "model.hpp"
#include "queries.hpp"

// Codecs for the events q9 keeps in keyed state (what a checkpoint writes): field by field.
template <>
struct spate::state::codec<apps::nexmark::auction> {
  static void encode(const apps::nexmark::auction& a, byte_writer& out) {
    for (std::int64_t v :
         {a.id, a.initial_bid, a.reserve, a.date_time, a.expires, a.seller, a.category})
      state::encode(v, out);
    for (const std::string* text : {&a.item_name, &a.description, &a.extra})
      state::encode(*text, out);
  }
  static apps::nexmark::auction decode(byte_reader& in) {
    apps::nexmark::auction a;
    for (std::int64_t* v :
         {&a.id, &a.initial_bid, &a.reserve, &a.date_time, &a.expires, &a.seller, &a.category})
      *v = state::decode<std::int64_t>(in);
    for (std::string* text : {&a.item_name, &a.description, &a.extra})
      *text = state::decode<std::string>(in);
    return a;
  }
};
template <>
struct spate::state::codec<apps::nexmark::bid> {
  static void encode(const apps::nexmark::bid& b, byte_writer& out) {
    for (std::int64_t v : {b.auction, b.bidder, b.price, b.date_time}) state::encode(v, out);
    for (const std::string* text : {&b.channel, &b.url, &b.extra}) state::encode(*text, out);
  }
  static apps::nexmark::bid decode(byte_reader& in) {
    apps::nexmark::bid b;
    for (std::int64_t* v : {&b.auction, &b.bidder, &b.price, &b.date_time})
      *v = state::decode<std::int64_t>(in);
    for (std::string* text : {&b.channel, &b.url, &b.extra}) *text = state::decode<std::string>(in);
    return b;
  }
};

namespace apps::nexmark {

struct q9_row {
  auction a;
  std::int64_t bidder = 0, price = 0, bid_time = 0;
  std::string bid_extra;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q9_row& x, const q9_row& y) {
    return x.a == y.a && x.bidder == y.bidder && x.price == y.price && x.bid_time == y.bid_time &&
           x.bid_extra == y.bid_extra;
  }
  std::uint64_t digest() const noexcept {
    std::uint64_t h =
        fold(fold(fold(0, a.id), text_digest(a.item_name)), text_digest(a.description));
    h = fold(fold(fold(fold(h, a.initial_bid), a.reserve), a.date_time), a.expires);
    h = fold(fold(fold(h, a.seller), a.category), text_digest(a.extra));
    return fold(fold(fold(fold(h, bidder), price), bid_time), text_digest(bid_extra));
  }
};

/// An auction's winning bid so far: its price and time.
struct q9_winner {
  std::int64_t price = 0, date_time = 0;
};

/// The bid is within the auction's [dateTime, expires] and beats `winner` (nullptr: none, and
/// it wins).
inline bool q9_wins(const auction& a, const bid& b, const q9_winner* winner) {
  if (b.date_time < a.date_time || b.date_time > a.expires) return false;
  return winner == nullptr || b.price > winner->price ||
         (b.price == winner->price && b.date_time < winner->date_time);
}

class q9_node : public spate::flow::node<event, q9_row> {
 public:
  /// An auction's id, a bid's auction (the projection before the node keeps only those two).
  static std::int64_t key_of(const event& e) noexcept {
    const bid* b = e.as_bid();
    return b != nullptr ? b->auction : e.as_auction()->id;
  }
  auto state_fields() { return std::tie(auction_, early_bids_, winner_); }
  void consume(event& e) {
    if (bid* b = e.as_bid()) {
      if (auction_.has_value())
        take(*auction_, *b, e.stamp_ns);
      else
        early_bids_.add(std::move(*b));
      return;
    }
    if (auction_.has_value()) return;  // an id seen twice: the first auction stays
    const auction& a = auction_.set(std::move(*e.as_auction()));
    // Out of the state first: the key keeps no half-moved bid if a row cannot be sent.
    std::vector<bid> early = std::move(early_bids_.items());
    early_bids_.clear();
    for (bid& b : early) take(a, b, e.stamp_ns);
  }

 private:
  void take(const auction& a, bid& b, std::int64_t stamp_ns) {
    if (!q9_wins(a, b, winner_.has_value() ? &*winner_ : nullptr)) return;
    winner_.set(q9_winner{b.price, b.date_time});
    send_next(q9_row{a, b.bidder, b.price, b.date_time, std::move(b.extra), stamp_ns});
  }

  spate::state::value<auction> auction_{"q9_auction"};
  spate::state::list<bid> early_bids_{"q9_early_bids"};
  spate::state::value<q9_winner> winner_{"q9_winner"};
};

inline auto q9(std::size_t workers) {
  namespace flow = spate::flow;
  auto auctions_and_bids = flow::flat_map<event>([](event& e, auto emit) {
    if (e.as_person() == nullptr) emit(std::move(e));
  });
  return flow::pipeline(
      std::move(auctions_and_bids).named("q9_auctions_and_bids"),
      flow::farm(flow::make_stage<q9_node>().named("q9"), workers,
                 flow::by_key{[](const event& e) { return q9_node::key_of(e); }}));
}

/// q9's rows for `events`, by one loop on one thread, in event order (what the benchmark checks
/// a graph's digest against; the tests compare the graph with a reference of their own).
inline std::vector<q9_row> q9_sequential(const std::vector<event>& events) {
  std::vector<q9_row> rows;
  for_each_matching_bid<std::optional<q9_winner>>(
      events, [&](const auction& a, const bid& b, std::optional<q9_winner>& winner) {
        if (!q9_wins(a, b, winner ? &*winner : nullptr)) return;
        winner = q9_winner{b.price, b.date_time};
        rows.push_back({a, b.bidder, b.price, b.date_time, b.extra, 0});
      });
  return rows;
}

}  // namespace apps::nexmark
