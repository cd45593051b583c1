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
//     id that comes in a second auction keeps the first (as q9.hpp; the one-thread loop's walk
//     is matching_bids.hpp's, which q9's shares).
//   - A bid counts when its time is within the auction's [dateTime, expires] (both ends), and
//     changes the price when it is the auction's first such bid or its price is higher.
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "matching_bids.hpp"
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
  for_each_matching_bid<std::optional<std::int64_t>>(
      events, [&](const auction& a, const bid& b, std::optional<std::int64_t>& max) {
        const priced_auction priced{a.id, a.category, a.seller, a.date_time, a.expires};
        const auto change = change_of(priced, early_bid{b.price, b.date_time}, max, 0);
        if (!change) return;
        max = change->price;
        on_change(*change);
      });
}

/// The second farm's node of a closing-price query (q4, q6): per group (`group_key(change)`),
/// a Group in keyed state named `state_name`, whose `bool take(const price_change&)` says
/// whether the group's average changed and whose `sent` is that average; each change of it is
/// sent as Row{key, average, stamp}.
template <class Row, class Group, class GroupKey>
class group_average_node : public spate::flow::node<price_change, Row> {
 public:
  group_average_node(const char* state_name, GroupKey group_key)
      : group_(state_name), group_key_(group_key) {}
  auto state_fields() { return std::tie(group_); }
  void consume(price_change& c) {
    Group& g = group_.get_or_init(Group{});
    if (g.take(c)) this->send_next(Row{group_key_(c), g.sent, c.stamp_ns});
  }

 private:
  spate::state::value<Group> group_;
  GroupKey group_key_;
};

/// A closing-price query's graph: auctions and bids (`name`_auctions_and_bids) → a farm keyed by
/// auction id keeping each closing price (`name`_closing_price) → a farm keyed by
/// `group_key(const price_change&)` of group_average_node<Row, Group> (`name`_`group_name`,
/// its keyed state named `state_name`).
template <class Row, class Group, class GroupKey>
auto closing_price_query(std::size_t workers, const std::string& name,
                         const std::string& group_name, const char* state_name,
                         GroupKey group_key) {
  namespace flow = spate::flow;
  using group_node = group_average_node<Row, Group, GroupKey>;
  return flow::pipeline(
      auctions_and_bids().named(name + "_auctions_and_bids"),
      flow::farm(flow::make_stage<closing_price_node>().named(name + "_closing_price"), workers,
                 flow::by_key{[](const auction_or_bid& e) { return e.auction; }}),
      flow::farm(flow::make_stage<group_node>(state_name, group_key).named(name + "_" + group_name),
                 workers, flow::by_key{group_key}));
}

/// A closing-price query's changelog for `events`, by one loop on one thread, in event order:
/// each change taken by its group at once.
template <class Row, class Group, class GroupKey>
std::vector<Row> closing_price_rows(const std::vector<event>& events, GroupKey group_key) {
  std::unordered_map<std::int64_t, Group> groups;
  std::vector<Row> rows;
  closing_prices_sequential(events, [&](const price_change& c) {
    const std::int64_t key = group_key(c);
    Group& g = groups[key];
    if (g.take(c)) rows.push_back(Row{key, g.sent, 0});
  });
  return rows;
}

}  // namespace apps::nexmark
