#pragma once
// Nexmark q5, hot items (the Flink suite's q5.sql): in every sliding window of 10 s every
// 2 s, the auctions with the most bids —
//   SELECT AuctionBids.auction, AuctionBids.num FROM (
//     SELECT auction, count(*) AS num, window_start AS starttime, window_end AS endtime
//     FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
//     GROUP BY auction, window_start, window_end) AS AuctionBids
//   JOIN (SELECT max(num) AS maxn, starttime, endtime FROM (the same counts)
//         GROUP BY starttime, endtime) AS MaxBids
//   ON AuctionBids.starttime = MaxBids.starttime AND AuctionBids.endtime = MaxBids.endtime
//      AND AuctionBids.num >= MaxBids.maxn
// with the suite's watermark, dateTime − 4 s. Every auction tied at the top is a row; a row
// also carries its window's start, which the SQL joins on. spate's windows start at time 0 or
// later (window::time_window), where Flink's HOP also makes the four that start before 0 for
// a bid in its first 8 s: the same rows for times from 8 s on (Nexmark's are 2015's).
//
// q5(workers): the bids, then Window Farming (docs/windows.md) over one key — the whole
// stream — with consecutive windows dealt to `workers` workers; each window counts its bids
// per auction in one hash map (no tuple kept) and keeps the top ones. A window needs every
// auction's count before it knows its maximum, so it is one key, not one per auction: Key
// Partitioning by auction would need a second stage that knows when every worker has sent a
// window's counts, and windows carry no such mark between patterns (watermarks are made at
// each pattern's emitter).
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model.hpp"
#include "queries.hpp"

namespace apps::nexmark {

inline constexpr std::uint64_t q5_length_ms = 10'000, q5_slide_ms = 2'000;
inline constexpr std::uint64_t q5_lateness_ms = 4'000;

struct q5_row {
  std::int64_t auction = 0, num = 0;
  std::int64_t start = 0;     // the window's start, epoch ms
  std::int64_t stamp_ns = 0;  // the newest stamp of the window's bids (latency)
  friend bool operator==(const q5_row& a, const q5_row& b) {
    return a.auction == b.auction && a.num == b.num && a.start == b.start;
  }
  std::uint64_t digest() const noexcept { return fold(fold(fold(0, auction), num), start); }
};

/// What q5 keeps of a bid.
struct q5_bid {
  std::int64_t auction = 0, date_time = 0, stamp_ns = 0;
};

/// A window's bids per auction, and its newest stamp.
struct q5_counts {
  std::unordered_map<std::int64_t, std::int64_t> per_auction;
  std::int64_t newest_stamp_ns = 0;
};

/// A window's top auctions (ascending ids) and their count.
struct q5_top {
  std::vector<std::int64_t> auctions;
  std::int64_t num = 0, newest_stamp_ns = 0;
};

inline q5_top q5_top_of(const std::unordered_map<std::int64_t, std::int64_t>& per_auction) {
  q5_top top;
  for (const auto& [auction, num] : per_auction) {
    if (num > top.num) {
      top.num = num;
      top.auctions.clear();
    }
    if (num == top.num) top.auctions.push_back(auction);
  }
  std::sort(top.auctions.begin(), top.auctions.end());
  return top;
}

inline auto q5(std::size_t workers) {
  namespace window = spate::window;
  auto bids = spate::flow::flat_map<q5_bid>([](event& e, auto emit) {
    if (const bid* b = e.as_bid()) emit(q5_bid{b->auction, b->date_time, e.stamp_ns});
  });
  auto count = window::incremental<q5_counts>(
      [](q5_counts& c, const q5_bid& b) {
        ++c.per_auction[b.auction];
        c.newest_stamp_ns = std::max(c.newest_stamp_ns, b.stamp_ns);
      },
      [](const int&, const q5_counts& c) {
        q5_top top = q5_top_of(c.per_auction);
        top.newest_stamp_ns = c.newest_stamp_ns;
        return top;
      });
  auto windows = window::window_farming<q5_bid>(
      window::time_window{.length = q5_length_ms, .slide = q5_slide_ms, .lateness = q5_lateness_ms},
      [](const q5_bid&) { return 0; }, [](const q5_bid& b) { return std::uint64_t(b.date_time); },
      std::move(count), workers);
  auto rows = spate::flow::flat_map<q5_row>([](window::window_result<int, q5_top>& w, auto emit) {
    const auto start = std::int64_t(w.window * q5_slide_ms);
    for (std::int64_t auction : w.value.auctions)
      emit(q5_row{auction, w.value.num, start, w.value.newest_stamp_ns});
  });
  return spate::flow::pipeline(std::move(bids).named("q5_bids"), std::move(windows),
                               std::move(rows).named("q5_rows"));
}

/// q5's rows for `events` by one loop on one thread, for bids less than the lateness behind the
/// newest (throws std::invalid_argument at the first that is not): what the benchmark checks a
/// graph's digest against. The tests compare the graph with a reference of their own.
inline std::vector<q5_row> q5_sequential(const std::vector<event>& events) {
  std::map<std::int64_t, std::unordered_map<std::int64_t, std::int64_t>> windows;  // by start
  on_time_check on_time("q5", std::int64_t(q5_lateness_ms));
  for (const event& e : events) {
    const bid* b = e.as_bid();
    if (b == nullptr) continue;
    on_time(b->date_time);
    constexpr auto length = std::int64_t(q5_length_ms), slide = std::int64_t(q5_slide_ms);
    for (std::int64_t start = b->date_time - b->date_time % slide;
         start > b->date_time - length && start >= 0; start -= slide)
      ++windows[start][b->auction];
  }
  std::vector<q5_row> rows;
  for (const auto& [start, per_auction] : windows) {
    const q5_top top = q5_top_of(per_auction);
    for (std::int64_t auction : top.auctions) rows.push_back({auction, top.num, start, 0});
  }
  return rows;
}

}  // namespace apps::nexmark
