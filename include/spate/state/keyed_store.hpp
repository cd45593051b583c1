#pragma once
// The store behind a keyed node's handles (state/keyed.hpp): one row per key holding every
// state the node lists in state_fields(), so an item costs one hash and one lookup whatever
// the number of states. This is the memory backend: the rows live in a copy-on-write table
// (state/detail/cow_table.hpp), so a checkpoint snapshots them without stopping the node.
//
// Threading: the node's task only (a snapshot is then read by one other thread, see
// cow_table.hpp).
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "spate/state/codec.hpp"
#include "spate/state/detail/cow_table.hpp"
#include "spate/state/keyed.hpp"

namespace spate::state {

template <class Key, class Fields>
class keyed_store;

/// The rows of one keyed node replica; `Fields` is what its state_fields() returns.
template <class Key, class... H>
class keyed_store<Key, std::tuple<H&...>> {
  static_assert(encodable<Key>,
                "spate::state: the by_key function of a farm whose node has keyed state must "
                "return a type with a codec (a view such as std::string_view cannot be kept as "
                "a key: return a std::string)");

 public:
  /// The node's handles.
  using fields_type = std::tuple<H&...>;
  /// What a key holds: one slot per handle, in state_fields() order.
  using row_type = std::tuple<typename H::slot_type...>;
  /// A consistent view of every row, for a checkpoint (cow_table.hpp: S1..S5).
  using snapshot_type = typename detail::cow_table<Key, row_type>::snapshot;

  /// Runs `f` with every handle bound to `key`'s row (made when missing); afterwards, also
  /// when `f` throws, unbinds them and drops the row if all its states are empty.
  template <class F>
  decltype(auto) with_key(const Key& key, fields_type fields, F&& f) {
    const std::size_t h = table_.hash_of(key);
    row_type& row = table_.find_or_insert(key, h);
    bind(fields, &row);
    struct unbind {
      keyed_store& store;
      fields_type& fields;
      const Key& key;
      std::size_t h;
      row_type& row;
      ~unbind() {
        store.bind(fields, nullptr);
        if (empty(row)) store.table_.erase(key, h);
      }
    } guard{*this, fields, key, h, row};
    return std::forward<F>(f)();
  }

  /// Keys with a row.
  std::size_t size() const noexcept { return table_.size(); }
  /// The row of `key`, or null.
  const row_type* find(const Key& key) const noexcept {
    return table_.find(key, table_.hash_of(key));
  }
  /// Calls f(key, row) for every key.
  template <class F>
  void for_each(F&& f) const {
    table_.for_each(std::forward<F>(f));
  }
  /// S1: a view of every row as it is now; the node goes on writing.
  snapshot_type snapshot() { return table_.take_snapshot(); }
  /// Rows copied because a snapshot still read them (cow_table::copies()).
  std::uint64_t copies() const noexcept { return table_.copies(); }

 private:
  void bind(fields_type& fields, row_type* row) noexcept {
    bind_each(fields, row, std::index_sequence_for<H...>{});
  }
  template <std::size_t... I>
  static void bind_each(fields_type& fields, row_type* row, std::index_sequence<I...>) noexcept {
    (detail::handle_access::bind(std::get<I>(fields),
                                 row != nullptr ? &std::get<I>(*row) : nullptr),
     ...);
  }
  template <class Slot>
  static bool slot_empty(const Slot& s) noexcept {
    if constexpr (requires { s.has_value(); }) {
      return !s.has_value();
    } else {
      return s.empty();
    }
  }
  static bool empty(const row_type& row) noexcept {
    return std::apply([](const auto&... s) { return (slot_empty(s) && ...); }, row);
  }

  detail::cow_table<Key, row_type> table_;
};

}  // namespace spate::state
