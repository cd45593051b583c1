#pragma once
// Nexmark queries with state, as spate stages (the stateless ones: queries.hpp): q3 and q20
// (join_queries.hpp), q5, q7 and q8 (one file each), all included here, and q11 below.
//
//   q11 user sessions (the Flink suite's q11.sql):
//     SELECT bidder, count(*), SESSION_START(dateTime, INTERVAL '10' SECOND),
//            SESSION_END(dateTime, INTERVAL '10' SECOND)
//     FROM bid GROUP BY bidder, SESSION(dateTime, INTERVAL '10' SECOND)
//   with the suite's watermark, dateTime − 4 s (its DDL: WATERMARK FOR dateTime AS dateTime -
//   INTERVAL '4' SECOND). A session ends 10 s after its last bid (SESSION_END); at the end of
//   the input every open session is emitted, as Flink's final watermark does.
//
// q11(workers) is a stage from `event` to q11_row: the bids, then window::sessions over
// `workers` session workers keyed by bidder (docs/windows.md), then the rows.
//
//   q12 processing-time windows (the Flink suite's q12.sql; not in the original suite):
//     SELECT bidder, count(*) AS bid_count, window_start AS starttime, window_end AS endtime
//     FROM TABLE(TUMBLE(TABLE (SELECT *, PROCTIME() AS p_time FROM bid), DESCRIPTOR(p_time),
//                       INTERVAL '10' SECOND))
//     GROUP BY bidder, window_start, window_end
//   as window::key_partitioning over processing-time windows of 10 s (time_window.hpp): a
//   bid's window is where its arrival at the pattern's emitter falls, counted from the
//   emitter's start, and the windows still open at the end of the input are emitted then.
//   Which window a bid falls in depends on the machine's timing, so the rows are not
//   repeatable; each bidder's total over its rows is (the count of its bids): that is what the
//   tests and the benchmark check (q12_sequential gives each bidder's total as one row).
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "join_queries.hpp"  // q3, q20: regular joins
#include "model.hpp"
#include "q5.hpp"  // hot items: sliding windows
#include "q7.hpp"  // highest bid: tumbling windows
#include "q8.hpp"  // monitor new users: a tumbling window join
#include "queries.hpp"

namespace apps::nexmark {

inline constexpr std::uint64_t q11_gap_ms = 10'000;
inline constexpr std::uint64_t q11_lateness_ms = 4'000;

struct q11_row {
  std::int64_t bidder = 0, bid_count = 0, start = 0, end = 0;  // times: epoch ms
  std::int64_t stamp_ns = 0;  // the newest stamp of the session's bids (latency)
  friend bool operator==(const q11_row& a, const q11_row& b) {
    return a.bidder == b.bidder && a.bid_count == b.bid_count && a.start == b.start &&
           a.end == b.end;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(0, bidder), bid_count), start), end);
  }
};

/// What q11 and q12 keep of a bid: its bidder, time and stamp (the rest of the bid is not needed).
struct q11_bid {
  std::int64_t bidder = 0, date_time = 0, stamp_ns = 0;
};

/// A session's count so far and its newest stamp.
struct q11_count {
  std::int64_t bids = 0, newest_stamp_ns = 0;
};

/// The bids as q11 and q12 read them.
inline auto bidder_bids() {
  return spate::flow::flat_map<q11_bid>([](event& e, auto emit) {
    if (const bid* b = e.as_bid()) emit(q11_bid{b->bidder, b->date_time, e.stamp_ns});
  });
}

/// COUNT(*) over a window's bids, with their newest stamp (q11's and q12's).
inline auto bid_count() {
  return spate::window::incremental<q11_count>(
      [](q11_count& c, const q11_bid& b) {
        ++c.bids;
        c.newest_stamp_ns = std::max(c.newest_stamp_ns, b.stamp_ns);
      },
      [](const std::int64_t&, const q11_count& c) { return c; },
      [](q11_count& into, const q11_count& from) {
        into.bids += from.bids;
        into.newest_stamp_ns = std::max(into.newest_stamp_ns, from.newest_stamp_ns);
      });
}

