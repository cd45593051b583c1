#pragma once
// How reactor error messages write logical time: a duration in the largest unit that is
// exact ("12 ms", "-5 us", "1500 ns"), a tag as its time since the start and its microstep
// ("(12 ms, 0)").
#include <chrono>
#include <string>

#include "spate/reactor/tag.hpp"

namespace spate::reactor::detail {

inline std::string describe_duration(duration d) {
  using namespace std::chrono;
  if (d % milliseconds(1) == duration::zero())
    return std::to_string(duration_cast<milliseconds>(d).count()) + " ms";
  if (d % microseconds(1) == duration::zero())
    return std::to_string(duration_cast<microseconds>(d).count()) + " us";
  return std::to_string(d.count()) + " ns";
}

inline std::string describe_tag(const tag& at, time_point start) {
  // Appended piece by piece: GCC 12's -Wrestrict misfires on "(" + std::string at -O3.
  std::string text = "(";
  text += describe_duration(at.time - start);
  text += ", ";
  text += std::to_string(at.step);
  text += ')';
  return text;
}

}  // namespace spate::reactor::detail
