#pragma once
// The core q4 and q6 share (the suite: "shares the same 'winning bids' core as for Query4"):
// each auction's closing price so far, the inner query
//   SELECT MAX(B.price) AS final, A.id, A.category, A.seller, A.dateTime
//   FROM auction A, bid B
//   WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
//   GROUP BY A.id, ...
// updated as bids come. closing_price_node is a farm's node keyed by auction id: it keeps the
// auction's span and its highest matching price in keyed state and sends each change of that
// price (the old and the new), which the query's next farm folds into its groups.
//   - An auction's bids are taken in the order they came (one source, keyed); those that came
//     before it are kept (keyed list state) and taken when it comes, before any later bid; an
//     id that comes in a second auction keeps the first (as q9.hpp).
//   - A bid counts when its time is within the auction's [dateTime, expires] (both ends), and
//     changes the price when it is the auction's first such bid or its price is higher.
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <cstdint>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model.hpp"

namespace apps::nexmark {

/// An auction or a bid, as the closing prices read it.
struct auction_or_bid {
  std::int64_t auction = 0;                            // the auction's id, or the bid's auction
  std::int64_t date_time = 0;                          // the auction's start, or the bid's time
  std::int64_t price = 0;                              // the bid's price (an auction: unused)
  std::int64_t expires = 0, category = 0, seller = 0;  // the auction's (a bid: unused)
  bool is_bid = false;
  std::int64_t stamp_ns = 0;
};

/// An auction as the closing prices keep it.
struct priced_auction {
  std::int64_t id = 0, category = 0, seller = 0, date_time = 0, expires = 0;
};
/// A bid as the closing prices keep it until its auction comes.
struct early_bid {
  std::int64_t price = 0, date_time = 0;
};

/// Auction `auction`'s closing price went from `previous` (none when `first`) to `price`.
struct price_change {
  priced_auction auction;
  std::int64_t previous = 0, price = 0;
  bool first = false;
  std::int64_t stamp_ns = 0;
};

/// The change bid `b` makes to auction `a`'s closing price (`max`: none yet when empty), if
/// any.
inline std::optional<price_change> change_of(const priced_auction& a, const early_bid& b,
                                             const std::optional<std::int64_t>& max,
                                             std::int64_t stamp_ns) {
  if (b.date_time < a.date_time || b.date_time > a.expires) return std::nullopt;
  if (!max.has_value()) return price_change{a, 0, b.price, true, stamp_ns};
  if (b.price <= *max) return std::nullopt;
  return price_change{a, *max, b.price, false, stamp_ns};
}

/// The first farm's node: per auction id, its span, the bids that came before it, and its
/// closing price so far.
class closing_price_node : public spate::flow::node<auction_or_bid, price_change> {
 public:
  auto state_fields() { return std::tie(auction_, early_bids_, max_); }
  void consume(auction_or_bid& e) {
    if (e.is_bid) {
      const early_bid b{e.price, e.date_time};
      if (auction_.has_value())
        take(*auction_, b, e.stamp_ns);
      else
        early_bids_.add(b);
      return;
    }
    if (auction_.has_value()) return;  // an id seen twice: the first auction stays
    const priced_auction& a =
        auction_.set(priced_auction{e.auction, e.category, e.seller, e.date_time, e.expires});
    // Out of the state first, so the key holds no half-taken list. A change that cannot be sent
    // (send_next throws) fails the graph, with the bids after it and the price it set in the
    // key's state: a restart restores the checkpoint before it, so neither is seen.
    std::vector<early_bid> early = std::move(early_bids_.items());
    early_bids_.clear();
    for (const early_bid& b : early) take(a, b, e.stamp_ns);
  }

 private:
  void take(const priced_auction& a, const early_bid& b, std::int64_t stamp_ns) {
    std::optional<std::int64_t> max;
    if (max_.has_value()) max = *max_;
    if (auto change = change_of(a, b, max, stamp_ns)) {
      max_.set(change->price);
      send_next(std::move(*change));
    }
  }

  spate::state::value<priced_auction> auction_{"closing_auction"};
  spate::state::list<early_bid> early_bids_{"closing_early_bids"};
  spate::state::value<std::int64_t> max_{"closing_price"};
};

/// Auctions and bids as the closing prices read them (persons dropped).
inline auto auctions_and_bids() {
  return spate::flow::flat_map<auction_or_bid>([](event& e, auto emit) {
    if (const bid* b = e.as_bid()) {
      emit(auction_or_bid{b->auction, b->date_time, b->price, 0, 0, 0, true, e.stamp_ns});
    } else if (const auction* a = e.as_auction()) {
      emit(auction_or_bid{a->id, a->date_time, 0, a->expires, a->category, a->seller, false,
                          e.stamp_ns});
    }
  });
}

/// The closing prices' changes for `events`, by one loop on one thread, each passed to
/// `on_change(const price_change&)` as it happens, in event order.
template <class OnChange>
void closing_prices_sequential(const std::vector<event>& events, OnChange on_change) {
  struct auction_state {
    std::optional<priced_auction> a;
    std::vector<early_bid> early;
    std::optional<std::int64_t> max;
  };
  std::unordered_map<std::int64_t, auction_state> auctions;
  const auto take = [&](auction_state& s, const early_bid& b) {
    const auto change = change_of(*s.a, b, s.max, 0);
    if (!change) return;
    s.max = change->price;
    on_change(*change);
  };
  for (const event& e : events) {
    if (const bid* b = e.as_bid()) {
      auction_state& s = auctions[b->auction];
      if (s.a)
        take(s, {b->price, b->date_time});
      else
        s.early.push_back({b->price, b->date_time});
    } else if (const auction* a = e.as_auction()) {
      auction_state& s = auctions[a->id];
      if (s.a) continue;
      s.a = priced_auction{a->id, a->category, a->seller, a->date_time, a->expires};
      for (const early_bid& early : s.early) take(s, early);
      s.early.clear();
    }
  }
}

}  // namespace apps::nexmark
