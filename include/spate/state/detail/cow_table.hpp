#pragma once
// The memory backend's table: one row per key, a hash table with chained entries whose
// snapshots are copy-on-write, after Flink's CopyOnWriteStateMap [ABS, Carbone et al. 2015;
// Flink's heap keyed state backend]. A snapshot costs one copy of the bucket array; the
// owner then keeps reading and writing while another thread reads the snapshot, and copies
// an entry only when it first writes one the snapshot still sees.
//
// # Who may touch what
//
// The owner (the node task) calls every method of cow_table. One snapshot may be open at a
// time; its reader (a checkpoint writer thread) calls only the snapshot's for_each() and
// finish(). The snapshot's entries are never written again: the owner copies before it
// writes (rules S2, S3).
//
// # Protocol
//
//   S1. snapshot(): the owner copies the bucket array into the snapshot and raises the
//       table's version. Every entry then in the table has a lower version: it is shared
//       with the snapshot.
//   S2. A write to a shared entry (find_or_insert() of an existing key, erase()) first
//       replaces it, and every shared entry before it in its chain (their `next` changes),
//       by copies with the current version. The originals go to the snapshot's retired
//       list: the snapshot still reads them.
//   S3. Inserting links a new entry at its bucket's head; no shared entry changes. While a
//       snapshot is open the table does not rehash (that would relink shared entries); its
//       chains grow a little longer instead.
//   S4. The reader calls finish() once it has read what it needs (release store of `done`).
//   S5. The owner learns of it at its next write to a shared entry, or at its next snapshot
//       (acquire load of `done`): it then frees the retired entries and stops copying. A
//       table destroyed while its snapshot is still read hands the shared entries to the
//       snapshot, which frees them with itself.
//
// # Why the reader never sees a torn or freed entry
//
// Everything the reader reads (the bucket copy and the entries reachable from it) was
// written before S1, and S1 happens before the reader starts (the snapshot is handed over
// through a queue with a mutex). After S1 the owner writes only entries it created after
// S1 (S2, S3), and frees a shared entry only after S5's acquire load saw S4's release store,
// so after the reader's last read. The snapshot keeps its retired entries alive through a
// shared state that the table and the snapshot both own.
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "spate/state/key_groups.hpp"

namespace spate::state::detail {

template <class Key, class Row>
struct cow_entry {
  Key key;
  Row row;
  std::size_t hash;
  cow_entry* next;
  std::uint64_t version;
};

// What a snapshot and its table share: the entries only the snapshot still reads (S2, S5).
template <class Key, class Row>
struct cow_shared {
  using entry = cow_entry<Key, Row>;
  std::vector<entry*> retired;  // owner-written until `done`, then freed by whoever ends last
  std::atomic<bool> done{false};
  ~cow_shared() {
    for (entry* e : retired) delete e;
  }
};

template <class Key, class Row, class Hash = std::hash<Key>>
class cow_table {
  using entry = cow_entry<Key, Row>;
  using shared = cow_shared<Key, Row>;

 public:
  // A consistent view of the table at the moment it was taken (S1).
  class snapshot {
   public:
    snapshot() = default;
    snapshot(snapshot&& other) noexcept
        : buckets_(std::move(other.buckets_)),
          size_(other.size_),
          shared_(std::move(other.shared_)),
          finished_(other.finished_) {}
    snapshot& operator=(snapshot&& other) noexcept {
      if (this != &other) {
        finish();
        buckets_ = std::move(other.buckets_);
        size_ = other.size_;
        shared_ = std::move(other.shared_);
        finished_ = other.finished_;
      }
      return *this;
    }
    // A view dropped unread is finished: the owner stops copying for it.
    ~snapshot() { finish(); }
    // Reader: calls f(key, row, hash) for every row in the view, in bucket order.
    template <class F>
    void for_each(F&& f) const {
      assert(open() && "cow_table: a finished snapshot's entries may be freed");
      for (const entry* head : buckets_) {
        for (const entry* e = head; e != nullptr; e = e->next) f(e->key, e->row, e->hash);
      }
    }
    // Rows in the view.
    std::size_t size() const noexcept { return size_; }
    // S4: the reader is done; the owner may free what only this view used.
    void finish() noexcept {
      if (shared_ && !finished_) {
        finished_ = true;
        shared_->done.store(true, std::memory_order_release);
      }
    }
    bool open() const noexcept { return shared_ != nullptr && !finished_; }

   private:
    friend class cow_table;
    std::vector<entry*> buckets_;
    std::size_t size_ = 0;
    std::shared_ptr<shared> shared_;
    bool finished_ = false;
  };

  cow_table() : buckets_(initial_buckets, nullptr) {}
  cow_table(const cow_table&) = delete;
  cow_table& operator=(const cow_table&) = delete;

  ~cow_table() {
    // Entries a still-open snapshot shares go to it (S5); the rest are ours.
    const bool reader_may_read = open_ && !open_->done.load(std::memory_order_acquire);
    for (entry* head : buckets_) {
      for (entry* e = head; e != nullptr;) {
        entry* next = e->next;
        if (reader_may_read && e->version < shared_below_) {
          open_->retired.push_back(e);
        } else {
          delete e;
        }
        e = next;
      }
    }
  }

