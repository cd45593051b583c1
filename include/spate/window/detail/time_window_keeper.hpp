#pragma once
// One worker's time windows, for every key: the sequential core of the time-window patterns.
// Tuples may arrive out of time order, so each open window keeps its own accumulator (or its
// own tuples, in arrival order, for a non-incremental function); windows fire when the
// watermark passes their end (advance) or, still open at the end of the stream, incomplete
// (flush). Windows w with w % owners == owner are this keeper's.
#include <cstdint>
#include <iterator>
#include <map>
#include <span>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spate/state/codec.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/time_window.hpp"
#include "spate/window/window_function.hpp"

namespace spate::window::detail {

template <class Key, class T, class F>
class time_window_keeper {
  static constexpr bool incremental = is_incremental<F>::value;

 public:
  using value_type = typename window_result_of<F, Key, T>::type;
  using result_type = window_result<Key, value_type>;
  /// A checkpoint's copy (detail/window_checkpoints.hpp): the windows' shape, the windows
  /// fired so far, and per key per open window its accumulator (incremental) or its tuples,
  /// and its tuple count.
  using kept_window =
      std::conditional_t<incremental,
                         std::pair<typename is_incremental<F>::accumulator, std::uint64_t>,
                         std::pair<std::vector<T>, std::uint64_t>>;
  using kept = std::tuple<window_shape, std::uint64_t,
                          std::unordered_map<Key, std::map<std::uint64_t, kept_window>>>;
  static constexpr bool checkpointable = state::encodable<kept>;

  time_window_keeper(time_window spec, F f, std::uint64_t owner, std::uint64_t owners)
      : spec_(spec), f_(std::move(f)), owner_(owner), owners_(owners) {}

  // A tuple at `time`, for its windows that have not fired yet.
  void add(const Key& key, const T& tuple, std::uint64_t time) {
    const std::uint64_t last = spec_.last_holding(time);
    std::uint64_t first = spec_.first_holding(time);
    if (first < fired_) first = fired_;
    for (std::uint64_t w = first; w <= last; ++w) {
      if (w % owners_ != owner_) continue;
      open_window& o = keys_[key][w];
      ++o.tuples;
      if constexpr (incremental)
        f_.update(o.accumulator, tuple);
      else
        o.held.push_back(tuple);
    }
  }

  // The watermark reached `watermark`: every window ending at or before it fires, per key in
  // window order.
  template <class Emit>
  void advance(std::uint64_t watermark, Emit&& emit) {
    const std::uint64_t fired = spec_.fired(watermark);
    if (fired <= fired_) return;
    fired_ = fired;
    // A key left with no open window is forgotten (its next tuple opens one again), so that
    // keys that come once — Nexmark's new persons — do not pile up and slow every watermark.
    for (auto it = keys_.begin(); it != keys_.end();) {
      auto& windows = it->second;
      while (!windows.empty() && windows.begin()->first < fired_) {
        emit(close(it->first, windows.begin()->first, windows.begin()->second, true));
        windows.erase(windows.begin());
      }
      it = windows.empty() ? keys_.erase(it) : std::next(it);
    }
  }

  template <class Emit>
  void flush(Emit&& emit) {
    for (auto& [key, windows] : keys_)
      for (auto& [w, o] : windows) emit(close(key, w, o, false));
    keys_.clear();
  }

  kept snapshot() const {
    kept k{shape(), fired_, {}};
    for (const auto& [key, windows] : keys_) {
      if (windows.empty()) continue;
      auto& out = std::get<2>(k)[key];
      for (const auto& [w, o] : windows) {
        if constexpr (incremental)
          out.emplace(w, kept_window{o.accumulator, o.tuples});
        else
          out.emplace(w, kept_window{o.held, o.tuples});
      }
    }
    return k;
  }
  // Before the first tuple; throws for windows of another shape, a window this keeper does
  // not own, or a key whose tuples `owns_key` says go elsewhere.
  template <class OwnsKey>
  void restore(kept k, const OwnsKey& owns_key) {
    check_window_shape(std::get<0>(k), shape());
    fired_ = std::get<1>(k);
    keys_.clear();
    for (auto& [key, windows] : std::get<2>(k)) {
      if (!owns_key(key)) foreign_key();
      auto& open = keys_[key];
      for (auto& [w, kw] : windows) {
        if (w % owners_ != owner_) foreign_window(w, owner_, owners_);
        open_window& o = open[w];
        if constexpr (incremental)
          o.accumulator = std::move(kw.first);
        else
          o.held = std::move(kw.first);
        o.tuples = kw.second;
      }
    }
  }

  /// How many keys have an open window here (a key with none is forgotten).
  std::size_t kept_keys() const noexcept { return keys_.size(); }

 private:
  window_shape shape() const noexcept { return {spec_.length, spec_.slide, spec_.lateness}; }

  struct open_window {
    [[no_unique_address]] typename is_incremental<F>::accumulator accumulator{};
    std::vector<T> held;  // non-incremental: arrival order
    std::uint64_t tuples = 0;
  };

  result_type close(const Key& key, std::uint64_t w, open_window& o, bool complete) {
    if constexpr (incremental)
      return result_type{key, w, f_.result(key, o.accumulator), complete, o.tuples};
    else
      return result_type{key, w, f_(key, std::span<const T>(o.held)), complete, o.tuples};
  }

  time_window spec_;
  F f_;
  std::uint64_t owner_, owners_;
  std::uint64_t fired_ = 0;  // windows 0 .. fired_ - 1 have fired
  std::unordered_map<Key, std::map<std::uint64_t, open_window>> keys_;
};

}  // namespace spate::window::detail
