#pragma once
// The store behind a keyed node's handles when its graph has a keyed state backend
// (graph_options::keyed_state_backend; state/row_table.hpp): the rows live encoded in the
// backend's table, one entry per key. In front of it, a cache of decoded rows (least
// recently used out, written back when changed), as Kafka Streams keeps a record cache in
// front of its RocksDB stores: an item whose key is cached costs a hash lookup, as in the
// memory store; one whose key is not reads and decodes the row. A snapshot first writes the
// changed rows to the table, so the table's own snapshot holds every row as it was at the
// barrier. Without a cache each item reads, decodes, encodes and writes its row, as Flink's
// RocksDB backend does. The handles and the checkpoint part are the same as the memory
// store's (state/keyed_store.hpp), so a node does not know which it has, and a checkpoint
// taken with one restores into the other.
//
// An entry's key is the key's mixed hash (8 bytes, big-endian), then the key's bytes; its
// value is the row's slots' bytes. Entries are thus ordered by hash, and so by key group
// (key_group_of() is monotone in the hash) whatever the key-group count: a snapshot is read
// one key group after another.
//
// Threading: the node's task only (a snapshot is then read by one other thread, see
// row_table.hpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "spate/state/codec.hpp"
#include "spate/state/detail/keyed_part.hpp"
#include "spate/state/detail/keyed_row.hpp"
#include "spate/state/key_groups.hpp"
#include "spate/state/row_table.hpp"

namespace spate::state {

template <class Key, class Fields>
class backend_keyed_store;

/// The rows of one keyed node replica in a backend's table; `Fields` is what its
/// state_fields() returns.
template <class Key, class... H>
class backend_keyed_store<Key, std::tuple<H&...>> {
  using row = detail::keyed_row<Key, std::tuple<H&...>>;

 public:
  /// The node's handles.
  using fields_type = std::tuple<H&...>;
  /// What a key holds: one slot per handle, in state_fields() order.
  using row_type = typename row::type;
  /// A consistent view of every row, for a checkpoint.
  using snapshot_type = std::unique_ptr<row_snapshot>;

  /// The store over `table`, which must be empty, keeping up to `cached_rows` rows decoded
  /// in memory (0: none, every item reads and writes the table).
  explicit backend_keyed_store(std::unique_ptr<row_table> table, std::size_t cached_rows = 0)
      : table_(std::move(table)), capacity_(cached_rows) {
    if (!table_) throw std::invalid_argument("spate::state: a keyed store needs a table");
  }

  /// Runs `f` with every handle bound to `key`'s row (an empty one when missing). The row
  /// comes from the cache, or is read from the table and decoded (evicting the least
  /// recently used row, written back if it changed); afterwards it stays in the cache,
  /// changed, or is erased from the cache and the table when all its states are empty.
  /// Without a cache it is written back (or erased) at once. When `f` throws, what it
  /// changed is kept too (as the memory store keeps it), then the exception goes on; a
  /// write that fails throws the backend's error instead.
  template <class F>
  void with_key(const Key& key, fields_type fields, F&& f) {
    static_assert(std::is_void_v<std::invoke_result_t<F&>>,
                  "spate::state: with_key's function returns nothing (consume())");
    used_ = true;
    if (capacity_ == 0) {
      with_key_uncached(key, fields, std::forward<F>(f));
      return;
    }
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      it = load(key);
    } else {
      lru_.splice(lru_.begin(), lru_, it->second.lru);
    }
    cache_entry& c = it->second;
    row::bind(fields, &c.row);
    try {
      std::forward<F>(f)();
    } catch (...) {
      row::bind(fields, nullptr);
      settle(it);
      throw;
    }
    row::bind(fields, nullptr);
    settle(it);
  }

  /// Throws std::invalid_argument when two of a node's states share a name.
  static void check_names(fields_type fields) { row::check_names(fields); }
  /// What a part records of the node's states (detail/keyed_row.hpp).
  static std::string layout(fields_type fields) { return row::layout(fields); }

  /// The row of `key`, decoded; empty when it has none. For tests and tools.
  std::optional<row_type> find(const Key& key) {
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second.row;
    if (!table_->get(entry_key_of(key), value_)) return std::nullopt;
    return decode_value(value_);
  }

  /// A view of every row as it is now; the node goes on writing. The rows the cache changed
  /// are written to the table first, in one batch (at most `cached_rows` of them).
  snapshot_type snapshot() {
    flush();
    return table_->snapshot();
  }

  /// Rows decoded in the cache now.
  std::size_t cached() const noexcept { return cache_.size(); }

