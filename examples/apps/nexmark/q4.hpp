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
// projected to the fields the closing prices read (chained to the source) → a farm keyed by
// auction id that keeps each auction's closing price and sends each change of it
// (closing_prices.hpp) → a farm keyed by category that keeps the category's sum and count of
// closing prices, and emits the category's average each time it changes (an update equal to
// the last row is not sent, as Flink SQL's aggregate does not send it; Flink SQL sends the
// old row's retraction and the new row as two records, where spate sends the new row only). AVG
// over BIGINT is a BIGINT: sum / count, rounded toward zero (Java's long division); the sum wraps
// as Java's long. The changes from the auction workers reach a category's worker interleaved as the
// workers ran, so the rows emitted between two bids depend on that interleaving: the result is the
// final table (each category's last row, final_table in queries.hpp), the same for any number
// of workers.
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "closing_prices.hpp"
#include "model.hpp"
#include "queries.hpp"

namespace apps::nexmark {

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

/// A category's sum and count of closing prices, and the average it last sent (count 0: none).
struct q4_average {
  std::int64_t sum = 0, count = 0, sent = 0;
  /// Takes a change; true when the average differs from the one last sent (or none was). An
  /// auction's changes all come from one worker of the first farm, in order, so its first
  /// change (count > 0 after it) comes before its others.
  bool take(const price_change& c) {
    const bool had_row = count > 0;
    count += c.first ? 1 : 0;
    if (count == 0) {
      throw std::logic_error("nexmark q4: auction " + std::to_string(c.auction.id) +
                             "'s price changed before its first price reached category " +
                             std::to_string(c.auction.category));
    }
    // Wraps, as Java's long.
    sum = std::int64_t(std::uint64_t(sum) + std::uint64_t(c.price) - std::uint64_t(c.previous));
    const std::int64_t average = sum / count;
    if (had_row && average == sent) return false;
    sent = average;
    return true;
  }
};

/// q4's groups: an auction's category.
struct q4_by_category {
  std::int64_t operator()(const price_change& c) const noexcept { return c.auction.category; }
};

inline auto q4(std::size_t workers) {
  return closing_price_query<q4_row, q4_average>(workers, "q4", "category_average", "q4_average",
                                                 q4_by_category{});
}

/// q4's changelog for `events`, by one loop on one thread, in event order (each change taken by
/// its category at once).
inline std::vector<q4_row> q4_sequential(const std::vector<event>& events) {
  return closing_price_rows<q4_row, q4_average>(events, q4_by_category{});
}

}  // namespace apps::nexmark
