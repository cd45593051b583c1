#pragma once
// Nexmark queries as spate stages.
//
// Each query is a stage from `event` to its rows; `nexmark::pipeline(source, query, sink,
// replicas)` runs it as source → farm of `replicas` → sink. A row carries the `seq` of the
// event that made it (outputs are compared sorted by it) and that event's `stamp_ns` (latency).
//
// The query texts are the Flink suite's (github.com/nexmark/nexmark, resources/queries/qN.sql):
//   q0  pass-through:        SELECT auction, bidder, price, dateTime, extra FROM bid
//   q1  currency conversion: SELECT auction, bidder, 0.908 * price, dateTime, extra FROM bid
//   q2  selection:           SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0
//   q13 bounded side-input join: each bid with side_input's value for MOD(auction, 10000)
//   q14 calculation: bids of 0.908 * price in (1,000,000, 50,000,000), with the time of day of
//       their time (UTC) and the count of 'c' in extra
//   q21 add channel id: the hot channels' fixed ids, else REGEXP_EXTRACT(url,
//       '(&|^)channel_id=([^&]*)', 2); bids with neither are dropped
//   q22 url directories: SPLIT_INDEX(url, '/', 3), (..., 4), (..., 5)
#include <spate/flow.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model.hpp"

namespace apps::nexmark {

// An order-free digest of a query's rows, for benchmarks that cannot keep every row: the sum
// (mod 2^64) of digest(row), which folds every field (texts by FNV-1a). The Flink programs compute
// the same (bench/flink/FlinkNexmark.java).
inline std::uint64_t fold(std::uint64_t h, std::int64_t v) noexcept {
  return h * 1'000'003u + std::uint64_t(v);
}
/// FNV-1a of a short text (the Flink side hashes its chars, the same bytes for ASCII); an
/// absent one (SQL NULL) is 0.
inline std::int64_t text_digest(std::string_view text) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return std::int64_t(h);
}
inline std::int64_t text_digest(const std::string& text) noexcept {
  return text_digest(std::string_view(text));
}
inline std::int64_t text_digest(const std::optional<std::string>& text) noexcept {
  return text ? text_digest(std::string_view(*text)) : 0;
}

/// An upsert changelog's final table: each key's last row, in key order of first appearance.
template <class Row>
std::vector<Row> final_table(const std::vector<Row>& changelog) {
  std::unordered_map<std::int64_t, std::size_t> index;
  std::vector<Row> table;
  for (const Row& r : changelog) {
    const auto [at, inserted] = index.try_emplace(r.table_key(), table.size());
    if (inserted)
      table.push_back(r);
    else
      table[at->second] = r;
  }
  return table;
}

/// Rows as the benchmark and the Flink program print them: how many, and the sum of their
/// digests (which no order changes).
template <class Rows>
std::pair<std::size_t, std::uint64_t> rows_digest(const Rows& rows) {
  std::uint64_t sum = 0;
  for (const auto& r : rows) sum += r.digest();
  return {std::size(rows), sum};
}

struct q0_row {
  std::int64_t auction, bidder, price, date_time;
  std::string extra;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q0_row& a, const q0_row& b) {
    return a.auction == b.auction && a.bidder == b.bidder && a.price == b.price &&
           a.date_time == b.date_time && a.extra == b.extra && a.seq == b.seq;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(fold(0, auction), bidder), price), date_time), text_digest(extra));
  }
};

/// q1's price is DECIMAL(23, 3) euros-cents: 0.908 * price, here exactly, in thousandths.
struct q1_row {
  std::int64_t auction, bidder, price_milli, date_time;
  std::string extra;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q1_row& a, const q1_row& b) {
    return a.auction == b.auction && a.bidder == b.bidder && a.price_milli == b.price_milli &&
           a.date_time == b.date_time && a.extra == b.extra && a.seq == b.seq;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(fold(0, auction), bidder), price_milli), date_time),
                text_digest(extra));
  }
};

struct q2_row {
  std::int64_t auction, price;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q2_row& a, const q2_row& b) {
    return a.auction == b.auction && a.price == b.price && a.seq == b.seq;
  }
  std::uint64_t digest() const noexcept { return fold(fold(0, auction), price); }
};

struct q13_row {
  std::int64_t auction, bidder, price, date_time;
  std::string value;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q13_row& a, const q13_row& b) {
    return a.auction == b.auction && a.bidder == b.bidder && a.price == b.price &&
           a.date_time == b.date_time && a.value == b.value && a.seq == b.seq;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(fold(0, auction), bidder), price), date_time), text_digest(value));
  }
};

