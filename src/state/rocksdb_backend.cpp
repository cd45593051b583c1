// The RocksDB keyed state backend (state/rocksdb_backend.hpp): one database per keyed node
// replica, a working copy made empty at open and deleted at close.
#include "spate/state/rocksdb_backend.hpp"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "spate/log/log.hpp"

namespace spate::state {
namespace {

rocksdb::Slice slice(std::string_view s) noexcept {
  return {s.data(), s.size()};
}

// The paths of a backend's open tables. Replica names need not be unique (two unnamed
// farms of one node type; two graphs on one backend; names that become the same directory
// name), so a table whose path is taken gets "~2", "~3", ... after it. Names are the same
// from one run of a graph to the next, so a restart finds (and clears) what a crash left,
// except a "~N" directory when the names that made it are gone.
class open_paths {
 public:
  std::string claim(const std::string& base) {
    const std::lock_guard lock(mutex_);
    std::string path = base;
    for (int n = 2; paths_.contains(path); ++n) path = base + "~" + std::to_string(n);
    paths_.insert(path);
    return path;
  }
  void release(const std::string& path) {
    const std::lock_guard lock(mutex_);
    paths_.erase(path);
  }

 private:
  std::mutex mutex_;
  std::set<std::string> paths_;
};

// An open database and where it lives. Owned by its table and by the table's snapshots
// (a snapshot may outlive the table: the checkpoint writer still encoding it). The last
// owner closes the database and deletes its files.
class database {
 public:
  // Opens the table at `base` (or at `base~N` when a table of the backend has that path).
  database(std::shared_ptr<open_paths> paths, const std::string& base, std::string replica,
           const rocksdb::Options& options)
      : paths_(std::move(paths)), replica_(std::move(replica)), options_(options) {
    path_ = paths_->claim(base);  // released below if the table does not open
    try {
      // A crash left the last run's copy here: it is not the state (the checkpoint is).
      check(rocksdb::DestroyDB(path_, options_), "clearing");
      rocksdb::DB* db = nullptr;
      check(rocksdb::DB::Open(options_, path_, &db), "opening");
      db_.reset(db);
    } catch (...) {
      paths_->release(path_);
      throw;
    }
  }
  database(const database&) = delete;
  database& operator=(const database&) = delete;
  ~database() {
    if (const rocksdb::Status s = db_->Close(); !s.ok()) {
      log::write(log::level::warn, "state",
                 "closing RocksDB table '" + replica_ + "' in " + path_ + ": " + s.ToString());
    }
    db_.reset();
    if (const rocksdb::Status s = rocksdb::DestroyDB(path_, options_); !s.ok()) {
      log::write(log::level::warn, "state",
                 "deleting RocksDB table '" + replica_ + "' in " + path_ + ": " + s.ToString());
    }
    paths_->release(path_);
  }

  rocksdb::DB& db() noexcept { return *db_; }

  // Throws std::runtime_error naming the table, what was being done and RocksDB's reason.
  void check(const rocksdb::Status& s, const char* doing) const {
    if (s.ok()) return;
    throw std::runtime_error("spate::state: " + std::string(doing) + " RocksDB table '" + replica_ +
                             "' in " + path_ + ": " + s.ToString());
  }

 private:
  std::shared_ptr<open_paths> paths_;
  std::string path_;
  std::string replica_;
  rocksdb::Options options_;
  std::unique_ptr<rocksdb::DB> db_;
};

class rocksdb_snapshot final : public row_snapshot {
 public:
  explicit rocksdb_snapshot(std::shared_ptr<database> db)
      : db_(std::move(db)), snapshot_(db_->db().GetSnapshot()) {}
  rocksdb_snapshot(const rocksdb_snapshot&) = delete;
  rocksdb_snapshot& operator=(const rocksdb_snapshot&) = delete;
  ~rocksdb_snapshot() override { db_->db().ReleaseSnapshot(snapshot_); }