  /// Lets go of the cache and the table (the backend may then delete it, once no snapshot
  /// reads it). No other method may be called after.
  void close() noexcept {
    lru_.clear();
    cache_.clear();
    table_.reset();
  }

  /// The part for snapshot `view` (format: detail/keyed_part.hpp). Runs on the snapshot's
  /// reader thread: it reads only the view. The rows' bytes are copied, never decoded.
  static std::string encode(row_snapshot& view, std::string_view layout, std::uint32_t key_groups) {
    if (key_groups == 0) throw std::invalid_argument("spate::state: key_groups must be at least 1");
    std::vector<detail::keyed_section> sections(key_groups);
    view.for_each([&](std::string_view entry, std::string_view value) {
      if (entry.size() < hash_bytes) {
        throw std::runtime_error("spate::state: a backend entry of " +
                                 std::to_string(entry.size()) + " bytes has no key");
      }
      detail::keyed_section& s = sections[key_group_of(read_hash(entry), key_groups)];
      s.bytes.append(entry.substr(hash_bytes));
      s.bytes.append(value);
      ++s.rows;
    });
    return detail::write_keyed_part(layout, sections);
  }

  /// Adds the rows of part `bytes` whose key group `wanted(group)` accepts; returns how many.
  /// Call it before the first with_key() (std::logic_error otherwise): the table is then
  /// empty but for earlier restores, so a key held twice can only be one a part holds twice
  /// in a key group (refused with the group's keys in memory, one group at a time) or a key
  /// group two parts hold (refused by group): no key is looked up in the table. Rows are
  /// decoded and checked, then written in batches of about `restore_batch_bytes`, so a
  /// restore holds at most one batch and one group's keys besides the part. Errors as
  /// keyed_store::restore's; unlike it, a part that fails may leave the rows of the batches
  /// written before, and its key groups count as restored: the store is then unusable (the
  /// graph does not start, and its tables go).
  template <class Wanted>
  std::size_t restore(std::string_view bytes, std::string_view layout, std::uint32_t key_groups,
                      Wanted&& wanted) {
    if (used_) {
      throw std::logic_error(
          "spate::state: restore() after the first item (a restore fills an empty store)");
    }
    if (restored_groups_.empty()) {
      restored_groups_.assign(key_groups, false);
    } else if (restored_groups_.size() != key_groups) {
      throw std::logic_error("spate::state: a restore of " + std::to_string(key_groups) +
                             " key groups after one of " + std::to_string(restored_groups_.size()));
    }
    row_table::batch staged;
    std::size_t staged_bytes = 0;
    std::size_t restored = 0;
    std::unordered_set<std::string> keys;  // the current key group's
    std::uint64_t group_now = key_groups;  // none yet
    const auto write_staged = [&] {
      table_->write(staged);
      restored += staged.puts.size();
      staged.puts.clear();
      staged_bytes = 0;
    };
    detail::read_keyed_part(
        bytes, layout, key_groups, wanted, [&](std::uint32_t group, byte_reader& section) {
          if (group != group_now) {  // a part's groups come in increasing order
            if (restored_groups_[group]) {
              throw std::runtime_error("spate::state: key group " + std::to_string(group) +
                                       " restored twice (two parts hold it)");
            }
            restored_groups_[group] = true;
            group_now = group;
            keys.clear();
          }
          const Key key = state::decode<Key>(section);
          const std::size_t value_start = section.position();
          const row_type r = row::decode(section);
          const std::uint64_t h = hash_of(key);
          detail::check_key_group(h, group, key_groups);
          std::string entry;
          append_entry_key(h, key, entry);
          if (!keys.insert(entry).second) {
            throw std::runtime_error("spate::state: a key restored twice in key group " +
                                     std::to_string(group) + " (the part holds it twice)");
          }
          if (row::empty(r)) return;
          const std::string_view value =
              section.input().substr(value_start, section.position() - value_start);
          staged_bytes += entry.size() + value.size();
          staged.puts.emplace_back(std::move(entry), value);
          if (staged_bytes >= restore_batch_bytes) write_staged();
        });
    write_staged();
    return restored;
  }

 private:
  static constexpr std::size_t hash_bytes = 8;
  static constexpr std::size_t restore_batch_bytes = std::size_t{4} << 20;

  // A row in the cache. `in_table`: the table has an entry for the key; `dirty`: the row
  // changed since it was read or last written.
  struct cache_entry {
    row_type row;
    bool in_table = false;
    bool dirty = false;
    typename std::list<const Key*>::iterator lru;
  };
  using cache_map = std::unordered_map<Key, cache_entry>;

