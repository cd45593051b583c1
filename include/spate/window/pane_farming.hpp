#pragma once
// Pane farming (beyond the dynamic-memory paper; Li et al.'s panes): a sliding window of
// length L and slide S is split into panes of g = gcd(L, S) tuples. Panes are tumbling
// windows, so each tuple is aggregated once, in one pane, by a Window Farming stage that
// spreads a key's panes over the workers; a combiner then builds each window from its L / g
// panes, one window every S / g panes. It needs an aggregate that combines:
//
//   auto f = window::panes<Acc>(update,    // update(Acc&, const T&)
//                               combine,   // Acc combine(const Acc&, const Acc&), associative
//                               result);   // R result(const Key&, const Acc&)
//   flow::pipeline(source, window::pane_farming<T>(window::sliding(1000, 25), key, f, 4), sink)
//
// Results are window_result{key, window, value, complete, tuples}, per key in window order,
// equal to a sequential run's when `combine` is associative (and, for floating point, up to
// its rounding).
#include <cstdint>
#include <deque>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spate/flow/node.hpp"
#include "spate/flow/stages.hpp"
#include "spate/state/codec.hpp"
#include "spate/window/count_window.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/patterns.hpp"
#include "spate/window/window_function.hpp"

namespace spate::window {

/// An aggregate cut into panes (window::panes): update per tuple, combine per pane, result
/// per window.
template <class Acc, class Update, class Combine, class Result>
struct pane_function {
  /// `void(Acc&, const T&)`: adds a tuple to its pane.
  Update update;
  /// `Acc(const Acc&, const Acc&)`: merges two panes (associative).
  Combine combine;
  /// `R(const Key&, const Acc&)`: a window's value from its combined panes.
  Result result;
};

template <class Acc, class Update, class Combine, class Result>
pane_function<Acc, Update, Combine, Result> panes(Update update, Combine combine, Result result) {
  static_assert(std::is_default_constructible_v<Acc>,
                "window::panes<Acc>: Acc must be default-constructible (an empty pane)");
  static_assert(std::is_invocable_r_v<Acc, const Combine&, const Acc&, const Acc&>,
                "window::panes: combine must be callable as Acc combine(const Acc&, const Acc&)");
  return {std::move(update), std::move(combine), std::move(result)};
}

namespace detail {

/// A pane combiner's checkpoint copy (detail/window_checkpoints.hpp): its windows' shape in
/// panes and, per key, the next window and the panes kept for it and later ones as (index,
/// accumulator, tuples).
template <class Key, class Acc>
using combiner_kept = std::pair<
    window_shape,
    std::unordered_map<
        Key, std::pair<std::uint64_t, std::vector<std::tuple<std::uint64_t, Acc, std::uint64_t>>>>>;

/// Builds each key's windows from its panes, which arrive per key in pane order.
template <class Key, class Acc, class Combine, class Result>
class pane_combiner
    : public flow::node<
          window_result<Key, Acc>,
          window_result<Key, std::invoke_result_t<const Result&, const Key&, const Acc&>>>,
      public codec_stance<state::encodable<combiner_kept<Key, Acc>>> {
  using value_type = std::invoke_result_t<const Result&, const Key&, const Acc&>;
  using out_type = window_result<Key, value_type>;
  using kept = combiner_kept<Key, Acc>;
  static constexpr bool checkpointable = state::encodable<kept>;

 public:
  pane_combiner(std::uint64_t panes_per_window, std::uint64_t panes_per_slide, Combine combine,
                Result result)
      : per_window_(panes_per_window),
        per_slide_(panes_per_slide),
        combine_(std::move(combine)),
        result_(std::move(result)) {}

  void consume(window_result<Key, Acc>& pane) {
    key_state& s = keys_[pane.key];
    s.panes.push_back(stored_pane{pane.window, std::move(pane.value), pane.tuples});
    if (!pane.complete) return;  ///< the stream's last pane: its windows fire at the end
    /// Every window whose last pane just arrived.
    while (first_pane(s.next_window) + per_window_ - 1 <= pane.window) {
      this->send_next(build(pane.key, s, per_window_, true));
      advance(s);
    }
  }
  void on_stop() {
    for (auto& [key, s] : keys_) {
      if (s.panes.empty()) continue;
      const std::uint64_t last = s.panes.back().index;
      // Windows that start at or before the last pane hold tuples: they fire, incomplete.
      while (first_pane(s.next_window) <= last) {
        this->send_next(build(key, s, last - first_pane(s.next_window) + 1, false));
        advance(s);
      }
    }
    keys_.clear();
  }
  kept snapshot_state() const
    requires checkpointable
  {
    kept k{shape(), {}};
    for (const auto& [key, s] : keys_) {
      auto& out = k.second[key];
      out.first = s.next_window;
      for (const stored_pane& p : s.panes) out.second.emplace_back(p.index, p.value, p.tuples);
    }
    return k;
  }
  void restore_state(kept k)
    requires checkpointable
  {
    check_window_shape(k.first, shape());
    keys_.clear();
    for (auto& [key, in] : k.second) {
      key_state& s = keys_[key];
      s.next_window = in.first;
      for (auto& [index, value, tuples] : in.second)
        s.panes.push_back(stored_pane{index, std::move(value), tuples});
    }
  }

 private:
  struct stored_pane {
    std::uint64_t index;
    Acc value;
    std::uint64_t tuples;
  };
  struct key_state {
    std::deque<stored_pane> panes;  ///< from the next window's first pane on
    std::uint64_t next_window = 0;
  };

  std::uint64_t first_pane(std::uint64_t window) const { return window * per_slide_; }
  window_shape shape() const noexcept { return {per_window_, per_slide_, 0}; }

  out_type build(const Key& key, key_state& s, std::uint64_t count, bool complete) {
    const std::uint64_t from = first_pane(s.next_window);
    Acc total{};
    std::uint64_t tuples = 0;
    bool first = true;
    for (const stored_pane& p : s.panes) {
      if (p.index < from || p.index >= from + count) continue;
      total = first ? p.value : combine_(total, p.value);
      first = false;
      tuples += p.tuples;
    }
    return out_type{key, s.next_window, result_(key, total), complete, tuples};
  }
  void advance(key_state& s) {
    ++s.next_window;
    while (!s.panes.empty() && s.panes.front().index < first_pane(s.next_window))
      s.panes.pop_front();
  }

  std::uint64_t per_window_, per_slide_;
  Combine combine_;
  Result result_;
  std::unordered_map<Key, key_state> keys_;
};

}  // namespace detail

/// Pane farming over `workers` workers (the panes are computed by Window Farming, which
/// `options` are given to).
template <class T, class KeyFn, class Acc, class Update, class Combine, class Result>
auto pane_farming(count_window spec, KeyFn key, pane_function<Acc, Update, Combine, Result> f,
                  std::size_t workers, pattern_options options = {}) {
  spec.check();
  using Key = detail::key_of<T, KeyFn>;
  const std::uint64_t pane = std::gcd(spec.length, spec.slide);
  auto pane_sum = incremental<Acc>(std::move(f.update), [](const Key&, const Acc& a) { return a; });
  return flow::pipeline(
      window_farming<T>(tumbling(pane), std::move(key), std::move(pane_sum), workers,
                        std::move(options)),
      flow::make_stage<detail::pane_combiner<Key, Acc, Combine, Result>>(
          spec.length / pane, spec.slide / pane, std::move(f.combine), std::move(f.result))
          .named("pane_combiner"));
}

}  // namespace spate::window
