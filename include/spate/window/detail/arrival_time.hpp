#pragma once
// The time function of the processing-time patterns (time windows and sessions): a tuple's
// time is its arrival at the pattern's emitter, whose timer ticks every `tick`.
#include <chrono>
#include <type_traits>

namespace spate::window::detail {

struct arrival_time {
  std::chrono::nanoseconds tick;
};

template <class TimeFn>
inline constexpr bool is_processing_time = std::is_same_v<TimeFn, arrival_time>;

}  // namespace spate::window::detail