  void for_each(const std::function<void(std::string_view, std::string_view)>& f) override {
    rocksdb::ReadOptions read;
    read.snapshot = snapshot_;
    read.fill_cache = false;  // a checkpoint reads everything once
    std::unique_ptr<rocksdb::Iterator> it(db_->db().NewIterator(read));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      f(std::string_view(it->key().data(), it->key().size()),
        std::string_view(it->value().data(), it->value().size()));
    }
    db_->check(it->status(), "reading a snapshot of");
  }

 private:
  std::shared_ptr<database> db_;
  const rocksdb::Snapshot* snapshot_;
};

class rocksdb_table final : public row_table {
 public:
  explicit rocksdb_table(std::shared_ptr<database> db) : db_(std::move(db)) {
    // The working copy needs no log: a crash loses it whatever, and the checkpoint restores.
    write_.disableWAL = true;
  }

  bool get(std::string_view key, std::string& value) override {
    const rocksdb::Status s = db_->db().Get(read_, slice(key), &value);
    if (s.IsNotFound()) return false;
    db_->check(s, "reading");
    return true;
  }
  void put(std::string_view key, std::string_view value) override {
    db_->check(db_->db().Put(write_, slice(key), slice(value)), "writing");
  }
  void erase(std::string_view key) override {
    db_->check(db_->db().Delete(write_, slice(key)), "writing");
  }
  void write(const batch& b) override {
    rocksdb::WriteBatch wb;
    for (const auto& [key, value] : b.puts) db_->check(wb.Put(key, value), "writing");
    db_->check(db_->db().Write(write_, &wb), "writing");
  }
  std::unique_ptr<row_snapshot> snapshot() override {
    return std::make_unique<rocksdb_snapshot>(db_);
  }

 private:
  std::shared_ptr<database> db_;
  rocksdb::ReadOptions read_;
  rocksdb::WriteOptions write_;
};

class rocksdb_keyed_backend final : public keyed_state_backend {
 public:
  explicit rocksdb_keyed_backend(rocksdb_options o)
      : directory_(std::move(o.directory)), cached_rows_(o.cached_rows) {
    rocksdb::BlockBasedTableOptions table;
    table.block_cache = rocksdb::NewLRUCache(o.block_cache_bytes);
    options_.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    options_.write_buffer_size = o.write_buffer_bytes;
    options_.create_if_missing = true;
    // A table is deleted right after it is closed: writing its memtables out first is waste.
    options_.avoid_flush_during_shutdown = true;
    options_.error_if_exists = true;  // DestroyDB ran just before: a table is never shared
  }

  std::unique_ptr<row_table> open(const std::string& replica) override {
    std::error_code ec;
    std::filesystem::create_directories(directory_, ec);
    if (ec) {
      throw std::system_error(ec, "spate::state: making the RocksDB directory " +
                                      directory_.string() + " for table '" + replica + "'");
    }
    const std::string base = (directory_ / file_name(replica)).string();
    return std::make_unique<rocksdb_table>(
        std::make_shared<database>(paths_, base, replica, options_));
  }

  std::string describe() const override { return "RocksDB in " + directory_.string(); }
  std::size_t cached_rows() const noexcept override { return cached_rows_; }

 private:
  // A replica's name as a directory name: what is not a letter, digit, '#', '-' or '.'
  // becomes '_'.
  static std::string file_name(const std::string& replica) {
    std::string out = replica.empty() ? std::string("_") : replica;
    for (char& c : out) {
      const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '#' || c == '-' || c == '.';
      if (!keep) c = '_';
    }
    if (out == "." || out == "..") out = "_";
    return out;
  }

  std::filesystem::path directory_;
  std::size_t cached_rows_;
  rocksdb::Options options_;
  std::shared_ptr<open_paths> paths_ = std::make_shared<open_paths>();
};

}  // namespace

std::shared_ptr<keyed_state_backend> rocksdb_backend(rocksdb_options options) {
  if (options.directory.empty()) {
    throw std::invalid_argument("spate::state::rocksdb_backend: the directory is empty");
  }
  return std::make_shared<rocksdb_keyed_backend>(std::move(options));
}

}  // namespace spate::state
