#pragma once
// Top-N per window, as a window function for any pattern (count and time windows, panes
// aside, sessions): keeps the n tuples with the highest score(tuple), best first, ties in
// arrival order (in sessions that merged, the earlier session's first), in an accumulator of
// at most n tuples per open window.
//
//   window::key_partitioning<bid>(window::time_window{.length = 10'000, .slide = 2'000},
//                                 auction_of, time_of,
//                                 window::top_n<bid>(3, [](const bid& b) { return b.price; }),
//                                 2)  // window_result<auction, std::vector<bid>>
//
// The top N over all keys of a window is the top N of a pattern keyed by a constant (one
// key, so one worker), or the top N of the per-key results in a second pattern.
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/window/window_function.hpp"

namespace spate::window {

/// The n tuples of each window with the highest `score(tuple)` (any totally ordered type),
/// as a std::vector<T>, best first; among equal scores the earlier arrival comes first.
/// Throws std::invalid_argument for n == 0.
template <class T, class Score>
  requires std::is_invocable_v<const Score&, const T&>
auto top_n(std::size_t n, Score score) {
  if (n == 0) throw std::invalid_argument("window::top_n: n must be > 0");
  // Inserts `t` after every tuple that scores at least as high: stable, best first.
  auto update = [n, score](std::vector<T>& best, const T& t) {
    const auto s = score(t);
    if (best.size() == n && !(score(best.back()) < s)) return;
    const auto at =
        std::upper_bound(best.begin(), best.end(), s,
                         [&](const auto& value, const T& x) { return score(x) < value; });
    best.insert(at, t);
    if (best.size() > n) best.pop_back();
  };
  // `from` is the later session: among equal scores, `into`'s tuples stay first.
  auto merge = [n, score](std::vector<T>& into, const std::vector<T>& from) {
    std::vector<T> merged;
    merged.reserve(std::min(n, into.size() + from.size()));
    auto a = into.begin();
    auto b = from.begin();
    while (merged.size() < n && (a != into.end() || b != from.end())) {
      if (b == from.end() || (a != into.end() && !(score(*a) < score(*b))))
        merged.push_back(std::move(*a++));
      else
        merged.push_back(*b++);
    }
    into = std::move(merged);
  };
  return incremental<std::vector<T>>(
      std::move(update), [](const auto& /*key*/, const std::vector<T>& best) { return best; },
      std::move(merge));
}

}  // namespace spate::window