  // Reads `key`'s row into the cache, first evicting the least recently used row if full.
  typename cache_map::iterator load(const Key& key) {
    cache_entry c;
    c.in_table = table_->get(entry_key_of(key), value_);
    if (c.in_table) c.row = decode_value(value_);
    if (cache_.size() >= capacity_) evict_oldest();
    lru_.push_front(nullptr);
    try {
      auto it = cache_.emplace(key, std::move(c)).first;
      lru_.front() = &it->first;  // a key in an unordered_map's node does not move
      it->second.lru = lru_.begin();
      return it;
    } catch (...) {
      lru_.pop_front();
      throw;
    }
  }
  // The least recently used row leaves the cache, written back first if it changed (a
  // write that fails throws and leaves it there).
  void evict_oldest() {
    const auto it = cache_.find(*lru_.back());
    if (it->second.dirty) put_row(entry_key_of(it->first), it->second.row);
    lru_.pop_back();
    cache_.erase(it);
  }
  // After an item: an empty row goes from the cache and the table; any other is dirty.
  void settle(typename cache_map::iterator it) {
    cache_entry& c = it->second;
    if (!row::empty(c.row)) {
      c.dirty = true;
      return;
    }
    if (c.in_table) table_->erase(entry_key_of(it->first));
    lru_.erase(c.lru);
    cache_.erase(it);
  }
  // Writes every changed row to the table, in one batch; they are then clean.
  void flush() {
    row_table::batch b;
    for (auto& [key, c] : cache_) {
      if (!c.dirty) continue;
      std::string entry;
      append_entry_key(hash_of(key), key, entry);
      std::string value;
      byte_writer out(value);
      row::encode(c.row, out);
      b.puts.emplace_back(std::move(entry), std::move(value));
    }
    if (b.puts.empty()) return;
    table_->write(b);
    for (auto& [key, c] : cache_) {
      if (c.dirty) c.in_table = true;
      c.dirty = false;
    }
  }

  template <class F>
  void with_key_uncached(const Key& key, fields_type fields, F&& f) {
    const bool existed = table_->get(entry_key_of(key), value_);
    row_type r{};
    if (existed) r = decode_value(value_);
    row::bind(fields, &r);
    try {
      std::forward<F>(f)();
    } catch (...) {
      row::bind(fields, nullptr);
      write_back(existed, r);
      throw;
    }
    row::bind(fields, nullptr);
    write_back(existed, r);
  }

  // `key`'s entry key, in entry_key_ (kept for its capacity).
  const std::string& entry_key_of(const Key& key) {
    entry_key_.clear();
    append_entry_key(hash_of(key), key, entry_key_);
    return entry_key_;
  }
  // Writes `r`'s bytes under `entry`, through value_.
  void put_row(const std::string& entry, const row_type& r) {
    value_.clear();
    byte_writer out(value_);
    row::encode(r, out);
    table_->put(entry, value_);
  }
  static std::uint64_t hash_of(const Key& key) {
    return mixed_hash(static_cast<std::uint64_t>(std::hash<Key>{}(key)));
  }
  static void append_entry_key(std::uint64_t h, const Key& key, std::string& out) {
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(h >> shift));
    byte_writer w(out);
    state::encode(key, w);
  }
  static std::uint64_t read_hash(std::string_view entry) noexcept {
    std::uint64_t h = 0;
    for (std::size_t i = 0; i < hash_bytes; ++i) h = h << 8 | static_cast<unsigned char>(entry[i]);
    return h;
  }
  static row_type decode_value(std::string_view value) {
    byte_reader in(value);
    row_type r = row::decode(in);
    if (in.left() != 0) {
      throw decode_error("spate::state: a backend row of " + std::to_string(value.size()) +
                         " bytes has " + std::to_string(in.left()) + " left over at byte " +
                         std::to_string(in.position()));
    }
    return r;
  }
  // The uncached item's row, under entry_key_ (with_key_uncached set it).
  void write_back(bool existed, const row_type& r) {
    if (row::empty(r)) {
      if (existed) table_->erase(entry_key_);
      return;
    }
    put_row(entry_key_, r);
  }

  std::unique_ptr<row_table> table_;
  std::size_t capacity_;
  cache_map cache_;
  std::list<const Key*> lru_;          // the cache's keys, most recently used first
  std::string entry_key_;              // the current item's entry key, kept for its capacity
  std::string value_;                  // its row's bytes, likewise
  bool used_ = false;                  // with_key() ran: restore() is refused
  std::vector<bool> restored_groups_;  // key groups a restore has filled
};

}  // namespace spate::state
