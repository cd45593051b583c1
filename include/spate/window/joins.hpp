#pragma once
// Joins of two keyed streams of different types, as flow stages over one stream of
// std::variant<L, R> (the left tuples at index 0; merge two sources into it, or map a
// stream of several event kinds onto the two you join). Each side has its own key and time
// function; both keys have one type, both times one kind (an integer, or a
// partitioned_time: event_time.hpp). The result is join(left, right) for every pair.
//
//   window::window_join<person, auction>(window::time_window{.length = 10'000, .slide = 10'000},
//       [](const person& p) { return p.id; }, [](const auction& a) { return a.seller; },
//       [](const person& p) { return p.time; }, [](const auction& a) { return a.time; },
//       [](const person& p, const auction& a) { return new_seller{p.name, a.id}; }, 2)
//
// - window_join: a pair joins in every time window (time_window.hpp) holding both tuples;
//   each key's windows fire as the time windows' do (watermark, lateness, late tuples
//   counted), and each window's pairs come out when it fires, left tuples in arrival order,
//   each with the right ones in arrival order. A window still open at the end of the stream
//   joins what it has.
// - interval_join: a left tuple at tl joins every right tuple of its key at tr with
//   tl + lower <= tr <= tl + upper (interval_bounds), as soon as the second of the two
//   arrives: no window to wait for. Each side's tuples are kept until the watermark has
//   passed the last time they can match; a tuple behind the watermark is late — what it
//   would have matched may be gone — so it is counted (late_tuples, dropped_tuples) and left
//   out. The pairs are then exactly those of a sequential run over the tuples on time.
//
// Both spread the keys over `workers` workers by hash (Key Partitioning); the results of
// different keys interleave.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "spate/window/detail/join_stages.hpp"
#include "spate/window/pattern_options.hpp"
#include "spate/window/time_window.hpp"

namespace spate::window {

/// An interval join's bounds, in the time unit of the tuples: a left tuple at tl matches a
/// right one at tr when tl + lower <= tr <= tl + upper. Either may be negative.
struct interval_bounds {
  /// The earliest right time, relative to the left one.
  std::int64_t lower = 0;
  /// The latest right time, relative to the left one.
  std::int64_t upper = 0;
  /// How far behind the newest time a tuple may arrive and still be joined.
  std::uint64_t lateness = 0;

  /// The largest bound either way (so that upper − lower fits a 64-bit integer; times may be
  /// any 64-bit value).
  static constexpr std::int64_t max_bound = std::int64_t(1) << 62;

  /// Throws std::invalid_argument naming the values.
  void check() const {
    if (lower > upper)
      throw std::invalid_argument("interval_bounds: lower " + std::to_string(lower) +
                                  " is above upper " + std::to_string(upper));
    if (lower < -max_bound || upper > max_bound)
      throw std::invalid_argument("interval_bounds: [" + std::to_string(lower) + ", " +
                                  std::to_string(upper) + "] is beyond ±2^62");
  }
};

/// Joins each key's left and right tuples that share a time window (see above).
template <class L, class R, class LeftKey, class RightKey, class LeftTime, class RightTime, class J>
auto window_join(time_window spec, LeftKey left_key, RightKey right_key, LeftTime left_time,
                 RightTime right_time, J join, std::size_t workers, pattern_options options = {}) {
  return detail::window_join_pattern<L, R>(spec, std::move(left_key), std::move(right_key),
                                           std::move(left_time), std::move(right_time),
                                           std::move(join), workers, std::move(options));
}

/// Joins each left tuple with the right tuples of its key within `bounds` of it (see above).
template <class L, class R, class LeftKey, class RightKey, class LeftTime, class RightTime, class J>
auto interval_join(interval_bounds bounds, LeftKey left_key, RightKey right_key, LeftTime left_time,
                   RightTime right_time, J join, std::size_t workers,
                   pattern_options options = {}) {
  bounds.check();
  return detail::interval_join_pattern<L, R>(
      bounds.lower, bounds.upper, bounds.lateness, std::move(left_key), std::move(right_key),
      std::move(left_time), std::move(right_time), std::move(join), workers, std::move(options));
}

}  // namespace spate::window
