#pragma once
// Keyed state on disk, in RocksDB (Debian's librocksdb-dev): state larger than memory. Link
// spate::rocksdb and choose it per graph:
//
//   flow::graph g(stage, flow::graph_options{
//       .checkpoints = flow::checkpoint_options{.directory = "/var/lib/wc/checkpoints"},
//       .keyed_state_backend = state::rocksdb_backend({.directory = "/var/tmp/wc-state"})});
//
// Each keyed node replica gets its own database, `<directory>/<replica name>` ("count#1";
// "count#1~2" when the backend has that name open already), made empty when the graph starts
// and deleted once the replica has ended and no checkpoint still reads it: it is a working
// copy, as Flink's RocksDB backend's local directory is. What survives a crash is the
// checkpoint, whose parts are the same whichever backend wrote them
// (state/backend_keyed_store.hpp). Writes skip RocksDB's write-ahead log for that reason.
// In front of each table, a cache of `cached_rows` decoded rows.
#include <cstddef>
#include <filesystem>
#include <memory>

#include "spate/platform/export.hpp"
#include "spate/state/row_table.hpp"

namespace spate::state {

/// How the RocksDB backend keeps its tables.
struct rocksdb_options {
  /// Where the replicas' databases go (made if missing). Local disk: the tables are written
  /// and read on every item.
  std::filesystem::path directory;
  /// The block cache, shared by every table of the backend: what is read from disk and kept
  /// in memory.
  std::size_t block_cache_bytes = std::size_t{64} << 20;
  /// Each table's memtable: writes gathered in memory before they go to a file.
  std::size_t write_buffer_bytes = std::size_t{16} << 20;
  /// Rows each replica keeps decoded in memory in front of its table, least recently used
  /// out and written back when changed, and all written back at a checkpoint's barrier
  /// (keyed_state_backend::cached_rows). 0: every item reads and writes its row in RocksDB.
  std::size_t cached_rows = 65536;
};

/// A backend that keeps keyed state in RocksDB databases under `options.directory`. Throws
/// std::invalid_argument for an empty directory; opening a table throws std::runtime_error
/// naming its path and RocksDB's reason (a directory that cannot be written, a table another
/// process has open).
SPATE_API std::shared_ptr<keyed_state_backend> rocksdb_backend(rocksdb_options options);

}  // namespace spate::state