  std::size_t size() const noexcept { return size_; }
  // The key's hash as the table uses it: the user's hash, mixed (state/key_groups.hpp). A
  // by_key farm routes by that hash modulo its replicas, or by its high bits (key groups):
  // without the mixing a replica's keys would share their low bits, which pick the bucket.
  std::size_t hash_of(const Key& key) const noexcept {
    return static_cast<std::size_t>(mixed_hash(static_cast<std::uint64_t>(hash_(key))));
  }

  // The row of `key` (whose hash is `h`), or null. For reading only.
  const Row* find(const Key& key, std::size_t h) const noexcept {
    const entry* e = find_entry(key, h);
    return e != nullptr ? &e->row : nullptr;
  }

  // The row of `key` for writing, made (default) if missing; copied first when a snapshot
  // shares it (S2). Valid until the next call that writes the table.
  Row& find_or_insert(const Key& key, std::size_t h) {
    if (entry* e = find_entry(key, h)) {
      if (e->version < shared_below_ && still_shared()) {
        entry** link = copy_path_before(h, e);
        entry* copy = new entry{e->key, e->row, e->hash, e->next, version_};
        ++copies_;
        retire_shared(e, copy);
        *link = copy;
        return copy->row;
      }
      return e->row;
    }
    // Load factor 3/4; no rehash while a snapshot shares the entries (S3).
    if (size_ >= buckets_.size() / 4 * 3 && !(shared_below_ != 0 && still_shared())) grow();
    entry*& head = buckets_[h & mask()];
    head = new entry{key, Row{}, h, head, version_};
    ++size_;
    return head->row;
  }

  // Removes `key`'s row; false when there was none.
  bool erase(const Key& key, std::size_t h) {
    entry* found = find_entry(key, h);
    if (found == nullptr) return false;
    entry** link = nullptr;
    if (shared_below_ != 0 && still_shared()) {
      link = copy_path_before(h, found);  // the link to change is then ours (S2)
    } else {
      link = &buckets_[h & mask()];
      while (*link != found) link = &(*link)->next;
    }
    const bool shared_with_snapshot = found->version < shared_below_;
    if (shared_with_snapshot) open_->retired.push_back(found);  // the snapshot still reads it
    *link = found->next;
    --size_;
    if (!shared_with_snapshot) delete found;
    return true;
  }

  // S1. Throws std::logic_error while the previous snapshot is open: a second view would
  // retire entries the first one still reads.
  snapshot take_snapshot() {
    if (shared_below_ != 0 && still_shared()) {
      throw std::logic_error("spate::state: a snapshot was taken while the previous one is open");
    }
    snapshot s;
    s.buckets_ = buckets_;
    s.size_ = size_;
    open_ = std::make_shared<shared>();
    s.shared_ = open_;
    shared_below_ = ++version_;
    return s;
  }

  // Calls f(key, row) for every row (the owner's own view).
  template <class F>
  void for_each(F&& f) const {
    for (const entry* head : buckets_) {
      for (const entry* e = head; e != nullptr; e = e->next) f(e->key, e->row);
    }
  }

  // Entries copied because a snapshot shared them, since the table was made (for tests and
  // metrics).
  std::uint64_t copies() const noexcept { return copies_; }

 private:
  static constexpr std::size_t initial_buckets = 16;

  std::size_t mask() const noexcept { return buckets_.size() - 1; }

  // S5: true while the open snapshot's reader may still read; frees what it used once not.
  bool still_shared() {
    if (open_ == nullptr) return false;
    if (!open_->done.load(std::memory_order_acquire)) return true;
    open_.reset();  // frees the retired entries unless the reader still holds the snapshot
    shared_below_ = 0;
    return false;
  }

  // Hands a shared entry that `copy` replaces to the snapshot (before the copy is linked:
  // if the list cannot grow, the copy is freed and the table is unchanged).
  void retire_shared(entry* original, entry* copy) {
    try {
      open_->retired.push_back(original);
    } catch (...) {
      delete copy;
      throw;
    }
  }

  entry* find_entry(const Key& key, std::size_t h) const noexcept {
    for (entry* e = buckets_[h & mask()]; e != nullptr; e = e->next) {
      if (e->hash == h && e->key == key) return e;
    }
    return nullptr;
  }

  // S2: replaces every shared entry before `target` in its chain by a copy (their `next`
  // is about to change); returns the link that points to `target`, now one the owner may write.
  entry** copy_path_before(std::size_t h, entry* target) {
    entry** link = &buckets_[h & mask()];
    while (*link != target) {
      entry* e = *link;
      if (e->version < shared_below_) {
        entry* copy = new entry{e->key, e->row, e->hash, e->next, version_};
        ++copies_;
        retire_shared(e, copy);
        *link = copy;
        e = copy;
      }
      link = &e->next;
    }
    return link;
  }

  void grow() {
    std::vector<entry*> bigger(buckets_.size() * 2, nullptr);
    const std::size_t m = bigger.size() - 1;
    for (entry* head : buckets_) {
      for (entry* e = head; e != nullptr;) {
        entry* next = e->next;
        e->next = bigger[e->hash & m];
        bigger[e->hash & m] = e;
        e = next;
      }
    }
    buckets_.swap(bigger);
  }

  std::vector<entry*> buckets_;
  std::size_t size_ = 0;
  std::uint64_t version_ = 0;
  std::uint64_t shared_below_ = 0;  // entries with a lower version are shared (0: none)
  std::shared_ptr<shared> open_;
  std::uint64_t copies_ = 0;
  [[no_unique_address]] Hash hash_;
};

}  // namespace spate::state::detail
