#pragma once
// Count-based windows over each key's stream (the dynamic-memory paper, Sect. 3; WindFlow's
// count-based windows): window w of a key holds that key's tuples with per-key positions
// [w · slide, w · slide + length). slide == length: tumbling; slide < length: sliding (each
// tuple in length / slide windows); slide > length: hopping (some tuples in no window).
#include <cstdint>
#include <stdexcept>
#include <string>

namespace spate::window {

/// A window over each key's tuples counted in arrival order: window w holds positions
/// [w * slide, w * slide + length).
struct count_window {
  /// Tuples per window.
  std::uint64_t length = 0;
  /// Tuples between the starts of consecutive windows.
  std::uint64_t slide = 0;

  /// Throws std::invalid_argument naming the field.
  void check() const {
    if (length == 0) throw std::invalid_argument("count_window: length must be > 0");
    if (slide == 0) throw std::invalid_argument("count_window: slide must be > 0");
  }
  /// The first position of `window`.
  std::uint64_t start(std::uint64_t window) const noexcept { return window * slide; }
  /// The position after its last.
  std::uint64_t end(std::uint64_t window) const noexcept { return window * slide + length; }
  /// The windows that hold position i: [first_holding(i), last_holding(i)], empty when first
  /// > last (a hopping window's gap).
  std::uint64_t last_holding(std::uint64_t i) const noexcept { return i / slide; }
  /// The first window that holds position i (see last_holding).
  std::uint64_t first_holding(std::uint64_t i) const noexcept {
    return i < length ? 0 : (i - length) / slide + 1;
  }
};

inline count_window tumbling(std::uint64_t length) {
  return {length, length};
}
inline count_window sliding(std::uint64_t length, std::uint64_t slide) {
  return {length, slide};
}

}  // namespace spate::window
