#pragma once
// Logical time (LF paper, Sect. 2.2): a tag is a time point and a microstep. Events at the
// same time point but a higher microstep are logically later and yet take no time: that is
// what `after 0` and a zero-delay action produce. Tags are totally ordered, and every
// reaction of a program sees the tags in that order.
#include <chrono>
#include <compare>
#include <cstdint>
#include <ostream>

namespace spate::reactor {

using clock = std::chrono::steady_clock;
using time_point = clock::time_point;
using duration = std::chrono::nanoseconds;
using microstep = std::uint64_t;

/// A point of logical time.
struct tag {
  /// Its time.
  time_point time{};
  /// Its microstep at that time.
  microstep step = 0;

  /// Ordered by time, then microstep.
  friend constexpr auto operator<=>(const tag&, const tag&) = default;

  /// The tag `delay` later: the next microstep for a zero delay, else (time + delay, 0).
  constexpr tag delayed_by(duration delay) const noexcept {
    if (delay == duration::zero()) return tag{time, step + 1};
    return tag{time + delay, 0};
  }
  /// After every other tag.
  static constexpr tag max() noexcept { return tag{time_point::max(), ~microstep{0}}; }
};

inline std::ostream& operator<<(std::ostream& out, const tag& t) {
  return out << '(' << t.time.time_since_epoch().count() << " ns, " << t.step << ')';
}

}  // namespace spate::reactor
