#pragma once
// The time function of the processing-time patterns (time windows and sessions): a tuple's
// time is its arrival at the pattern's emitter, whose timer ticks every `tick`.
#include <algorithm>
#include <chrono>
#include <type_traits>

namespace spate::window::detail {

struct arrival_time {
  std::chrono::nanoseconds tick;
};

template <class TimeFn>
inline constexpr bool is_processing_time = std::is_same_v<TimeFn, arrival_time>;

// The tick of a processing-time pattern whose state lasts `span` after a tuple (a session's
// gap, a deduplication span): a quarter of it, but at most once a millisecond unless the
// span itself is shorter.
inline std::chrono::nanoseconds processing_tick(std::chrono::nanoseconds span) {
  using namespace std::chrono_literals;
  return std::max(span / 4, std::min(span, std::chrono::nanoseconds{1ms}));
}

}  // namespace spate::window::detail
