#pragma once
// Nexmark q7, highest bid (the Flink suite's q7.sql): the bids at the highest price of each
// 10 s tumbling window —
//   SELECT B.auction, B.price, B.bidder, B.dateTime, B.extra FROM bid B
//   JOIN (SELECT MAX(price) AS maxprice, window_end AS dateTime
//         FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
//         GROUP BY window_start, window_end) B1
//   ON B.price = B1.maxprice
//   WHERE B.dateTime BETWEEN B1.dateTime - INTERVAL '10' SECOND AND B1.dateTime
// with the suite's watermark, dateTime − 4 s. BETWEEN holds both ends: a bid at exactly a
// window's end lies in the next window, and also matches this one's maximum when its price
// equals it (a row for each match).
//
// q7(workers): the bids, then Window Farming over one key (the maximum is the whole stream's)
// with consecutive windows dealt to `workers` workers; each window keeps its maximum, the bids
// at it, and the bids at its earliest time (those at the window's start can match the previous
// window). A last stage, one task, sees the windows in order (the pattern's collector restores
// them) and adds the previous window's matches at this one's start.
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model.hpp"
#include "queries.hpp"

namespace apps::nexmark {

inline constexpr std::uint64_t q7_length_ms = 10'000;
inline constexpr std::uint64_t q7_lateness_ms = 4'000;

struct q7_row {
  std::int64_t auction = 0, price = 0, bidder = 0, date_time = 0;
  std::string extra;
  std::int64_t stamp_ns = 0;  // the bid's stamp (latency: from it to the window's row)
  friend bool operator==(const q7_row& a, const q7_row& b) {
    return a.auction == b.auction && a.price == b.price && a.bidder == b.bidder &&
           a.date_time == b.date_time && a.extra == b.extra;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(fold(0, auction), price), bidder), date_time), text_digest(extra));
  }
};

/// A window's highest price and the bids at it; its earliest time and the bids at that.
struct q7_window {
  std::int64_t max_price = -1;
  std::vector<q7_row> at_max;
  std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
  std::vector<q7_row> at_earliest;

  void add(const q7_row& b) {
    if (b.price > max_price) {
      max_price = b.price;
      at_max.clear();
    }
    if (b.price == max_price) at_max.push_back(b);
    if (b.date_time < earliest) {
      earliest = b.date_time;
      at_earliest.clear();
    }
    if (b.date_time == earliest) at_earliest.push_back(b);
  }
};

/// Window by window, in order: the rows of each (its bids at its maximum), and the bids at its
/// start that match the previous window's maximum (BETWEEN's inclusive end).
class q7_matcher {
 public:
  template <class Emit>
  void next(std::int64_t start, const q7_window& w, Emit&& emit) {
    if (has_previous_ && previous_end_ == start && w.earliest == start) {
      for (const q7_row& b : w.at_earliest)
        if (b.price == previous_max_) emit(b);
    }
    for (const q7_row& b : w.at_max) emit(b);
    has_previous_ = true;
    previous_end_ = start + std::int64_t(q7_length_ms);
    previous_max_ = w.max_price;
  }

 private:
  bool has_previous_ = false;
  std::int64_t previous_end_ = 0, previous_max_ = 0;
};

inline auto q7(std::size_t workers) {
  namespace window = spate::window;
  auto bids = spate::flow::flat_map<q7_row>([](event& e, auto emit) {
    if (bid* b = e.as_bid())
      emit(q7_row{b->auction, b->price, b->bidder, b->date_time, std::move(b->extra), e.stamp_ns});
  });
  auto highest = window::incremental<q7_window>([](q7_window& w, const q7_row& b) { w.add(b); },
                                                [](const int&, const q7_window& w) { return w; });
  auto windows = window::window_farming<q7_row>(
      window::time_window{
          .length = q7_length_ms, .slide = q7_length_ms, .lateness = q7_lateness_ms},
      [](const q7_row&) { return 0; }, [](const q7_row& b) { return std::uint64_t(b.date_time); },
      std::move(highest), workers);
  auto rows = spate::flow::flat_map<q7_row>(
      [matcher = q7_matcher()](window::window_result<int, q7_window>& w, auto emit) mutable {
        matcher.next(std::int64_t(w.window * q7_length_ms), w.value,
                     [&](const q7_row& b) { emit(b); });
      });
  return spate::flow::pipeline(std::move(bids).named("q7_bids"), std::move(windows),
                               std::move(rows).named("q7_rows"));
}

/// q7's rows for `events` by one loop on one thread, for bids less than the lateness behind the
/// newest (throws std::invalid_argument at the first that is not): what the benchmark checks a
/// graph's digest against. The tests compare the graph with a reference of their own.
inline std::vector<q7_row> q7_sequential(const std::vector<event>& events) {
  std::map<std::int64_t, q7_window> windows;  // by start
  on_time_check on_time("q7", std::int64_t(q7_lateness_ms));
  for (const event& e : events) {
    const bid* b = e.as_bid();
    if (b == nullptr) continue;
    on_time(b->date_time);
    windows[b->date_time - b->date_time % std::int64_t(q7_length_ms)].add(
        {b->auction, b->price, b->bidder, b->date_time, b->extra, 0});
  }
  std::vector<q7_row> rows;
  q7_matcher matcher;
  for (const auto& [start, w] : windows)
    matcher.next(start, w, [&](const q7_row& b) { rows.push_back(b); });
  return rows;
}

}  // namespace apps::nexmark
