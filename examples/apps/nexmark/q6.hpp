#pragma once
// Nexmark q6, the average selling price by seller, restated. The suite's text —
//   SELECT Q.seller, AVG(Q.final) OVER (PARTITION BY Q.seller ORDER BY Q.dateTime
//                                       ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
//   FROM (SELECT MAX(B.price) AS final, A.seller, B.dateTime
//         FROM auction AS A, bid AS B
//         WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
//         GROUP BY A.id, A.seller) AS Q
// — does not run as written: Flink SQL's OVER window takes no retractions, which the inner
// GROUP BY makes (the suite's q6.sql says so and is not run), and B.dateTime is not grouped.
// What it asks, "the average selling price per seller for their last 10 closed auctions", is
// here with the auction's dateTime as the order (an auction's place among its seller's does
// not move as its bids come) and each auction's closing price so far as its price:
//   for each seller, the average (sum / count, rounded toward zero, the sum wrapping as Java's
//   long) of the closing prices of its 11 latest auctions (by dateTime, then id; the window's
//   10 PRECEDING and the CURRENT ROW) among those with a closing price,
// updated as bids come, with an update equal to the seller's last row not sent. The graph is
// q4's (closing_prices.hpp → a farm keyed by seller instead of category): the seller's node
// keeps its 11 latest priced auctions. An auction that is not among them when it gets its
// first price, or is pushed out, never comes back: the 11 that are later than it keep their
// prices. So the seller's final row is the same however the first farm's workers interleave
// their changes; the rows before it are not, and the result checked is the final table
// (final_table in queries.hpp), as q4's.
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "closing_prices.hpp"
#include "model.hpp"
#include "queries.hpp"

namespace apps::nexmark {

inline constexpr std::size_t q6_auctions = 11;  // ROWS BETWEEN 10 PRECEDING AND CURRENT ROW

/// A seller's average selling price: a row of the upsert changelog, keyed by seller.
struct q6_row {
  std::int64_t seller = 0, average = 0;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q6_row& a, const q6_row& b) {
    return a.seller == b.seller && a.average == b.average;
  }
  /// The row of the result table this row replaces.
  std::int64_t table_key() const noexcept { return seller; }
  std::uint64_t digest() const noexcept { return fold(fold(0, seller), average); }
};

/// One of a seller's latest priced auctions.
struct q6_auction {
  std::int64_t date_time = 0, id = 0, price = 0;
};

/// A seller's latest priced auctions (at most q6_auctions, oldest first) and the average it
/// last sent (none while `latest` is empty).
struct q6_seller {
  std::vector<q6_auction> latest;
  std::int64_t sent = 0;
  /// Takes a change of one of the seller's auctions; true when the average differs from the
  /// one last sent (or none was). An auction's changes come in order (see q4_average::take).
  bool take(const price_change& c) {
    const bool had_row = !latest.empty();
    const auto before = [](const q6_auction& x, const q6_auction& y) {
      return std::tie(x.date_time, x.id) < std::tie(y.date_time, y.id);
    };
    const q6_auction changed{c.auction.date_time, c.auction.id, c.price};
    const auto at = std::lower_bound(latest.begin(), latest.end(), changed, before);
    const bool kept = at != latest.end() && at->id == changed.id;
    if (kept) {
      at->price = changed.price;
    } else if (!c.first) {
      return false;  // not among the latest: pushed out, or never in
    } else if (latest.size() < q6_auctions) {
      latest.insert(at, changed);
    } else if (at == latest.begin()) {
      return false;  // older than all 11: never among them
    } else {
      latest.insert(at, changed);
      latest.erase(latest.begin());
    }
    std::uint64_t sum = 0;  // wraps, as Java's long
    for (const q6_auction& a : latest) sum += std::uint64_t(a.price);
    const std::int64_t average = std::int64_t(sum) / std::int64_t(latest.size());
    if (had_row && average == sent) return false;
    sent = average;
    return true;
  }
};

}  // namespace apps::nexmark

template <>
struct spate::state::codec<apps::nexmark::q6_seller> {
  static void encode(const apps::nexmark::q6_seller& s, byte_writer& out) {
    state::encode(s.latest, out);
    state::encode(s.sent, out);
  }
  static apps::nexmark::q6_seller decode(byte_reader& in) {
    apps::nexmark::q6_seller s;
    s.latest = state::decode<std::vector<apps::nexmark::q6_auction>>(in);
    s.sent = state::decode<std::int64_t>(in);
    return s;
  }
};

namespace apps::nexmark {

/// q6's groups: an auction's seller.
struct q6_by_seller {
  std::int64_t operator()(const price_change& c) const noexcept { return c.auction.seller; }
};

inline auto q6(std::size_t workers) {
  return closing_price_query<q6_row, q6_seller>(workers, "q6", "seller_average", "q6_seller",
                                                q6_by_seller{});
}

/// q6's changelog for `events`, by one loop on one thread, in event order (each change taken by
/// its seller at once).
inline std::vector<q6_row> q6_sequential(const std::vector<event>& events) {
  return closing_price_rows<q6_row, q6_seller>(events, q6_by_seller{});
}

}  // namespace apps::nexmark
