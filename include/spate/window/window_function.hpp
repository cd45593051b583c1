#pragma once
// The two forms of a window function (WindFlow's non-incremental and incremental queries):
// - non-incremental: `R f(const Key&, std::span<const T>)` sees the window's tuples, in
//   arrival order, when the window closes;
// - incremental: `window::incremental<Acc>(update, result)` keeps one Acc per open window,
//   calls `update(Acc&, const T&)` per tuple and `R result(const Key&, const Acc&)` when the
//   window closes, so no tuple is stored.
#include <concepts>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "spate/state/codec.hpp"

namespace spate::window {

/// A window function kept as one accumulator per open window (window::incremental).
template <class Acc, class Update, class Result>
struct incremental_function {
  /// `void(Acc&, const T&)`, per tuple.
  Update update;
  /// `R(const Key&, const Acc&)`, when the window closes.
  Result result;
};

template <class Acc, class Update, class Result>
incremental_function<Acc, Update, Result> incremental(Update update, Result result) {
  static_assert(std::is_default_constructible_v<Acc>,
                "window::incremental<Acc>: Acc must be default-constructible (a fresh window's "
                "accumulator)");
  return {std::move(update), std::move(result)};
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
};
template <class Acc, class U, class R>
struct is_incremental<incremental_function<Acc, U, R>> : std::true_type {
  using accumulator = Acc;
};

template <class F, class Key, class T>
struct window_result_of {
  static_assert(std::is_invocable_v<const F&, const Key&, std::span<const T>>,
                "a window function must be callable as f(const Key&, std::span<const T>) or be "
                "window::incremental<Acc>(update, result)");
  using type = std::invoke_result_t<const F&, const Key&, std::span<const T>>;
};
template <class Acc, class U, class R, class Key, class T>
struct window_result_of<incremental_function<Acc, U, R>, Key, T> {
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
