#pragma once
// Nexmark q8, monitor new users (the Flink suite's q8.sql): the people who opened an auction
// in the 10 s tumbling window in which they registered —
//   SELECT P.id, P.name, P.starttime
//   FROM (SELECT id, name, window_start AS starttime, window_end AS endtime
//         FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
//         GROUP BY id, name, window_start, window_end) P
//   JOIN (SELECT seller, window_start AS starttime, window_end AS endtime
//         FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
//         GROUP BY seller, window_start, window_end) A
//   ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime
// with the suite's watermark, dateTime − 4 s.
//
// q8(workers): persons and auctions as one stream of q8_item keyed by person id (a person's
// id, an auction's seller), then Key Partitioning over `workers` workers with 10 s tumbling
// windows; each key's window notes its distinct (id, name) and whether an auction came, and
// makes a row per name when one did.
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model.hpp"
#include "queries.hpp"

namespace apps::nexmark {

inline constexpr std::uint64_t q8_length_ms = 10'000;
inline constexpr std::uint64_t q8_lateness_ms = 4'000;

struct q8_row {
  std::int64_t id = 0;
  std::string name;
  std::int64_t start = 0;     // the window's start, epoch ms
  std::int64_t stamp_ns = 0;  // the newest stamp of the window's events (latency)
  friend bool operator==(const q8_row& a, const q8_row& b) {
    return a.id == b.id && a.name == b.name && a.start == b.start;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(0, id), text_digest(name)), start);
  }
};

/// A person (with its name) or an auction (name empty, is_person false), under the person id.
struct q8_item {
  std::int64_t person_id = 0, date_time = 0, stamp_ns = 0;
  bool is_person = false;
  std::string name;
};

/// A key's window: the distinct names of its persons, whether an auction came.
struct q8_window {
  std::vector<std::string> names;
  bool has_auction = false;
  std::int64_t newest_stamp_ns = 0;
};

inline auto q8(std::size_t workers) {
  namespace window = spate::window;
  auto items = spate::flow::flat_map<q8_item>([](event& e, auto emit) {
    if (person* p = std::get_if<person>(&e.data))
      emit(q8_item{p->id, p->date_time, e.stamp_ns, true, std::move(p->name)});
    else if (const auction* a = e.as_auction())
      emit(q8_item{a->seller, a->date_time, e.stamp_ns, false, {}});
  });
  auto seen = window::incremental<q8_window>(
      [](q8_window& w, const q8_item& item) {
        w.newest_stamp_ns = std::max(w.newest_stamp_ns, item.stamp_ns);
        if (!item.is_person)
          w.has_auction = true;
        else if (std::find(w.names.begin(), w.names.end(), item.name) == w.names.end())
          w.names.push_back(item.name);
      },
      [](const std::int64_t&, const q8_window& w) { return w; });
  auto windows = window::key_partitioning<q8_item>(
      window::time_window{
          .length = q8_length_ms, .slide = q8_length_ms, .lateness = q8_lateness_ms},
      [](const q8_item& item) { return item.person_id; },
      [](const q8_item& item) { return std::uint64_t(item.date_time); }, std::move(seen), workers);
  auto rows = spate::flow::flat_map<q8_row>(
      [](window::window_result<std::int64_t, q8_window>& w, auto emit) {
        if (!w.value.has_auction) return;
        for (std::string& name : w.value.names)
          emit(q8_row{w.key, std::move(name), std::int64_t(w.window * q8_length_ms),
                      w.value.newest_stamp_ns});
      });
  return spate::flow::pipeline(std::move(items).named("q8_items"), std::move(windows),
                               std::move(rows).named("q8_rows"));
}

/// q8's rows for `events` by one loop on one thread, for persons and auctions less than the
/// lateness behind the newest of them (throws std::invalid_argument at the first that is not):
/// what the benchmark checks a graph's digest against. The tests compare the graph with a
/// reference of their own.
inline std::vector<q8_row> q8_sequential(const std::vector<event>& events) {
  struct key_window {
    std::set<std::string> names;
    bool has_auction = false;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, key_window> windows;  // by (start, id)
  on_time_check on_time("q8", std::int64_t(q8_lateness_ms));
  for (const event& e : events) {
    if (e.as_bid() != nullptr) continue;
    const std::int64_t t = e.date_time();
    on_time(t);
    const std::int64_t start = t - t % std::int64_t(q8_length_ms);
    if (const person* p = e.as_person())
      windows[{start, p->id}].names.insert(p->name);
    else
      windows[{start, e.as_auction()->seller}].has_auction = true;
  }
  std::vector<q8_row> rows;
  for (const auto& [at, w] : windows) {
    if (!w.has_auction) continue;
    for (const std::string& name : w.names) rows.push_back({at.second, name, at.first, 0});
  }
  return rows;
}

}  // namespace apps::nexmark
