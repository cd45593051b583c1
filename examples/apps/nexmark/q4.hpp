#pragma once
// Nexmark q4, the average closing price per category (the Flink suite's q4.sql):
//   SELECT Q.category, AVG(Q.final)
//   FROM (SELECT MAX(B.price) AS final, A.category
//         FROM auction A, bid B
//         WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
//         GROUP BY A.id, A.category) Q
//   GROUP BY Q.category
// Two GROUP BYs on different keys, both updated as bids come (Flink SQL retracts the inner
// row's old maximum from the outer average and adds the new one). The graph: auctions and bids
// projected to the fields q4 reads (chained to the source) → a farm keyed by auction id that
// keeps each auction's span and its maximum price so far, and sends each change of a maximum →
// a farm keyed by category that keeps the category's sum and count of maxima, and emits the
// category's average each time it changes (an update equal to the last row is not sent, as
// Flink SQL's aggregate does not send it).
//   - An auction's bids are taken in the order they came (one source, keyed); those that came
//     before it are kept (keyed list state) and taken when it comes, before any later bid; an
//     id that comes in a second auction keeps the first (as q9.hpp).
//   - A bid counts when its time is within the auction's [dateTime, expires] (both ends).
//   - AVG over BIGINT is a BIGINT: sum / count, rounded toward zero (Java's long division); the
//     sum wraps as Java's long.
// The changes from the auction workers reach a category's worker interleaved as the workers
// ran, so the rows emitted between two bids depend on that interleaving: the result is the
// final table (each category's last row, q4_final_table), the same for any number of workers.
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <cstdint>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model.hpp"
#include "queries.hpp"

namespace apps::nexmark {

/// An auction or a bid, as q4 reads it.
struct q4_event {
  std::int64_t auction = 0;    // the auction's id, or the bid's auction
  std::int64_t date_time = 0;  // the auction's start, or the bid's time
  std::int64_t value = 0;      // the auction's category, or the bid's price
  std::int64_t expires = 0;    // the auction's end (a bid: unused)
  bool is_bid = false;
  std::int64_t stamp_ns = 0;
};

/// An auction as q4 keeps it: its category and span.
struct q4_auction {
  std::int64_t category = 0, date_time = 0, expires = 0;
};
/// A bid as q4 keeps it until its auction comes.
struct q4_bid {
  std::int64_t price = 0, date_time = 0;
};

/// An auction's maximum price went from `previous` (none when `first`) to `price`.
struct q4_change {
  std::int64_t category = 0, previous = 0, price = 0;
  bool first = false;
  std::int64_t stamp_ns = 0;
};

/// A category's average closing price: a row of the upsert changelog, keyed by category.
struct q4_row {
  std::int64_t category = 0, average = 0;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q4_row& a, const q4_row& b) {
    return a.category == b.category && a.average == b.average;
  }
  /// The row of the result table this row replaces.
  std::int64_t table_key() const noexcept { return category; }
  std::uint64_t digest() const noexcept { return fold(fold(0, category), average); }
};

/// The change `b` makes to the maximum price of auction `a` (`max`: none yet when empty), if
/// any.
inline std::optional<q4_change> q4_take(const q4_auction& a, const q4_bid& b,
                                        const std::optional<std::int64_t>& max,
                                        std::int64_t stamp_ns) {
  if (b.date_time < a.date_time || b.date_time > a.expires) return std::nullopt;
  if (!max.has_value()) return q4_change{a.category, 0, b.price, true, stamp_ns};
  if (b.price <= *max) return std::nullopt;
  return q4_change{a.category, *max, b.price, false, stamp_ns};
}

/// A category's sum and count of closing prices, and the average it last sent (count 0: none).
struct q4_average {
  std::int64_t sum = 0, count = 0, sent = 0;
  /// Takes a change; true when the average differs from the one last sent (or none was).
  bool take(const q4_change& c) noexcept {
    const bool had_row = count > 0;
    // Wraps, as Java's long.
    sum = std::int64_t(std::uint64_t(sum) + std::uint64_t(c.price) - std::uint64_t(c.previous));
    count += c.first ? 1 : 0;
    const std::int64_t average = sum / count;
    if (had_row && average == sent) return false;
    sent = average;
    return true;
  }
};