inline auto q11(std::size_t workers) {
  namespace window = spate::window;
  auto bids = bidder_bids();
  auto count = bid_count();
  auto sessions = window::sessions<q11_bid>(
      window::session_window{.gap = q11_gap_ms, .lateness = q11_lateness_ms},
      [](const q11_bid& b) { return b.bidder; },
      [](const q11_bid& b) { return std::uint64_t(b.date_time); }, std::move(count), workers);
  auto rows = spate::flow::map([](window::session_result<std::int64_t, q11_count>& s) {
    return q11_row{s.key, s.value.bids, std::int64_t(s.start), std::int64_t(s.end),
                   s.value.newest_stamp_ns};
  });
  return spate::flow::pipeline(std::move(bids).named("q11_bids"), std::move(sessions),
                               std::move(rows).named("q11_rows"));
}

/// q11's rows for `events` by one loop on one thread, for input whose bids are in time order
/// per bidder and less than the lateness behind the newest (the generator's, without out-of-order
/// groups, and its files), where sessions never merge and no bid is late: throws
/// std::invalid_argument at the first bid that is not. The benchmark checks a graph's digest
/// against it; the tests compare the graph with a reference of their own.
inline std::vector<q11_row> q11_sequential(const std::vector<event>& events) {
  struct open_session {
    std::int64_t start, last, count;
  };
  std::map<std::int64_t, open_session> open;
  std::vector<q11_row> rows;
  on_time_check on_time("q11", std::int64_t(q11_lateness_ms));
  for (const event& e : events) {
    const bid* b = e.as_bid();
    if (b == nullptr) continue;
    on_time(b->date_time);
    const auto it = open.find(b->bidder);
    if (it != open.end() && b->date_time < it->second.last)
      throw std::invalid_argument("q11_sequential: bidder " + std::to_string(b->bidder) +
                                  "'s bid at " + std::to_string(b->date_time) + " follows one at " +
                                  std::to_string(it->second.last));
    if (it != open.end() && b->date_time - it->second.last <= std::int64_t(q11_gap_ms)) {
      it->second.last = b->date_time;
      ++it->second.count;
      continue;
    }
    if (it != open.end()) {
      const open_session& s = it->second;
      rows.push_back({b->bidder, s.count, s.start, s.last + std::int64_t(q11_gap_ms), 0});
    }
    open[b->bidder] = {b->date_time, b->date_time, 1};
  }
  for (const auto& [bidder, s] : open)
    rows.push_back({bidder, s.count, s.start, s.last + std::int64_t(q11_gap_ms), 0});
  return rows;
}

inline constexpr std::chrono::seconds q12_window{10};

struct q12_row {
  std::int64_t bidder = 0, bid_count = 0;
  std::int64_t start_ns = 0, end_ns = 0;  // the window: since the pattern's emitter started
  std::int64_t stamp_ns = 0;              // the newest stamp of the window's bids (latency)
  /// What the check adds up: each bidder's counts over its windows (see q12 above).
  std::int64_t total_key() const noexcept { return bidder; }
  std::int64_t total_count() const noexcept { return bid_count; }
};

/// q12 over `workers` window workers, its windows `window` long (the query's: 10 s).
inline auto q12(std::size_t workers, std::chrono::nanoseconds window = q12_window) {
  namespace window_ns = spate::window;
  auto windows = window_ns::key_partitioning<q11_bid>(
      window_ns::processing_time_window{.length = window, .slide = window},
      [](const q11_bid& b) { return b.bidder; }, bid_count(), workers);
  auto rows = spate::flow::map(
      [length = window.count()](window_ns::window_result<std::int64_t, q11_count>& w) {
        const auto start = std::int64_t(w.window) * length;
        return q12_row{w.key, w.value.bids, start, start + length, w.value.newest_stamp_ns};
      });
  return spate::flow::pipeline(bidder_bids().named("q12_bids"), std::move(windows),
                               std::move(rows).named("q12_rows"));
}

/// What q12's rows add up to for `events`, whatever the windows: one row per bidder with the
/// count of its bids (in bidder order), as if one window held them all.
inline std::vector<q12_row> q12_sequential(const std::vector<event>& events) {
  std::map<std::int64_t, std::int64_t> counts;
  for (const event& e : events)
    if (const bid* b = e.as_bid()) ++counts[b->bidder];
  std::vector<q12_row> rows;
  rows.reserve(counts.size());
  for (const auto& [bidder, count] : counts) rows.push_back({bidder, count, 0, 0, 0});
  return rows;
}

}  // namespace apps::nexmark
