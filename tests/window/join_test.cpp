// Joins of two keyed streams (window::window_join, window::interval_join) against sequential
// references: the interval join's pairs, per key in the order they are made, with late
// tuples counted, for 1 to 4 workers and negative bounds, on out-of-order streams; the window
// join's pairs per key, window by window; the interval keeper drops what can no longer
// match and restores from its checkpoint copy; misuse refused.
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <utility>
#include <variant>
#include <vector>

namespace spate::window {
namespace {

struct order {
  int customer;
  std::uint64_t time;
  int id;
};
struct payment {
  int customer;
  std::uint64_t time;
  int id;
};
using event = std::variant<order, payment>;
struct matched {
  int customer, order, payment;
  friend bool operator==(const matched&, const matched&) = default;
};

auto order_customer = [](const order& o) { return o.customer; };
auto payment_customer = [](const payment& p) { return p.customer; };
auto order_time = [](const order& o) { return o.time; };
auto payment_time = [](const payment& p) { return p.time; };
auto match = [](const order& o, const payment& p) { return matched{o.customer, o.id, p.id}; };

int customer_of(const event& e) {
  return e.index() == 0 ? std::get<0>(e).customer : std::get<1>(e).customer;
}
std::uint64_t time_of(const event& e) {
  return e.index() == 0 ? std::get<0>(e).time : std::get<1>(e).time;
}

// Orders and payments of 7 customers, times ~3 apart from `base` on, disordered by up to
// `jitter` (and never below 0).
std::vector<event> shop(std::size_t n, std::uint64_t jitter, unsigned seed,
                        std::uint64_t base = 5000) {
  std::mt19937 random{seed};
  std::vector<event> out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t v =
        std::int64_t(base + i * 3 + random() % (2 * jitter + 1)) - std::int64_t(jitter);
    const std::uint64_t t = std::uint64_t(std::max<std::int64_t>(v, 0));
    const int customer = int(random() % 7);
    if (random() % 2 == 0)
      out.push_back(order{customer, t, int(i)});
    else
      out.push_back(payment{customer, t, int(i)});
  }
  return out;
}

using per_customer = std::map<int, std::vector<matched>>;

template <class Pattern>
per_customer run(const std::vector<event>& in, Pattern pattern) {
  per_customer out;
  flow::graph job(flow::pipeline(flow::from_range(in), std::move(pattern),
                                 flow::sink([&](matched& m) { out[m.customer].push_back(m); })));
  job.run();
  return out;
}

// The interval join's rule, one thread: a tuple behind the watermark (newest − lateness, as
// it stood before the tuple) is late; any other joins the earlier tuples of the other side
// within bounds, in time order (ties in arrival order).
per_customer interval_reference(const std::vector<event>& in, interval_bounds b,
                                std::uint64_t& late) {
  per_customer out;
  std::vector<std::pair<std::size_t, const event*>> kept;  // arrival number, tuple
  std::uint64_t newest = 0;
  late = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const event& e = in[i];
    const std::uint64_t watermark = newest > b.lateness ? newest - b.lateness : 0;
    newest = std::max(newest, time_of(e));
    if (time_of(e) < watermark) {
      ++late;
      continue;
    }
    std::vector<std::pair<std::uint64_t, std::size_t>> matches;  // (time, arrival)
    for (const auto& [arrival, other] : kept) {
      if (other->index() == e.index() || customer_of(*other) != customer_of(e)) continue;
      const auto& [l, r] = e.index() == 0 ? std::pair{&e, other} : std::pair{other, &e};
      const std::int64_t d = std::int64_t(time_of(*r)) - std::int64_t(time_of(*l));
      if (b.lower <= d && d <= b.upper) matches.emplace_back(time_of(*other), arrival);
    }
    std::sort(matches.begin(), matches.end());
    for (const auto& [t, arrival] : matches) {
      const event& other = in[arrival];
      const order& o = std::get<0>(e.index() == 0 ? e : other);
      const payment& p = std::get<1>(e.index() == 1 ? e : other);
      out[o.customer].push_back(match(o, p));
    }
    kept.emplace_back(i, &e);
  }
  return out;
}