struct q14_row {
  std::int64_t auction, bidder, price_milli;
  std::string_view bid_time_type;  // "dayTime", "nightTime" or "otherTime"
  std::int64_t date_time;
  std::string extra;
  std::int64_t c_counts;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q14_row& a, const q14_row& b) {
    return a.auction == b.auction && a.bidder == b.bidder && a.price_milli == b.price_milli &&
           a.bid_time_type == b.bid_time_type && a.date_time == b.date_time && a.extra == b.extra &&
           a.c_counts == b.c_counts && a.seq == b.seq;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(fold(fold(fold(0, auction), bidder), price_milli),
                               text_digest(bid_time_type)),
                          date_time),
                     text_digest(extra)),
                c_counts);
  }
};

struct q21_row {
  std::int64_t auction, bidder, price;
  std::string channel, channel_id;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q21_row& a, const q21_row& b) {
    return a.auction == b.auction && a.bidder == b.bidder && a.price == b.price &&
           a.channel == b.channel && a.channel_id == b.channel_id && a.seq == b.seq;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(fold(0, auction), bidder), price), text_digest(channel)),
                text_digest(channel_id));
  }
};

struct q22_row {
  std::int64_t auction, bidder, price;
  std::string channel;
  std::optional<std::string> dir1, dir2, dir3;  // nullopt: SQL NULL (no such part)
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
  friend bool operator==(const q22_row& a, const q22_row& b) {
    return a.auction == b.auction && a.bidder == b.bidder && a.price == b.price &&
           a.channel == b.channel && a.dir1 == b.dir1 && a.dir2 == b.dir2 && a.dir3 == b.dir3 &&
           a.seq == b.seq;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(fold(fold(fold(0, auction), bidder), price), text_digest(channel)),
                          text_digest(dir1)),
                     text_digest(dir2)),
                text_digest(dir3));
  }
};

// ---------------------------------------------------------------- SQL functions the queries use

