#pragma once
// The checkpoint store: where a checkpoint's parts (each node replica's state, in bytes) and
// its manifest are written durably, found again after a crash, checked, and retired.
//
// Layout, one directory per checkpoint:
//
//   <directory>/chk-000042/part-<name>.bin   one per part: header, the bytes, a checksum
//   <directory>/chk-000042/MANIFEST          written last: the parts with their sizes and
//                                            checksums, the source positions, the graph's
//                                            fingerprint, a checksum
//
// A checkpoint is complete when its MANIFEST exists: parts are fsynced first, the manifest
// is written to MANIFEST.tmp, fsynced and renamed (the commit point), and the directories
// are fsynced, so a crash at any moment leaves either a complete checkpoint or one without
// a MANIFEST, which the next store on the directory deletes. (Flink's checkpoint coordinator
// completes a checkpoint the same way, by writing its metadata file last.)
//
// Restore (latest()) takes the newest complete checkpoint whose every file checks out: the
// manifest's magic, format version, checksum and fingerprint; each part's existence, size,
// header and checksum. A checkpoint that fails is skipped with a message naming the file
// and the problem ("chk-000042/part-count#1.bin: truncated, 12 of 40 bytes"), logged and
// returned, and the previous one is tried.
//
// Checksums are CRC-32 (zlib's). Numbers are in the host's byte order: a checkpoint is read
// by the same build on the same architecture (docs/state.md).
//
// One store at a time has a directory open: it holds an exclusive lock (flock) on
// <directory>/LOCK, and a second store on the same directory, in this process or another on
// the same host, fails to open. (On NFS, flock is only as good as the mount's locking.) (Without
// it, a second store would delete a checkpoint the first is writing as incomplete.)
//
// Threading: write_part() may run on several threads at once for different parts; every
// other method is for one thread at a time. I/O errors throw std::system_error naming the
// path and the OS reason.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spate/platform/export.hpp"

namespace spate::state {

/// One part of a checkpoint as its manifest lists it.
struct checkpoint_part {
  /// Unique within the checkpoint (a node replica's name).
  std::string name{};
  /// Bytes of the part's file.
  std::uint64_t file_size = 0;
  /// CRC-32 of the part's file up to its trailing checksum.
  std::uint32_t checksum = 0;
  /// Equal when every field is.
  friend bool operator==(const checkpoint_part&, const checkpoint_part&) = default;
};

/// A checkpoint's table of contents (its MANIFEST).
struct checkpoint_manifest {
  /// Increasing from 1 within a store.
  std::uint64_t id = 0;
  /// When it was taken (milliseconds since the Unix epoch), as its writer set it.
  std::int64_t created_ms = 0;
  /// What wrote it (the graph's nodes and states); restore skips a checkpoint of another.
  std::string fingerprint{};
  /// Key groups its keyed state is divided into.
  std::uint32_t key_groups = 0;
  /// Its parts.
  std::vector<checkpoint_part> parts{};
  /// Named values beside the state: source positions, sink transactions.
  std::map<std::string, std::string> extras{};
  /// Equal when every field is.
  friend bool operator==(const checkpoint_manifest&, const checkpoint_manifest&) = default;
};

/// Where a checkpoint_store keeps its checkpoints and how many.
struct checkpoint_store_options {
  /// The store's directory (made if missing).
  std::filesystem::path directory;
  /// Complete checkpoints kept by retire() (at least 1).
  std::size_t retain = 2;
};

/// The checkpoints of one graph instance in one directory (see the top of this file).
class SPATE_API checkpoint_store {
 public:
  /// The format this build writes and reads.
  static constexpr std::uint32_t format_version = 1;

  /// Opens (makes) the directory, locks it, and deletes incomplete checkpoints (no
  /// MANIFEST) and stray MANIFEST.tmp files: what a crash during a checkpoint leaves.
  /// Throws std::system_error when another store has the directory open.
  explicit checkpoint_store(checkpoint_store_options options);
  checkpoint_store(const checkpoint_store&) = delete;
  checkpoint_store& operator=(const checkpoint_store&) = delete;
  /// Unlocks the directory.
  ~checkpoint_store();

  /// Whether `directory` holds a complete checkpoint (a `chk-N` directory with its
  /// MANIFEST; opening a store deletes the others), read without opening a store there (no
  /// lock taken). False when it does not exist. Not checked: whether the manifest decodes
  /// and matches a graph. Throws std::filesystem::filesystem_error when it cannot be read.
  static bool holds_checkpoints(const std::filesystem::path& directory);

  /// The directory.
  const std::filesystem::path& directory() const noexcept { return options_.directory; }
  /// The directory of checkpoint `id`.
  std::filesystem::path checkpoint_directory(std::uint64_t id) const;

  /// Writes part `name` of checkpoint `id` and fsyncs it; returns its manifest entry.
  checkpoint_part write_part(std::uint64_t id, std::string_view name, std::string_view bytes) const;
  /// The commit point: writes `manifest` as MANIFEST, durably. Throws std::runtime_error,
  /// writing nothing, when a part it lists is missing or has another size.
  void commit(const checkpoint_manifest& manifest) const;
  /// Deletes checkpoint `id`, complete or not (an aborted checkpoint's parts).
  void remove(std::uint64_t id) const;

  /// Ids of the complete checkpoints (a MANIFEST, not yet checked), oldest first.
  std::vector<std::uint64_t> complete() const;
  /// An id for a new checkpoint: above every checkpoint in the directory, complete or not,
  /// and every id this store gave before. (After remove() and a restart, an aborted
  /// checkpoint's id may come again; a complete one's never does while it is kept.)
  std::uint64_t next_id();

  /// The newest complete checkpoint written with `fingerprint` whose files all check out,
  /// or none. Each one skipped adds a line to `problems`, naming the file, and is logged.
  std::optional<checkpoint_manifest> latest(std::string_view fingerprint,
                                            std::vector<std::string>& problems) const;
  /// Part `name` of a checkpoint latest() returned, checked again (it throws
  /// std::runtime_error naming the file if it changed since).
  std::string read_part(const checkpoint_manifest& manifest, std::string_view name) const;

  /// Deletes complete checkpoints older than the newest `retain`, except `keep`.
  void retire(std::optional<std::uint64_t> keep = std::nullopt) const;

  /// Checkpoint `id`'s manifest if it is complete, has `fingerprint` and its files check
  /// out; else none, with `problem` saying what is wrong and naming the file.
  std::optional<checkpoint_manifest> check(std::uint64_t id, std::string_view fingerprint,
                                           std::string& problem) const;

 private:
  checkpoint_store_options options_;
  int lock_fd_ = -1;
  std::uint64_t last_id_ = 0;
};

}  // namespace spate::state
