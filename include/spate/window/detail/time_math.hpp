#pragma once
// Time arithmetic shared by the event-time patterns' stages.
#include <cstdint>
#include <limits>

namespace spate::window::detail {

// a + b, or the largest time when that overflows (state that never expires by the clock).
inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return a > std::numeric_limits<std::uint64_t>::max() - b
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}

}  // namespace spate::window::detail