/// The first farm's node: per auction id, its span, the bids that came before it, and its
/// maximum price so far.
class q4_max_price : public spate::flow::node<q4_event, q4_change> {
 public:
  auto state_fields() { return std::tie(auction_, early_bids_, max_); }
  void consume(q4_event& e) {
    if (e.is_bid) {
      const q4_bid b{e.value, e.date_time};
      if (auction_.has_value())
        take(*auction_, b, e.stamp_ns);
      else
        early_bids_.add(b);
      return;
    }
    if (auction_.has_value()) return;  // an id seen twice: the first auction stays
    const q4_auction& a = auction_.set(q4_auction{e.value, e.date_time, e.expires});
    // Out of the state first: the key keeps no half-taken list if a change cannot be sent.
    std::vector<q4_bid> early = std::move(early_bids_.items());
    early_bids_.clear();
    for (const q4_bid& b : early) take(a, b, e.stamp_ns);
  }

 private:
  void take(const q4_auction& a, const q4_bid& b, std::int64_t stamp_ns) {
    std::optional<std::int64_t> max;
    if (max_.has_value()) max = *max_;
    if (auto change = q4_take(a, b, max, stamp_ns)) {
      max_.set(change->price);
      send_next(std::move(*change));
    }
  }

  spate::state::value<q4_auction> auction_{"q4_auction"};
  spate::state::list<q4_bid> early_bids_{"q4_early_bids"};
  spate::state::value<std::int64_t> max_{"q4_max_price"};
};

/// The second farm's node: per category, the average of its auctions' maxima.
class q4_category_average : public spate::flow::node<q4_change, q4_row> {
 public:
  auto state_fields() { return std::tie(average_); }
  void consume(q4_change& c) {
    q4_average a = average_.has_value() ? *average_ : q4_average{};
    const bool changed = a.take(c);
    average_.set(a);
    if (changed) send_next(q4_row{c.category, a.sent, c.stamp_ns});
  }

 private:
  spate::state::value<q4_average> average_{"q4_average"};
};

/// Auctions and bids as q4 reads them.
inline auto q4_events() {
  return spate::flow::flat_map<q4_event>([](event& e, auto emit) {
    if (const bid* b = e.as_bid()) {
      emit(q4_event{b->auction, b->date_time, b->price, 0, true, e.stamp_ns});
    } else if (const auction* a = e.as_auction()) {
      emit(q4_event{a->id, a->date_time, a->category, a->expires, false, e.stamp_ns});
    }
  });
}

inline auto q4(std::size_t workers) {
  namespace flow = spate::flow;
  return flow::pipeline(
      q4_events().named("q4_auctions_and_bids"),
      flow::farm(flow::make_stage<q4_max_price>().named("q4_max_price"), workers,
                 flow::by_key{[](const q4_event& e) { return e.auction; }}),
      flow::farm(flow::make_stage<q4_category_average>().named("q4_category_average"), workers,
                 flow::by_key{[](const q4_change& c) { return c.category; }}));
}

/// q4's changelog for `events`, by one loop on one thread, in event order (each change taken by
/// its category at once).
inline std::vector<q4_row> q4_sequential(const std::vector<event>& events) {
  struct auction_state {
    std::optional<q4_auction> a;
    std::vector<q4_bid> early;
    std::optional<std::int64_t> max;
  };
  std::unordered_map<std::int64_t, auction_state> auctions;
  std::unordered_map<std::int64_t, q4_average> categories;
  std::vector<q4_row> rows;
  const auto take = [&](auction_state& s, const q4_bid& b) {
    const auto change = q4_take(*s.a, b, s.max, 0);
    if (!change) return;
    s.max = change->price;
    q4_average& average = categories[change->category];
    if (average.take(*change)) rows.push_back({change->category, average.sent, 0});
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
      s.a = q4_auction{a->category, a->date_time, a->expires};
      for (const q4_bid& early : s.early) take(s, early);
      s.early.clear();
    }
  }
  return rows;
}

}  // namespace apps::nexmark
