#pragma once
// Which input offsets a Kafka source may commit: those whose records, and every record
// before them in their partition, have been processed (at-least-once: a restart resumes
// after the last record done, never after one still in flight).
//
// Records may be done out of order (farm replicas): per partition the tracker keeps the
// offsets in flight, in the order read, and the ones done early. Partitions taken away by
// a rebalance get a new generation; done() calls for an older generation are ignored,
// since the partition's new owner reads those records again.
//
// A record the job drops (a filter, a record it cannot parse) must be marked too, with
// position::dropped(): commits advance over it as over a record done. A record never marked
// holds its partition's commit position where it is, and what is read after it piles up in
// the sets here; the source bounds that pile (consumer_options::max_in_flight): past it the
// reader stops reading until records are marked, so memory stays bounded and the stall shows
// as a source that no longer moves instead of a heap that grows.
//
// Threading: every method locks; emitted() and committable() are the reader's, done() any
// thread's. The waits take a stop flag; wake() (after setting it) ends them.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace spate::kafka {

class offset_tracker;

/// Where a record came from; done() once its effects are complete (its output delivered).
struct position {
  offset_tracker* tracker = nullptr;  ///< the source's; null: nothing to mark
  std::int32_t partition = -1;        ///< the record's partition
  std::int64_t offset = -1;           ///< its offset in the partition
  std::uint64_t generation = 0;       ///< the partition's assignment it was read under
  /// Marks the record processed (any thread; once). Ignored after its partition moved.
  void done() const;
  /// Marks a record the job leaves out (filtered, unparseable): its offset may be committed
  /// as if it were done. Call it (or done()) exactly once for every record not passed on.
  void dropped() const { done(); }
};

/// The offsets a Kafka source may commit (see the top of this file).
class offset_tracker {
 public:
  /// A partition (re)assigned to this reader: a new generation for it.
  std::uint64_t assign(std::int32_t partition) {
    const std::lock_guard lock(mutex_);
    auto& p = partitions_[partition];
    in_flight_ -= p.in_flight.size();
    p = partition_state{};
    p.generation = ++generations_;
    changed_.notify_all();
    return p.generation;
  }
  /// A partition taken away: what was in flight there is forgotten.
  void revoke(std::int32_t partition) {
    const std::lock_guard lock(mutex_);
    const auto it = partitions_.find(partition);
    if (it == partitions_.end()) return;
    in_flight_ -= it->second.in_flight.size();
    partitions_.erase(it);
    changed_.notify_all();
  }
  /// The reader hands this record to the graph; nullopt when its partition is not assigned
  /// (a record fetched before a rebalance may still be handed out: its partition's owner
  /// reads it, and the tracker must never commit for a partition it does not own).
  std::optional<position> emitted(std::int32_t partition, std::int64_t offset) {
    const std::lock_guard lock(mutex_);
    const auto it = partitions_.find(partition);
    if (it == partitions_.end()) return std::nullopt;
    auto& p = it->second;
    p.in_flight.push_back(offset);
    ++in_flight_;
    if (p.next_commit < 0) p.next_commit = offset;
    return position{this, partition, offset, p.generation};
  }
  /// A record is processed (position::done()).
  void done(const position& at) {
    const std::lock_guard lock(mutex_);
    const auto it = partitions_.find(at.partition);
    if (it == partitions_.end() || it->second.generation != at.generation) return;
    auto& p = it->second;
    if (!p.in_flight.empty() && p.in_flight.front() == at.offset) {
      std::int64_t last_done = at.offset;
      p.in_flight.pop_front();
      --in_flight_;
      while (!p.in_flight.empty() && p.done_early.erase(p.in_flight.front()) == 1) {
        last_done = p.in_flight.front();
        p.in_flight.pop_front();
        --in_flight_;
      }
      p.next_commit = p.in_flight.empty() ? last_done + 1 : p.in_flight.front();
      changed_.notify_all();
    } else {
      p.done_early.insert(at.offset);
    }
    ++done_count_;
  }
  /// (partition, offset to commit) for partitions that moved since the last call.
  std::vector<std::pair<std::int32_t, std::int64_t>> committable() {
    const std::lock_guard lock(mutex_);
    std::vector<std::pair<std::int32_t, std::int64_t>> result;
    for (auto& [partition, p] : partitions_) {
      if (p.next_commit > p.committed) {
        result.emplace_back(partition, p.next_commit);
        p.committed = p.next_commit;
      }
    }
    return result;
  }
  /// Records read and not yet done, over every partition (done early ones included: their
  /// commit waits for a record before them).
  std::size_t in_flight() const {
    const std::lock_guard lock(mutex_);
    return in_flight_;
  }
  /// Records marked done so far.
  std::uint64_t done_count() const {
    const std::lock_guard lock(mutex_);
    return done_count_;
  }
  /// Waits until fewer than `limit` records are in flight, `stop` is set (and wake()
  /// called), or `timeout` passes; true when below the limit.
  bool wait_below(std::size_t limit, const std::atomic<bool>& stop,
                  std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, timeout,
                      [&] { return in_flight_ < limit || stop.load(std::memory_order_acquire); });
    return in_flight_ < limit;
  }
  /// Ends the waits (call after setting their stop flag). Any thread; does not block long.
  void wake() {
    const std::lock_guard lock(mutex_);
    changed_.notify_all();
  }

 private:
  struct partition_state {
    std::uint64_t generation = 0;
    std::deque<std::int64_t> in_flight;
    std::set<std::int64_t> done_early;
    std::int64_t next_commit = -1;  ///< the offset after the last record done in order
    std::int64_t committed = -1;
  };
  mutable std::mutex mutex_;
  std::condition_variable changed_;  ///< in flight went down (or a stop): the waits re-check
  std::map<std::int32_t, partition_state> partitions_;
  std::size_t in_flight_ = 0;
  std::uint64_t generations_ = 0;
  std::uint64_t done_count_ = 0;
};

inline void position::done() const {
  if (tracker != nullptr) tracker->done(*this);
}

}  // namespace spate::kafka