TEST(interval_join, matches_the_sequential_reference_with_late_data_and_any_bounds) {
  const interval_bounds bounds[] = {{.lower = 0, .upper = 20, .lateness = 0},
                                    {.lower = -15, .upper = 15, .lateness = 10},
                                    {.lower = -40, .upper = -5, .lateness = 30},
                                    {.lower = 5, .upper = 60, .lateness = 5}};
  std::size_t pairs = 0, lates = 0;
  for (const interval_bounds& b : bounds) {
    // From time 0: the range lookups clamp at 0 for the earliest tuples.
    const auto stream = shop(4000, 12, unsigned(b.upper + 100), b.lower < 0 ? 0 : 5000);
    std::uint64_t late = 0;
    const per_customer expected = interval_reference(stream, b, late);
    for (const auto& [c, list] : expected) pairs += list.size();
    lates += late;
    for (std::size_t workers : {1, 2, 4}) {
      SCOPED_TRACE("bounds [" + std::to_string(b.lower) + ", " + std::to_string(b.upper) +
                   "] lateness " + std::to_string(b.lateness) + " workers " +
                   std::to_string(workers));
      auto report = std::make_shared<window_report>();
      EXPECT_EQ(run(stream, interval_join<order, payment>(b, order_customer, payment_customer,
                                                          order_time, payment_time, match, workers,
                                                          {.report = report})),
                expected);
      EXPECT_EQ(report->late_tuples.load(), late);
      EXPECT_EQ(report->dropped_tuples.load(), late);
    }
  }
  EXPECT_GT(pairs, 2'000u);
  EXPECT_GT(lates, 100u);
}

TEST(interval_join, the_keeper_drops_what_can_no_longer_match_and_restores) {
  detail::interval_join_keeper<int, order, payment> k(-10, 10, 0);
  std::vector<matched> got;
  const auto emit = [&](const order& o, const payment& p) { got.push_back(match(o, p)); };
  for (int i = 0; i < 100; ++i)
    k.add_left(i % 3, order{i % 3, std::uint64_t(100 + i), i}, 100 + i, emit);
  k.add_right(1, payment{1, 150, 1000}, 150, emit);  // orders 40 .. 60 of customer 1
  EXPECT_EQ(got.size(), 7u);
  const auto copy = k.snapshot();
  k.advance(1000);
  EXPECT_EQ(k.kept_tuples(), 0u);

  detail::interval_join_keeper<int, order, payment> restored(-10, 10, 0);
  restored.restore(copy, [](int) { return true; });
  EXPECT_EQ(restored.kept_tuples(), 101u);
  got.clear();
  restored.add_right(2, payment{2, 199, 1001}, 199, emit);  // orders 89, 92, 95, 98
  EXPECT_EQ(got.size(), 4u);
  detail::interval_join_keeper<int, order, payment> other(-10, 11, 0);
  EXPECT_THROW(other.restore(copy, [](int) { return true; }), std::runtime_error);
}

TEST(interval_join, times_at_either_end_of_the_range_match_and_drop_without_overflow) {
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  constexpr std::int64_t far = interval_bounds::max_bound;
  detail::interval_join_keeper<int, order, payment> k(-far, far, 0);
  std::vector<matched> got;
  const auto emit = [&](const order& o, const payment& p) { got.push_back(match(o, p)); };
  k.add_left(1, order{1, 3, 1}, 3, emit);
  k.add_left(1, order{1, top - 2, 2}, top - 2, emit);
  k.add_right(1, payment{1, top, 3}, top, emit);  // within 2^62 of the second order only
  k.add_right(1, payment{1, 0, 4}, 0, emit);      // within 2^62 of the first only
  EXPECT_EQ(got, (std::vector<matched>{{1, 2, 3}, {1, 1, 4}}));
  k.advance(top);  // the first order and the payment at 0 can no longer match
  EXPECT_EQ(k.kept_tuples(), 2u);
  const auto beyond = interval_bounds{.lower = -far - 1, .upper = 0};
  EXPECT_THROW(beyond.check(), std::invalid_argument);
}

TEST(interval_join, bounds_the_wrong_way_round_are_refused_naming_them) {
  try {
    (void)interval_join<order, payment>(interval_bounds{.lower = 5, .upper = -5}, order_customer,
                                        payment_customer, order_time, payment_time, match, 1);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("lower 5 is above upper -5"), std::string::npos)
        << e.what();
  }
}

TEST(window_join, pairs_each_windows_orders_and_payments_of_a_customer) {
  const time_window spec{.length = 60, .slide = 30, .lateness = 30};
  const auto stream = shop(3000, 12, 9);  // disorder within the lateness: nothing late
  // Reference: per customer, window by window, each order (arrival order) with each payment.
  per_customer expected;
  std::map<int, std::map<std::uint64_t, std::vector<const event*>>> windows;
  for (const event& e : stream)
    for (std::uint64_t w = spec.first_holding(time_of(e)); w <= spec.last_holding(time_of(e)); ++w)
      windows[customer_of(e)][w].push_back(&e);
  for (const auto& [c, per_window] : windows)
    for (const auto& [w, tuples] : per_window)
      for (const event* l : tuples)
        if (l->index() == 0)
          for (const event* r : tuples)
            if (r->index() == 1) expected[c].push_back(match(std::get<0>(*l), std::get<1>(*r)));
  std::size_t pairs = 0;
  for (const auto& [c, list] : expected) pairs += list.size();
  EXPECT_GT(pairs, 2'000u);
  for (std::size_t workers : {1, 3}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    auto report = std::make_shared<window_report>();
    EXPECT_EQ(
        run(stream, window_join<order, payment>(spec, order_customer, payment_customer, order_time,
                                                payment_time, match, workers, {.report = report})),
        expected);
    EXPECT_EQ(report->late_tuples.load(), 0u);
  }
}

}  // namespace
}  // namespace spate::window
