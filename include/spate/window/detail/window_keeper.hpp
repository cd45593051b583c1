#pragma once
// One worker's windows, for every key it sees: the sequential core of the window patterns.
// A keeper owns the windows w with w % owners == owner (Window Farming deals a key's
// consecutive windows round-robin to the workers; Key Partitioning is owners == 1) and is
// given, in per-key position order, every tuple that one of its windows holds.
//
// Non-incremental windows keep the tuples once per key, not once per window: a buffer of
// (position, tuple) from the oldest open window's start on; a closing window is a range of
// it, copied into one scratch vector shared by every key. Incremental windows keep one
// accumulator per open window and no tuple.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <span>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spate/state/codec.hpp"
#include "spate/window/count_window.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/window_function.hpp"

namespace spate::window::detail {

template <class Key, class T, class F>
class window_keeper {
  static constexpr bool incremental = is_incremental<F>::value;

 public:
  using value_type = typename window_result_of<F, Key, T>::type;
  using result_type = window_result<Key, value_type>;
  using accumulator_type = typename is_incremental<F>::accumulator;
  /// A checkpoint's copy (detail/window_checkpoints.hpp): the windows' shape and, per key,
  /// its open windows (window, tuples, and the accumulator when incremental), and when not
  /// incremental its buffer of (position, tuple).
  using kept_key =
      std::conditional_t<incremental,
                         std::vector<std::tuple<std::uint64_t, std::uint64_t, accumulator_type>>,
                         std::pair<std::vector<std::pair<std::uint64_t, std::uint64_t>>,
                                   std::vector<std::pair<std::uint64_t, T>>>>;
  using kept = std::pair<window_shape, std::unordered_map<Key, kept_key>>;
  static constexpr bool checkpointable = state::encodable<kept>;

  window_keeper(count_window spec, F f, std::uint64_t owner, std::uint64_t owners)
      : spec_(spec), f_(std::move(f)), owner_(owner), owners_(owners) {}

  // The tuple at `position` of `key`'s stream; calls emit(result_type&&) for each window of
  // this keeper that it closes, in window order.
  template <class Emit>
  void add(const Key& key, const T& tuple, std::uint64_t position, Emit&& emit) {
    key_state& s = keys_[key];
    const std::uint64_t first = spec_.first_holding(position), last = spec_.last_holding(position);
    bool held = false;
    for (std::uint64_t w = first; w <= last && first <= last; ++w) {
      if (w % owners_ != owner_) continue;
      held = true;
      if (s.open.empty() || s.open.back().window < w) s.open.push_back(open_window{w, {}, 0});
    }
    if (!held) return;
    if constexpr (!incremental) s.buffer.push_back(positioned{position, tuple});
    for (open_window& o : s.open) {
      if (o.window < first || o.window > last) continue;
      ++o.tuples;
      if constexpr (incremental) f_.update(o.accumulator, tuple);
    }
    // Windows close in window order: the front is the oldest.
    while (!s.open.empty() && spec_.end(s.open.front().window) == position + 1) {
      emit(close(key, s, true));
      s.open.pop_front();
      trim(s);
    }
  }

  // End of the stream: every window still open fires, marked incomplete, in window order.
  template <class Emit>
  void flush(Emit&& emit) {
    for (auto& [key, s] : keys_) {
      while (!s.open.empty()) {
        emit(close(key, s, false));
        s.open.pop_front();
      }
    }
    keys_.clear();
  }

  kept snapshot() const {
    kept k{shape(), {}};
    for (const auto& [key, s] : keys_) {
      if (s.open.empty()) continue;  // a key between windows (a hopping window's gap)
      kept_key& out = k.second[key];
      for (const open_window& o : s.open) {
        if constexpr (incremental)
          out.emplace_back(o.window, o.tuples, o.accumulator);
        else
          out.first.emplace_back(o.window, o.tuples);
      }
      if constexpr (!incremental)
        for (const positioned& p : s.buffer) out.second.emplace_back(p.position, p.tuple);
    }
    return k;
  }
  // Before the first tuple; throws for windows of another shape, a window this keeper does
  // not own, or a key whose tuples `owns_key` says go elsewhere.
  template <class OwnsKey>
  void restore(kept k, const OwnsKey& owns_key) {
    check_window_shape(k.first, shape());
    keys_.clear();
    for (auto& [key, in] : k.second) {
      if (!owns_key(key)) foreign_key();
      key_state& s = keys_[key];
      auto open = [&](std::uint64_t window, std::uint64_t tuples) -> open_window& {
        if (window % owners_ != owner_) foreign_window(window, owner_, owners_);
        return s.open.emplace_back(open_window{window, {}, tuples});
      };
      if constexpr (incremental) {
        for (auto& [window, tuples, accumulator] : in)
          open(window, tuples).accumulator = std::move(accumulator);
      } else {
        for (const auto& [window, tuples] : in.first) open(window, tuples);
        for (auto& [position, tuple] : in.second)
          s.buffer.push_back(positioned{position, std::move(tuple)});
      }
    }
  }

 private:
  window_shape shape() const noexcept { return {spec_.length, spec_.slide, 0}; }

  struct positioned {
    std::uint64_t position;
    T tuple;
  };
  struct open_window {
    std::uint64_t window;
    [[no_unique_address]] accumulator_type accumulator;
    std::uint64_t tuples;
  };
  struct key_state {
    std::deque<open_window> open;   // ascending window ids
    std::deque<positioned> buffer;  // non-incremental: ascending positions
  };

  result_type close(const Key& key, key_state& s, bool complete) {
    const open_window& o = s.open.front();
    if constexpr (incremental) {
      return result_type{key, o.window, f_.result(key, o.accumulator), complete, o.tuples};
    } else {
      auto from = std::partition_point(s.buffer.begin(), s.buffer.end(), [&](const positioned& p) {
        return p.position < spec_.start(o.window);
      });
      scratch_.clear();
      for (auto it = from; it != s.buffer.end() && it->position < spec_.end(o.window); ++it)
        scratch_.push_back(it->tuple);
      if (scratch_.size() != o.tuples)
        throw std::logic_error("window_keeper: a window lost tuples");
      return result_type{key, o.window, f_(key, std::span<const T>(scratch_)), complete, o.tuples};
    }
  }
  // Tuples before the oldest open window's start belong to no window any more (a window
  // that holds a position already seen is already open).
  void trim(key_state& s) {
    if constexpr (!incremental) {
      if (s.open.empty()) {
        s.buffer.clear();
        return;
      }
      const std::uint64_t keep_from = spec_.start(s.open.front().window);
      while (!s.buffer.empty() && s.buffer.front().position < keep_from) s.buffer.pop_front();
    }
  }

  count_window spec_;
  F f_;
  std::uint64_t owner_, owners_;
  std::unordered_map<Key, key_state> keys_;
  // The closing window's tuples, contiguous for the function's span: one for all keys (a
  // window is closed and consumed before the next), not one per key, which with thousands
  // of keys would double the memory held (HFT: 2,836 keys × 1,000 quotes × 64 B per worker).
  std::vector<T> scratch_;
};

}  // namespace spate::window::detail
