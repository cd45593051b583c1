#pragma once
// The event queue of a reactor program: for each future tag, the targets (actions, timers,
// delayed connections' inputs) that become present at it, with their values. One event per
// target and tag: a second event for the same target and tag replaces the first's value
// (LF semantics). Not thread-safe: the reaction scheduler guards it with its lock.
//
// One bucket per pending tag, in a vector sorted by descending tag: the earliest tag is at
// the back, so taking a tag's events pops a bucket, and the commonest new tag — the next
// microstep or the next period, earlier than everything pending — is a push at the back.
// A bucket finds a target's earlier event by a short scan while it is small and by a hash
// index once it is large, so many events on one tag (a mutation creating thousands of
// reactors, each with a startup event) cost O(1) each, not a scan of the tag. Buckets are
// held by pointer and emptied ones kept for reuse: a tag's arrival and departure move one
// pointer each, and nothing is allocated per event once the queue has grown to the
// program's working size.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spate/platform/export.hpp"
#include "spate/reactor/element.hpp"
#include "spate/reactor/tag.hpp"

namespace spate::reactor::detail {

struct event {
  event_target* target;
  erased_value value;
};

class SPATE_API event_queue {
 public:
  void insert(const tag& at, event_target* target, erased_value value) {
    bucket& b = bucket_at(at);
    if (event* pending = b.find(target)) {
      pending->value = std::move(value);
      return;
    }
    b.add(event{target, std::move(value)});
  }
  // Replaces the value of a pending event; false when there is none at that tag.
  bool replace(const tag& at, event_target* target, erased_value value) {
    auto it = find_bucket(at);
    if (it == buckets_.end() || (*it)->at != at) return false;
    event* pending = (*it)->find(target);
    if (pending == nullptr) return false;
    pending->value = std::move(value);
    return true;
  }
  std::optional<tag> earliest() const {
    if (buckets_.empty()) return std::nullopt;
    return buckets_.back()->at;
  }
  // Moves the events of `at` (the earliest tag) into `out` (cleared first), in the order
  // they were first placed.
  void take(const tag& at, std::vector<event>& out) {
    out.clear();
    if (buckets_.empty() || buckets_.back()->at != at) return;
    std::swap(out, buckets_.back()->events);  // the bucket keeps out's old capacity
    retire_back();
  }
  // Moves every event earlier than `floor` to `floor` (events placed before the start).
  void raise_to(const tag& floor) {
    std::vector<event> early;
    while (!buckets_.empty() && buckets_.back()->at < floor) {
      // Earliest tag first, each tag's events in placement order.
      for (event& e : buckets_.back()->events) early.push_back(std::move(e));
      retire_back();
    }
    for (event& e : early) insert(floor, e.target, std::move(e.value));
  }
  // Drops every pending event of these targets (a mutation removed them).
  template <class Set>
  void drop_targets(const Set& targets) {
    std::vector<std::unique_ptr<bucket>> kept;
    for (auto& b : buckets_) {
      auto gone = std::remove_if(b->events.begin(), b->events.end(),
                                 [&](const event& e) { return targets.count(e.target) != 0; });
      if (gone != b->events.end()) {
        b->events.erase(gone, b->events.end());
        b->rebuild_index();
      }
      if (b->events.empty())
        recycle(std::move(b));
      else
        kept.push_back(std::move(b));
    }
    buckets_ = std::move(kept);
  }
  bool empty() const noexcept { return buckets_.empty(); }
  void clear() {
    while (!buckets_.empty()) retire_back();
  }

 private:
  // Below this many events a bucket is scanned; at it, the bucket builds its index.
  static constexpr std::size_t indexed_from = 16;

  struct bucket {
    tag at;
    std::vector<event> events;                             // in placement order
    std::unordered_map<event_target*, std::size_t> index;  // target -> position; large only

    event* find(event_target* target) {
      if (events.size() < indexed_from) {
        for (event& e : events)
          if (e.target == target) return &e;
        return nullptr;
      }
      auto it = index.find(target);
      return it == index.end() ? nullptr : &events[it->second];
    }
    void add(event e) {
      events.push_back(std::move(e));
      if (events.size() == indexed_from)
        rebuild_index();
      else if (events.size() > indexed_from)
        index.emplace(events.back().target, events.size() - 1);
    }
    void rebuild_index() {
      if (!index.empty()) index.clear();
      if (events.size() < indexed_from) return;
      for (std::size_t i = 0; i < events.size(); ++i) index.emplace(events[i].target, i);
    }
  };

  // First bucket (from the front) whose tag is not later than `at`.
  std::vector<std::unique_ptr<bucket>>::iterator find_bucket(const tag& at) {
    return std::partition_point(buckets_.begin(), buckets_.end(),
                                [&](const std::unique_ptr<bucket>& b) { return b->at > at; });
  }
  bucket& bucket_at(const tag& at) {
    auto it = find_bucket(at);
    if (it != buckets_.end() && (*it)->at == at) return **it;
    std::unique_ptr<bucket> fresh;
    if (spare_.empty()) {
      fresh = std::make_unique<bucket>();
    } else {
      fresh = std::move(spare_.back());
      spare_.pop_back();
    }
    fresh->at = at;
    return **buckets_.insert(it, std::move(fresh));
  }
  void recycle(std::unique_ptr<bucket> b) {
    b->events.clear();
    if (!b->index.empty()) b->index.clear();  // a large map's clear() sweeps its buckets
    spare_.push_back(std::move(b));
  }
  void retire_back() {
    recycle(std::move(buckets_.back()));
    buckets_.pop_back();
  }

  std::vector<std::unique_ptr<bucket>> buckets_;  // descending by tag
  std::vector<std::unique_ptr<bucket>> spare_;    // emptied buckets, kept for their capacity
};

}  // namespace spate::reactor::detail
