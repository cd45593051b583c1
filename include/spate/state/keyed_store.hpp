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

#include "spate/platform/type_name.hpp"
#include "spate/state/codec.hpp"
#include "spate/state/detail/cow_table.hpp"
#include "spate/state/key_groups.hpp"
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
        if (empty(row)) {
          try {
            store.table_.erase(key, h);
          } catch (...) {
            // Out of memory while a snapshot shares the row: the empty row stays, which
            // changes nothing a handle can see.
          }
        }
      }
    } guard{*this, fields, key, h, row};
    return std::forward<F>(f)();
  }

  /// Throws std::invalid_argument when two of a node's states share a name (a checkpoint
  /// finds a state by its name).
  static void check_names(fields_type fields) {
    std::vector<const std::string*> names;
    std::apply([&](auto&... h) { (names.push_back(&h.name()), ...); }, fields);
    for (std::size_t i = 0; i < names.size(); ++i) {
      for (std::size_t j = i + 1; j < names.size(); ++j) {
        if (*names[i] == *names[j]) {
          throw std::invalid_argument("spate::state: two states of one node are named '" +
                                      *names[i] + "'");
        }
      }
    }
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

  // ---- checkpoint parts ----
  //
  // A part holds a node replica's rows divided into key groups, so that a restore may take
  // only some of them (a replica that now owns fewer keys, a process that now reads other
  // partitions). The key group of a key is its (mixed) hash modulo the key-group count.
  //
  //   layout (string: key type; each state's name and type)
  //   key-group count (varint)
  //   sections (varint count), each: key group, rows, bytes (varints), then the rows:
  //     key, then each state's slot, by their codecs

  /// What a part records of the node's states: the key type, each state's name and type. A
  /// part of another layout is refused on restore.
  static std::string layout(fields_type fields) {
    std::string out = spate::type_name<Key>();
    std::apply(
        [&](auto&... h) {
          ((out += "; ", out += h.name(), out += ": ",
            out += spate::type_name<typename std::decay_t<decltype(h)>::slot_type>()),
           ...);
        },
        fields);
    return out;
  }

  /// The part for snapshot `view`. Runs on the snapshot's reader thread: it reads only the
  /// view, never the store.
  static std::string encode(const snapshot_type& view, std::string_view layout,
                            std::uint32_t key_groups) {
    if (key_groups == 0) throw std::invalid_argument("spate::state: key_groups must be at least 1");
    std::vector<std::string> sections(key_groups);
    std::vector<std::uint64_t> rows(key_groups, 0);
    view.for_each([&](const Key& key, const row_type& row, std::size_t hash) {
      const std::size_t group = key_group_of(hash, key_groups);
      byte_writer out(sections[group]);
      state::encode(key, out);
      std::apply([&](const auto&... slot) { (state::encode(slot, out), ...); }, row);
      ++rows[group];
    });
    std::string bytes;
    byte_writer out(bytes);
    state::encode(std::string(layout), out);
    out.write_varint(key_groups);
    out.write_varint(static_cast<std::uint64_t>(
        std::count_if(rows.begin(), rows.end(), [](std::uint64_t n) { return n != 0; })));
    for (std::uint32_t group = 0; group < key_groups; ++group) {
      if (rows[group] == 0) continue;
      out.write_varint(group);
      out.write_varint(rows[group]);
      out.write_varint(sections[group].size());
      out.write(sections[group].data(), sections[group].size());
    }
    return bytes;
  }

  /// Adds the rows of part `bytes` whose key group `wanted(group)` accepts; returns how many.
  /// Throws decode_error for bytes that do not decode (naming the byte), and
  /// std::runtime_error for a part of another layout or key-group count, a key in a group
  /// its hash does not give, or a key the store already has; it then adds nothing. A row
  /// whose states are all empty is skipped, as consume() would have dropped it.
  template <class Wanted>
  std::size_t restore(std::string_view bytes, std::string_view layout, std::uint32_t key_groups,
                      Wanted&& wanted) {
    byte_reader in(bytes);
    const auto recorded = state::decode<std::string>(in);
    if (recorded != layout) {
      throw std::runtime_error("spate::state: the part's states are '" + recorded +
                               "'; this node's are '" + std::string(layout) + "'");
    }
    const std::uint64_t groups = in.read_varint("the key-group count");
    if (groups != key_groups) {
      throw std::runtime_error("spate::state: the part has " + std::to_string(groups) +
                               " key groups; this graph has " + std::to_string(key_groups));
    }
    const std::size_t sections = in.read_count("the section count");
    // Every row is decoded and checked before any goes into the table: a part that fails
    // leaves the store as it was.
    struct staged {
      Key key;
      std::size_t hash;
      row_type row;
    };
    std::vector<staged> rows_in;
    std::uint64_t next_group = 0;  // sections come in increasing key-group order
    for (std::size_t i = 0; i < sections; ++i) {
      const std::uint64_t group = in.read_varint("a key group");
      if (group < next_group || group >= key_groups) {
        throw decode_error("spate::state: key group " + std::to_string(group) +
                           " out of order or range at byte " + std::to_string(in.position()));
      }
      next_group = group + 1;
      const std::uint64_t rows = in.read_varint("a key group's row count");
      const std::string_view body = in.take(in.read_count("a key group's size"), "a key group");
      if (!wanted(static_cast<std::uint32_t>(group))) continue;
      byte_reader section(body);
      for (std::uint64_t r = 0; r < rows; ++r) {
        Key key = state::decode<Key>(section);
        row_type row{state::decode<typename H::slot_type>(section)...};
        const std::size_t h = table_.hash_of(key);
        if (key_group_of(h, key_groups) != group) {
          throw std::runtime_error("spate::state: a key of key group " + std::to_string(group) +
                                   " hashes to group " +
                                   std::to_string(key_group_of(h, key_groups)) +
                                   " (was the part written by another build?)");
        }
        if (table_.find(key, h) != nullptr) {
          throw std::runtime_error("spate::state: a key restored twice in key group " +
                                   std::to_string(group) + " (two parts hold it)");
        }
        if (!empty(row)) rows_in.push_back({std::move(key), h, std::move(row)});
      }
      if (section.left() != 0) {
        throw decode_error("spate::state: key group " + std::to_string(group) + " has " +
                           std::to_string(section.left()) + " bytes left over");
      }
    }
    if (in.left() != 0) {
      throw decode_error("spate::state: " + std::to_string(in.left()) +
                         " bytes left over after the last key group");
    }
    std::size_t restored = 0;
    for (auto& r : rows_in) {
      row_type& slot = table_.find_or_insert(r.key, r.hash);
      if (!empty(slot)) {
        // The part held the key twice (the table had it, or an earlier row just put it).
        for (std::size_t k = 0; k < restored; ++k) table_.erase(rows_in[k].key, rows_in[k].hash);
        throw std::runtime_error("spate::state: a key restored twice (the part holds it twice)");
      }
      slot = std::move(r.row);
      ++restored;
    }
    return restored;
  }

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
