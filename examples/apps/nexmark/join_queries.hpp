#pragma once
// Nexmark's regular (unwindowed) joins, as spate stages:
//
//   q3  local item suggestion (the Flink suite's q3.sql):
//     SELECT P.name, P.city, P.state, A.id FROM auction AS A
//     INNER JOIN person AS P on A.seller = P.id
//     WHERE A.category = 10 and (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')
//   q20 expand bid with auction (q20.sql):
//     SELECT auction, bidder, price, channel, url, B.dateTime, B.extra, itemName, description,
//            initialBid, reserve, A.dateTime, expires, seller, category, A.extra
//     FROM bid AS B INNER JOIN auction AS A on B.auction = A.id WHERE A.category = 10
//
// A regular join matches every pair of its key whatever their times, as soon as the second
// of the two arrives, and so keeps both sides for ever (as Flink keeps them in its state). Here
// it is window::interval_join (docs/windows.md) with bounds of ±2^62, which take any two times
// from 0 to 2^62 (epoch milliseconds: 146 million years), and a lateness no time can exceed,
// so that nothing is ever late or dropped: Key Partitioning over `workers` workers by the join
// key. Event times before 0 are not taken (the sequential loops refuse them).
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "model.hpp"
#include "queries.hpp"

namespace apps::nexmark {

/// An interval join's bounds that make it a regular join.
inline constexpr spate::window::interval_bounds any_time = {
    .lower = -spate::window::interval_bounds::max_bound,
    .upper = spate::window::interval_bounds::max_bound,
    .lateness = std::numeric_limits<std::uint64_t>::max()};

// ---------------------------------------------------------------- q3

struct q3_row {
  std::string name, city, state;
  std::int64_t id = 0;        // the auction's
  std::int64_t stamp_ns = 0;  // the later stamp of the two events (latency)
  friend bool operator==(const q3_row& a, const q3_row& b) {
    return a.name == b.name && a.city == b.city && a.state == b.state && a.id == b.id;
  }
  std::uint64_t digest() const noexcept {
    return fold(fold(fold(fold(0, text_digest(name)), text_digest(city)), text_digest(state)), id);
  }
};

/// What q3 keeps of a person in OR, ID or CA, and of an auction of category 10.
struct q3_person {
  std::int64_t id = 0, date_time = 0, stamp_ns = 0;
  std::string name, city, state;
};
struct q3_auction {
  std::int64_t id = 0, seller = 0, date_time = 0, stamp_ns = 0;
};

inline bool q3_state(std::string_view state) {
  return state == "OR" || state == "ID" || state == "CA";
}

/// q3's first half: each event to what the join keeps of it, or nothing (a stage with no
/// state: a parallel source may run one per replica, chained to it).
inline auto q3_sides() {
  using item = std::variant<q3_person, q3_auction>;
  return spate::flow::flat_map<item>([](event& e, auto emit) {
           if (person* p = std::get_if<person>(&e.data)) {
             if (q3_state(p->state))
               emit(q3_person{p->id, p->date_time, e.stamp_ns, std::move(p->name),
                              std::move(p->city), std::move(p->state)});
           } else if (const auction* a = e.as_auction()) {
             if (a->category == 10) emit(q3_auction{a->id, a->seller, a->date_time, e.stamp_ns});
           }
         })
      .named("q3_sides");
}
/// q3's second half: the join, Key Partitioning over `workers` workers.
inline auto q3_join(std::size_t workers) {
  namespace window = spate::window;
  return window::interval_join<q3_person, q3_auction>(
      any_time, [](const q3_person& p) { return p.id; },
      [](const q3_auction& a) { return a.seller; },
      [](const q3_person& p) { return std::uint64_t(p.date_time); },
      [](const q3_auction& a) { return std::uint64_t(a.date_time); },
      [](const q3_person& p, const q3_auction& a) {
        return q3_row{p.name, p.city, p.state, a.id, std::max(p.stamp_ns, a.stamp_ns)};
      },
      workers);
}
inline auto q3(std::size_t workers) {
  return spate::flow::pipeline(q3_sides(), q3_join(workers));
}

/// q3's rows for `events` by one loop on one thread (any order of events): what the benchmark
/// checks a graph's digest against. The tests compare the graph with a reference of their own.
inline std::vector<q3_row> q3_sequential(const std::vector<event>& events) {
  std::unordered_map<std::int64_t, std::vector<const person*>> persons;  // by id
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> auctions;  // ids, by seller
  std::vector<q3_row> rows;
  on_time_check from_time_0("q3", std::numeric_limits<std::int64_t>::max());  // nothing late
  for (const event& e : events) {
    from_time_0(e.date_time());
    if (const person* p = e.as_person(); p != nullptr && q3_state(p->state)) {
      persons[p->id].push_back(p);
      for (std::int64_t id : auctions[p->id]) rows.push_back({p->name, p->city, p->state, id, 0});
    } else if (const auction* a = e.as_auction(); a != nullptr && a->category == 10) {
      auctions[a->seller].push_back(a->id);
      for (const person* q : persons[a->seller])
        rows.push_back({q->name, q->city, q->state, a->id, 0});
    }
  }
  return rows;
}

// ---------------------------------------------------------------- q20

/// A q20 row: the bid and its auction, shared with the join's state rather than copied (both
/// are immutable once read; a Flink row holds references to the same strings).
struct q20_row {
  std::shared_ptr<const bid> b;
  std::shared_ptr<const auction> a;
  std::int64_t stamp_ns = 0;  // the later stamp of the two events (latency)
  /// The row's 16 columns, in the SQL's order.
  auto fields() const {
    return std::tie(b->auction, b->bidder, b->price, b->channel, b->url, b->date_time, b->extra,
                    a->item_name, a->description, a->initial_bid, a->reserve, a->date_time,
                    a->expires, a->seller, a->category, a->extra);
  }
  friend bool operator==(const q20_row& x, const q20_row& y) { return x.fields() == y.fields(); }
  std::uint64_t digest() const noexcept {
    std::uint64_t h = fold(fold(fold(0, b->auction), b->bidder), b->price);
    h = fold(fold(fold(fold(h, text_digest(b->channel)), text_digest(b->url)), b->date_time),
             text_digest(b->extra));
    h = fold(
        fold(fold(fold(h, text_digest(a->item_name)), text_digest(a->description)), a->initial_bid),
        a->reserve);
    h = fold(fold(fold(fold(h, a->date_time), a->expires), a->seller), a->category);
    return fold(h, text_digest(a->extra));
  }
};

/// What q20 keeps of a bid and of an auction of category 10: all of it, shared.
struct q20_bid {
  std::shared_ptr<const bid> b;
  std::int64_t stamp_ns = 0;
};
struct q20_auction {
  std::shared_ptr<const auction> a;
  std::int64_t stamp_ns = 0;
};

/// q20's first half: each event to what the join keeps of it, or nothing (a stage with no
/// state: a parallel source may run one per replica, chained to it).
inline auto q20_sides() {
  using item = std::variant<q20_bid, q20_auction>;
  return spate::flow::flat_map<item>([](event& e, auto emit) {
           if (bid* b = e.as_bid()) {
             emit(q20_bid{std::make_shared<const bid>(std::move(*b)), e.stamp_ns});
           } else if (auction* a = std::get_if<auction>(&e.data)) {
             if (a->category == 10)
               emit(q20_auction{std::make_shared<const auction>(std::move(*a)), e.stamp_ns});
           }
         })
      .named("q20_sides");
}
/// q20's second half: the join, Key Partitioning over `workers` workers.
inline auto q20_join(std::size_t workers) {
  namespace window = spate::window;
  return window::interval_join<q20_bid, q20_auction>(
      any_time, [](const q20_bid& b) { return b.b->auction; },
      [](const q20_auction& a) { return a.a->id; },
      [](const q20_bid& b) { return std::uint64_t(b.b->date_time); },
      [](const q20_auction& a) { return std::uint64_t(a.a->date_time); },
      [](const q20_bid& b, const q20_auction& a) {
        return q20_row{b.b, a.a, std::max(b.stamp_ns, a.stamp_ns)};
      },
      workers);
}
inline auto q20(std::size_t workers) {
  return spate::flow::pipeline(q20_sides(), q20_join(workers));
}

/// q20's rows for `events` by one loop on one thread (any order of events): what the benchmark
/// checks a graph's digest against. The rows point into `events` (shared pointers that own
/// nothing: no copy of the events), valid while it lives. The tests compare the graph with a
/// reference of their own.
inline std::vector<q20_row> q20_sequential(const std::vector<event>& events) {
  std::unordered_map<std::int64_t, std::vector<const bid*>> bids;          // by auction
  std::unordered_map<std::int64_t, std::vector<const auction*>> auctions;  // by id
  const auto row = [](const bid* b, const auction* a) {
    return q20_row{std::shared_ptr<const bid>(std::shared_ptr<void>(), b),
                   std::shared_ptr<const auction>(std::shared_ptr<void>(), a), 0};
  };
  std::vector<q20_row> rows;
  on_time_check from_time_0("q20", std::numeric_limits<std::int64_t>::max());  // nothing late
  for (const event& e : events) {
    from_time_0(e.date_time());
    if (const bid* b = e.as_bid()) {
      bids[b->auction].push_back(b);
      for (const auction* a : auctions[b->auction]) rows.push_back(row(b, a));
    } else if (const auction* a = e.as_auction(); a != nullptr && a->category == 10) {
      auctions[a->id].push_back(a);
      for (const bid* b : bids[a->id]) rows.push_back(row(b, a));
    }
  }
  return rows;
}

}  // namespace apps::nexmark
