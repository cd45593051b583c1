#pragma once
// Keyed state kept outside the process's memory: the interface a keyed state backend
// implements (graph_options::keyed_state_backend). A keyed node replica then keeps its rows
// encoded, one entry per key, in a row_table that the backend opened for it
// (state/backend_keyed_store.hpp reads and writes them through the keys' and states'
// codecs). `state::rocksdb_backend()` (state/rocksdb_backend.hpp, library spate::rocksdb)
// is the on-disk one; the default, with no backend, keeps rows in memory
// (state/keyed_store.hpp).
//
// The table is a working copy, as Flink's RocksDB state backend's local directory is: what
// survives a crash is the checkpoint (flow/checkpoints.hpp), which holds the rows in the
// same part format whichever backend wrote them. A backend therefore starts every table
// empty and may delete it when the table is destroyed.
//
// Threading: a table's owner (the node replica's task) calls get, put, erase, write and
// snapshot; a snapshot is read (for_each) on one other thread, the checkpoint writer's,
// while the owner goes on writing, and may outlive the table.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spate::state {

/// A consistent view of a row_table as it was when snapshot() returned.
class row_snapshot {
 public:
  virtual ~row_snapshot() = default;
  /// Calls f(key, value) for every entry, in increasing byte order of the keys. The views
  /// are valid during the call only. Throws std::runtime_error on a read error.
  virtual void for_each(const std::function<void(std::string_view, std::string_view)>& f) = 0;
};

/// One node replica's rows: byte keys, ordered bytewise, to byte values.
class row_table {
 public:
  /// Puts applied together by write(): all or none.
  struct batch {
    std::vector<std::pair<std::string, std::string>> puts;  ///< (key, value) pairs
  };
  virtual ~row_table() = default;
  /// The value of `key` into `value` (replacing what it held): true; false when absent.
  virtual bool get(std::string_view key, std::string& value) = 0;
  /// Sets `key`'s value to `value` (adding the entry when absent).
  virtual void put(std::string_view key, std::string_view value) = 0;
  /// Removes `key`'s entry; nothing when absent.
  virtual void erase(std::string_view key) = 0;
  /// Every put of `b`, atomically.
  virtual void write(const batch& b) = 0;
  /// A view of every entry as it is now; the owner goes on writing.
  virtual std::unique_ptr<row_snapshot> snapshot() = 0;
};

/// Opens the tables of a graph's keyed node replicas. Every method throws
/// std::runtime_error (or std::system_error) naming the table and the reason.
class keyed_state_backend {
 public:
  virtual ~keyed_state_backend() = default;
  /// A new, empty table for the replica named `replica` (a stage name and a replica index,
  /// as "count#1"; unique within a graph). What the backend held under that name before is
  /// discarded.
  virtual std::unique_ptr<row_table> open(const std::string& replica) = 0;
  /// What the backend is, for messages ("RocksDB in /var/tmp/wc").
  virtual std::string describe() const = 0;
  /// How many rows each replica keeps decoded in memory in front of its table (least
  /// recently used out, written back when changed; state/backend_keyed_store.hpp). 0: none,
  /// every item reads and writes the table.
  virtual std::size_t cached_rows() const noexcept { return 0; }
};

}  // namespace spate::state