/// q13's side input, as the suite's side_input.txt: key i has value "i", i in [0, 10,000).
inline const std::vector<std::string>& side_input() {
  static const std::vector<std::string> table = [] {
    std::vector<std::string> t;
    for (int i = 0; i < 10'000; ++i) t.push_back(std::to_string(i));
    return t;
  }();
  return table;
}

/// Flink's SPLIT_INDEX(text, separator, index): the index-th part (from 0), or NULL.
inline std::optional<std::string> split_index(std::string_view text, char separator,
                                              std::size_t index) {
  for (std::size_t part = 0;; ++part) {
    const std::size_t end = text.find(separator);
    if (part == index) return std::string(text.substr(0, end));
    if (end == std::string_view::npos) return std::nullopt;
    text.remove_prefix(end + 1);
  }
}

/// REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2): what follows the first "channel_id="
/// that starts the url or follows a '&', up to the next '&'; NULL when there is none.
inline std::optional<std::string> channel_id_in(std::string_view url) {
  constexpr std::string_view key = "channel_id=";
  for (std::size_t at = url.find(key); at != std::string_view::npos; at = url.find(key, at + 1)) {
    if (at == 0 || url[at - 1] == '&') {
      const std::string_view rest = url.substr(at + key.size());
      return std::string(rest.substr(0, rest.find('&')));
    }
  }
  return std::nullopt;
}

/// SQL lower() of ASCII text, compared with a lower-case name.
inline bool equals_lower(std::string_view text, std::string_view lower) noexcept {
  return std::equal(text.begin(), text.end(), lower.begin(), lower.end(), [](char a, char b) {
    return (a >= 'A' && a <= 'Z' ? char(a - 'A' + 'a') : a) == b;
  });
}

// ---------------------------------------------------------------- one event → its rows
//
// The per-event logic of each query, shared by its stage and the benchmark's one-thread loop
// (the tests check the stages against references written apart). The event is the stage's own
// (moved out of the ring), so its strings move into the row.

inline bool q0_of(event& e, q0_row& row) {
  bid* b = e.as_bid();
  if (b == nullptr) return false;
  row = {b->auction, b->bidder, b->price, b->date_time, std::move(b->extra), e.seq, e.stamp_ns};
  return true;
}
inline bool q1_of(event& e, q1_row& row) {
  bid* b = e.as_bid();
  if (b == nullptr) return false;
  row = {b->auction,          b->bidder, b->price * 908, b->date_time,
         std::move(b->extra), e.seq,     e.stamp_ns};
  return true;
}
inline bool q2_of(event& e, q2_row& row) {
  const bid* b = e.as_bid();
  if (b == nullptr || b->auction % 123 != 0) return false;
  row = {b->auction, b->price, e.seq, e.stamp_ns};
  return true;
}

inline bool q13_of(event& e, q13_row& row) {
  const bid* b = e.as_bid();
  // MOD(auction, 10000) is negative for a negative auction: no key matches (an inner join)
  if (b == nullptr || b->auction < 0) return false;
  row = {
      b->auction, b->bidder, b->price, b->date_time, side_input()[std::size_t(b->auction % 10'000)],
      e.seq,      e.stamp_ns};
  return true;
}
inline bool q14_of(event& e, q14_row& row) {
  bid* b = e.as_bid();
  // 0.908 * price in (1,000,000, 50,000,000), in thousandths
  if (b == nullptr || b->price * 908 <= 1'000'000'000 || b->price * 908 >= 50'000'000'000)
    return false;
  const std::int64_t hour = (b->date_time / 3'600'000) % 24;  // HOUR() of a UTC time
  const std::string_view type = hour >= 8 && hour <= 18   ? "dayTime"
                                : hour <= 6 || hour >= 20 ? "nightTime"
                                                          : "otherTime";
  const auto c_counts = std::int64_t(std::count(b->extra.begin(), b->extra.end(), 'c'));
  row = {b->auction,          b->bidder, b->price * 908, type,      b->date_time,
         std::move(b->extra), c_counts,  e.seq,          e.stamp_ns};
  return true;
}
inline bool q21_of(event& e, q21_row& row) {
  bid* b = e.as_bid();
  if (b == nullptr) return false;
  static constexpr std::string_view hot[] = {"apple", "google", "facebook", "baidu"};
  std::optional<std::string> id;
  for (std::size_t i = 0; i < 4 && !id; ++i) {
    if (equals_lower(b->channel, hot[i])) id = std::to_string(i);
  }
  if (!id) id = channel_id_in(b->url);
  if (!id) return false;
  row = {b->auction, b->bidder, b->price, std::move(b->channel), std::move(*id), e.seq, e.stamp_ns};
  return true;
}
inline bool q22_of(event& e, q22_row& row) {
  bid* b = e.as_bid();
  if (b == nullptr) return false;
  row = {b->auction,
         b->bidder,
         b->price,
         std::move(b->channel),
         split_index(b->url, '/', 3),
         split_index(b->url, '/', 4),
         split_index(b->url, '/', 5),
         e.seq,
         e.stamp_ns};
  return true;
}

/// The benchmark's one-thread loops of the queries with state in time take input whose every
/// event is strictly within the lateness of the newest before it: at the very edge spate (an
/// event at the watermark is on time) and Flink (whose watermark is 1 ms behind, newest −
/// lateness − 1, but emitted only now and then) can differ. Times must also be 0 or later:
/// spate's time windows and joins take times as unsigned integers, from 0. Throws
/// std::invalid_argument, naming the query and the times, for an event that is not; else
/// notes `time`.
class on_time_check {
 public:
  on_time_check(const char* query, std::int64_t lateness_ms)
      : query_(query), lateness_(lateness_ms) {}
  void operator()(std::int64_t time) {
    if (time < 0)
      throw std::invalid_argument(std::string(query_) + "_sequential: the event at " +
                                  std::to_string(time) + " is before time 0");
    if (time <= newest_ - lateness_)
      throw std::invalid_argument(std::string(query_) + "_sequential: the event at " +
                                  std::to_string(time) + " is " + std::to_string(lateness_) +
                                  " ms or more behind the newest, " + std::to_string(newest_));
    newest_ = std::max(newest_, time);
  }

 private:
  const char* query_;
  std::int64_t lateness_, newest_ = 0;
};

/// A stateless query as a stage: of(event&, Row&) -> bool makes the event's row, if it has one.
template <class Row, auto Of>
auto stateless_query() {
  return spate::flow::flat_map<Row>([](event& e, auto emit) {
    Row row;
    if (Of(e, row)) emit(std::move(row));
  });
}
inline auto q0() {
  return stateless_query<q0_row, q0_of>().named("q0");
}
inline auto q1() {
  return stateless_query<q1_row, q1_of>().named("q1");
}
inline auto q2() {
  return stateless_query<q2_row, q2_of>().named("q2");
}
inline auto q13() {
  return stateless_query<q13_row, q13_of>().named("q13");
}
inline auto q14() {
  return stateless_query<q14_row, q14_of>().named("q14");
}
inline auto q21() {
  return stateless_query<q21_row, q21_of>().named("q21");
}
inline auto q22() {
  return stateless_query<q22_row, q22_of>().named("q22");
}

/// A stateless query's rows for `events`, in event order, made by one loop on one thread
/// (what a benchmark checks a graph's digest against; the tests compare graphs with
/// references written apart, tests/apps/nexmark_test.cpp).
template <class Row, auto Of>
std::vector<Row> sequential_run(std::vector<event> events) {
  std::vector<Row> rows;
  for (event& e : events) {
    Row row;
    if (Of(e, row)) rows.push_back(std::move(row));
  }
  return rows;
}

/// source → farm of `replicas` copies of `query` (round-robin) → sink.
template <class Source, class Query, class Sink>
auto pipeline(Source source, Query query, Sink sink, std::size_t replicas) {
  return spate::flow::pipeline(std::move(source), spate::flow::farm(std::move(query), replicas),
                               std::move(sink));
}

}  // namespace apps::nexmark
