#pragma once
// The two forms of a window function (WindFlow's non-incremental and incremental queries):
// - non-incremental: `R f(const Key&, std::span<const T>)` sees the window's tuples, in
//   arrival order, when the window closes;
// - incremental: `window::incremental<Acc>(update, result)` keeps one Acc per open window,
//   calls `update(Acc&, const T&)` per tuple and `R result(const Key&, const Acc&)` when the
//   window closes, so no tuple is stored. Session windows (sessions.hpp) merge two open
//   windows when a tuple bridges them, so theirs also take `merge(Acc& into, const Acc& from)`:
//   `window::incremental<Acc>(update, result, merge)`.
#include <concepts>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "spate/state/codec.hpp"

namespace spate::window {

/// The merge of an incremental function that has none: session windows refuse it.
struct no_merge {};

/// A window function kept as one accumulator per open window (window::incremental).
template <class Acc, class Update, class Result, class Merge = no_merge>
struct incremental_function {
  /// `void(Acc&, const T&)`, per tuple.
  Update update;
  /// `R(const Key&, const Acc&)`, when the window closes.
  Result result;
  /// `void(Acc& into, const Acc& from)`: two session windows become one (no_merge: none).
  [[no_unique_address]] Merge merge{};
};

/// An incremental window function: `update` per tuple, `result` when the window closes.
template <class Acc, class Update, class Result>
incremental_function<Acc, Update, Result> incremental(Update update, Result result) {
  static_assert(std::is_default_constructible_v<Acc>,
                "window::incremental<Acc>: Acc must be default-constructible (a fresh window's "
                "accumulator)");
  return {std::move(update), std::move(result)};
}

/// The same, with `merge(Acc& into, const Acc& from)` for windows that merge (sessions).
template <class Acc, class Update, class Result, class Merge>
incremental_function<Acc, Update, Result, Merge> incremental(Update update, Result result,
                                                             Merge merge) {
  static_assert(std::is_default_constructible_v<Acc>,
                "window::incremental<Acc>: Acc must be default-constructible (a fresh window's "
                "accumulator)");
  static_assert(std::is_invocable_v<const Merge&, Acc&, const Acc&>,
                "window::incremental: merge must be callable as merge(Acc& into, const Acc& from)");
  return {std::move(update), std::move(result), std::move(merge)};
}

/// One window's result, as the patterns emit it.
template <class Key, class R>
struct window_result {
  /// The key whose window this is.
  Key key;
  std::uint64_t window;  ///< per key: 0, 1, 2, ...
  /// What the window function returned.
  R value;
  /// false for a window fired by the end of the stream before it had all its tuples.
  bool complete;
  std::uint64_t tuples;  ///< how many tuples the window held
  /// Every field equal.
  friend bool operator==(const window_result&, const window_result&) = default;
};

namespace detail {

template <class F>
struct is_incremental : std::false_type {
  using accumulator = struct no_accumulator {};
  static constexpr bool mergeable = true;  // its windows' tuples are held, so they merge
};
template <class Acc, class U, class R, class M>
struct is_incremental<incremental_function<Acc, U, R, M>> : std::true_type {
  using accumulator = Acc;
  static constexpr bool mergeable = !std::is_same_v<M, no_merge>;
};

template <class F, class Key, class T>
struct window_result_of {
  static_assert(std::is_invocable_v<const F&, const Key&, std::span<const T>>,
                "a window function must be callable as f(const Key&, std::span<const T>) or be "
                "window::incremental<Acc>(update, result)");
  using type = std::invoke_result_t<const F&, const Key&, std::span<const T>>;
};
template <class Acc, class U, class R, class M, class Key, class T>
struct window_result_of<incremental_function<Acc, U, R, M>, Key, T> {
  static_assert(std::is_invocable_v<const U&, Acc&, const T&>,
                "window::incremental: update must be callable as update(Acc&, const T&)");
  static_assert(std::is_invocable_v<const R&, const Key&, const Acc&>,
                "window::incremental: result must be callable as result(const Key&, const Acc&)");
  using type = std::invoke_result_t<const R&, const Key&, const Acc&>;
};

}  // namespace detail

}  // namespace spate::window

/// A window result's codec (state/codec.hpp), when its key and value have one: checkpoints
/// of the window patterns hold results not yet released, and a sink may keep them.
template <class Key, class R>
  requires spate::state::encodable<Key> && spate::state::encodable<R>
struct spate::state::codec<spate::window::window_result<Key, R>> {
  /// Appends the encoding of the result, field by field.
  static void encode(const spate::window::window_result<Key, R>& r, byte_writer& out) {
    state::encode(r.key, out);
    state::encode(r.window, out);
    state::encode(r.value, out);
    state::encode(r.complete, out);
    state::encode(r.tuples, out);
  }
  /// Reads one result; throws decode_error on corrupt or truncated input.
  static spate::window::window_result<Key, R> decode(byte_reader& in) {
    auto key = state::decode<Key>(in);
    const auto window = state::decode<std::uint64_t>(in);
    auto value = state::decode<R>(in);
    const auto complete = state::decode<bool>(in);
    return {std::move(key), window, std::move(value), complete, state::decode<std::uint64_t>(in)};
  }
};
