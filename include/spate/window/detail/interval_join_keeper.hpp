#pragma once
// One worker's side of window::interval_join (joins.hpp), for every key routed to it: the
// left and right tuples of each key still able to match, and the matching.
//
// A left tuple at tl matches a right one at tr of its key when tl + lower <= tr <= tl +
// upper. Each pair is joined once, when its second tuple arrives: the first is then still
// kept, because a left tuple is dropped only once the watermark has passed tl + upper and
// a right one once it has passed tr − lower, while a tuple on time (t >= its watermark
// stamp, detail/keyed_time_emitter.hpp) can only match kept tuples within those bounds. So
// the pairs are exactly those of all the tuples on time, whatever the worker count.
//
// Each side is kept per key in time order, so a tuple finds its matches by a range lookup,
// in time order (ties in arrival order). Dropping is lazy — when the watermark has moved on
// by `drop_every` since the last drop — which changes memory only, never the pairs: a kept
// tuple that a tuple on time is in bounds with would not have been dropped yet either.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spate/state/codec.hpp"
#include "spate/window/detail/window_checkpoints.hpp"

namespace spate::window::detail {

template <class Key, class L, class R>
class interval_join_keeper {
 public:
  /// A checkpoint's copy: the bounds and lateness (a shape, checked at restore), per key the
  /// kept left and right tuples with their times, in time order.
  using kept =
      std::pair<window_shape,
                std::unordered_map<Key, std::pair<std::vector<std::pair<std::uint64_t, L>>,
                                                  std::vector<std::pair<std::uint64_t, R>>>>>;
  static constexpr bool checkpointable = state::encodable<kept>;

  interval_join_keeper(std::int64_t lower, std::int64_t upper, std::uint64_t lateness)
      : lower_(lower),
        upper_(upper),
        lateness_(lateness),
        drop_every_(std::max<std::uint64_t>(span(lower, upper) / 4, 1)) {}

  // upper − lower, computed without overflow (bounds within ±2^62: joins.hpp).
  static std::uint64_t span(std::int64_t lower, std::int64_t upper) noexcept {
    return std::uint64_t(upper) - std::uint64_t(lower);
  }

  // A left tuple at `time`: joined with every kept right one in bounds, then kept (moved in:
  // the worker's copy of the tuple is its own).
  template <class Join>
  void add_left(const Key& key, L&& left, std::uint64_t time, Join&& join) {
    sides& s = keys_[key];
    const auto [from, to] = range(s.right, shifted(time, lower_), shifted(time, upper_));
    for (auto it = from; it != to; ++it) join(std::as_const(left), it->second);
    s.left.emplace(time, std::move(left));
  }
  // A right tuple at `time`: joined with every kept left one in bounds, then kept (moved in).
  template <class Join>
  void add_right(const Key& key, R&& right, std::uint64_t time, Join&& join) {
    sides& s = keys_[key];
    const auto [from, to] = range(s.left, shifted(time, -upper_), shifted(time, -lower_));
    for (auto it = from; it != to; ++it) join(it->second, std::as_const(right));
    s.right.emplace(time, std::move(right));
  }

  // The watermark reached `watermark`: drops (now and then) the tuples that no tuple on time
  // can match any more: left ones with tl + upper < watermark, right ones with tr − lower <
  // watermark.
  void advance(std::uint64_t watermark) {
    if (watermark < dropped_at_ + drop_every_) return;
    dropped_at_ = watermark;
    const wide left_before = wide(watermark) - upper_, right_before = wide(watermark) + lower_;
    for (auto it = keys_.begin(); it != keys_.end();) {
      sides& s = it->second;
      if (left_before > 0) s.left.erase(s.left.begin(), s.left.lower_bound(clamped(left_before)));
      if (right_before > 0)
        s.right.erase(s.right.begin(), s.right.lower_bound(clamped(right_before)));
      it = s.left.empty() && s.right.empty() ? keys_.erase(it) : std::next(it);
    }
  }

  std::size_t kept_tuples() const noexcept {
    std::size_t n = 0;
    for (const auto& [key, s] : keys_) n += s.left.size() + s.right.size();
    return n;
  }

  kept snapshot() const {
    kept k{shape(), {}};
    for (const auto& [key, s] : keys_)
      k.second.emplace(
          key, std::pair{std::vector<std::pair<std::uint64_t, L>>(s.left.begin(), s.left.end()),
                         std::vector<std::pair<std::uint64_t, R>>(s.right.begin(), s.right.end())});
    return k;
  }
  // Before the first tuple; throws for other bounds or lateness, or a key whose tuples
  // `owns_key` says go elsewhere.
  template <class OwnsKey>
  void restore(kept k, const OwnsKey& owns_key) {
    check_window_shape(k.first, shape());
    keys_.clear();
    for (auto& [key, lr] : k.second) {
      if (!owns_key(key)) foreign_key();
      sides& s = keys_[key];
      s.left.insert(lr.first.begin(), lr.first.end());
      s.right.insert(lr.second.begin(), lr.second.end());
    }
  }

 private:
  // Times shifted by a bound, exactly: any 64-bit time, any bound within ±2^62.
  using wide = __int128;
  static wide shifted(std::uint64_t t, std::int64_t d) noexcept { return wide(t) + d; }
  // A shifted time back in the range of times (below 0: 0; above the largest: the largest).
  static std::uint64_t clamped(wide t) noexcept {
    if (t <= 0) return 0;
    if (t >= wide(std::numeric_limits<std::uint64_t>::max()))
      return std::numeric_limits<std::uint64_t>::max();
    return std::uint64_t(t);
  }
  // The entries of `side` with a time in [from, to].
  template <class Side>
  static auto range(Side& side, wide from, wide to) {
    if (to < 0 || to < from) return std::pair{side.end(), side.end()};
    const auto first = side.lower_bound(clamped(from));
    return std::pair{first, to >= wide(std::numeric_limits<std::uint64_t>::max())
                                ? side.end()
                                : side.upper_bound(clamped(to))};
  }
  window_shape shape() const noexcept {
    return {std::uint64_t(lower_), std::uint64_t(upper_), lateness_};
  }

  struct sides {
    std::multimap<std::uint64_t, L> left;  // by time; equal times in arrival order
    std::multimap<std::uint64_t, R> right;
  };
  std::int64_t lower_, upper_;
  std::uint64_t lateness_;
  std::uint64_t drop_every_;
  std::uint64_t dropped_at_ = 0;
  std::unordered_map<Key, sides> keys_;
};

}  // namespace spate::window::detail
