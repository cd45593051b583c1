#pragma once
// The store behind a keyed node's handles (state/keyed.hpp): one row per key holding every
// state the node lists in state_fields(), so an item costs one hash and one lookup whatever
// the number of states. This is the memory backend: the rows live in a copy-on-write table
// (state/detail/cow_table.hpp), so a checkpoint snapshots them without stopping the node.
//
// Threading: the node's task only (a snapshot is then read by one other thread, see
// cow_table.hpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/state/codec.hpp"
#include "spate/state/detail/cow_table.hpp"
#include "spate/state/detail/keyed_part.hpp"
#include "spate/state/detail/keyed_row.hpp"
#include "spate/state/key_groups.hpp"
#include "spate/state/keyed.hpp"

namespace spate::state {

template <class Key, class Fields>
class keyed_store;

/// The rows of one keyed node replica; `Fields` is what its state_fields() returns.
template <class Key, class... H>
class keyed_store<Key, std::tuple<H&...>> {
  using row = detail::keyed_row<Key, std::tuple<H&...>>;

 public:
  /// The node's handles.
  using fields_type = std::tuple<H&...>;
  /// What a key holds: one slot per handle, in state_fields() order.
  using row_type = typename row::type;
  /// A consistent view of every row, for a checkpoint (cow_table.hpp: S1..S5).
  using snapshot_type = typename detail::cow_table<Key, row_type>::snapshot;

  /// Runs `f` with every handle bound to `key`'s row (made when missing); afterwards, also
  /// when `f` throws, unbinds them and drops the row if all its states are empty.
  template <class F>
  decltype(auto) with_key(const Key& key, fields_type fields, F&& f) {
    const std::size_t h = table_.hash_of(key);
    row_type& r = table_.find_or_insert(key, h);
    row::bind(fields, &r);
    struct unbind {
      keyed_store& store;
      fields_type& fields;
      const Key& key;
      std::size_t h;
      row_type& r;
      ~unbind() {
        row::bind(fields, nullptr);
        if (row::empty(r)) {
          try {
            store.table_.erase(key, h);
          } catch (...) {
            // Out of memory while a snapshot shares the row: the empty row stays, which
            // changes nothing a handle can see.
          }
        }
      }
    } guard{*this, fields, key, h, r};
    return std::forward<F>(f)();
  }

  /// Throws std::invalid_argument when two of a node's states share a name.
  static void check_names(fields_type fields) { row::check_names(fields); }
  /// What a part records of the node's states (detail/keyed_row.hpp).
  static std::string layout(fields_type fields) { return row::layout(fields); }

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

  // ---- checkpoint parts (format: detail/keyed_part.hpp)
  //
  // A part holds a node replica's rows divided into key groups, so that a restore may take
  // only some of them (a replica that now owns fewer keys, a process that now reads other
  // partitions). The key group of a key is its (mixed) hash modulo the key-group count.

  /// The part for snapshot `view`. Runs on the snapshot's reader thread: it reads only the
  /// view, never the store.
  static std::string encode(const snapshot_type& view, std::string_view layout,
                            std::uint32_t key_groups) {
    if (key_groups == 0) throw std::invalid_argument("spate::state: key_groups must be at least 1");
    std::vector<detail::keyed_section> sections(key_groups);
    view.for_each([&](const Key& key, const row_type& r, std::size_t hash) {
      detail::keyed_section& s = sections[key_group_of(hash, key_groups)];
      byte_writer out(s.bytes);
      state::encode(key, out);
      row::encode(r, out);
      ++s.rows;
    });
    return detail::write_keyed_part(layout, sections);
  }

  /// Adds the rows of part `bytes` whose key group `wanted(group)` accepts; returns how many.
  /// Throws decode_error for bytes that do not decode (naming the byte), and
  /// std::runtime_error for a part of another layout or key-group count, a key in a group
  /// its hash does not give, or a key the store already has; it then adds nothing. A row
  /// whose states are all empty is skipped, as consume() would have dropped it.
  template <class Wanted>
  std::size_t restore(std::string_view bytes, std::string_view layout, std::uint32_t key_groups,
                      Wanted&& wanted) {
    // Every row is decoded and checked before any goes into the table: a part that fails
    // leaves the store as it was.
    struct staged {
      Key key;
      std::size_t hash;
      row_type r;
    };
    std::vector<staged> rows_in;
    detail::read_keyed_part(
        bytes, layout, key_groups, wanted, [&](std::uint32_t group, byte_reader& section) {
          Key key = state::decode<Key>(section);
          row_type r = row::decode(section);
          const std::size_t h = table_.hash_of(key);
          detail::check_key_group(h, group, key_groups);
          if (table_.find(key, h) != nullptr) {
            throw std::runtime_error("spate::state: a key restored twice in key group " +
                                     std::to_string(group) + " (two parts hold it)");
          }
          if (!row::empty(r)) rows_in.push_back({std::move(key), h, std::move(r)});
        });
    std::size_t restored = 0;
    for (auto& in : rows_in) {
      row_type& slot = table_.find_or_insert(in.key, in.hash);
      if (!row::empty(slot)) {
        // The part held the key twice (the table had it, or an earlier row just put it).
        for (std::size_t k = 0; k < restored; ++k) table_.erase(rows_in[k].key, rows_in[k].hash);
        throw std::runtime_error("spate::state: a key restored twice (the part holds it twice)");
      }
      slot = std::move(in.r);
      ++restored;
    }
    return restored;
  }

 private:
  detail::cow_table<Key, row_type> table_;
};

}  // namespace spate::state
