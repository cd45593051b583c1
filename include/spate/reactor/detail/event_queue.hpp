#pragma once
// The event queue of a reactor program: for each future tag, the targets (actions, timers,
// delayed connections' inputs) that become present at it, with their values. One event per
// target and tag: a second event for the same target and tag replaces the first's value
// (LF semantics). Not thread-safe: the reaction scheduler guards it with its lock.
//
// A vector sorted by descending tag: the earliest events are at the back, so taking a tag's
// events is a pop, and the commonest insertion — an event at the next microstep or the next
// period, earlier than everything pending — is a push at the back. No allocation per event
// once the vector has grown to the program's working size.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "spate/reactor/element.hpp"
#include "spate/reactor/tag.hpp"

namespace spate::reactor::detail {

struct event {
  event_target* target;
  erased_value value;
};

class event_queue {
 public:
  void insert(const tag& at, event_target* target, erased_value value) {
    // First position (from the front) whose tag is earlier than `at`: the equal range of
    // `at` ends there.
    auto later_end = std::partition_point(entries_.begin(), entries_.end(),
                                          [&](const entry& e) { return e.at > at; });
    for (auto it = later_end; it != entries_.end() && it->at == at; ++it) {
      if (it->what.target == target) {
        it->what.value = std::move(value);
        return;
      }
    }
    // Behind the events already at `at`: taking pops from the back, so a tag's events come
    // out in reverse; take() restores insertion order.
    auto equal_end =
        std::partition_point(later_end, entries_.end(), [&](const entry& e) { return e.at == at; });
    entries_.insert(equal_end, entry{at, event{target, std::move(value)}});
  }
  // Replaces the value of a pending event; false when there is none at that tag.
  bool replace(const tag& at, event_target* target, erased_value value) {
    for (entry& e : entries_) {
      if (e.at == at && e.what.target == target) {
        e.what.value = std::move(value);
        return true;
      }
    }
    return false;
  }
  std::optional<tag> earliest() const {
    if (entries_.empty()) return std::nullopt;
    return entries_.back().at;
  }
  // Moves the events of `at` (the earliest tag) into `out` (cleared first), in the order
  // they were first placed.
  void take(const tag& at, std::vector<event>& out) {
    out.clear();
    while (!entries_.empty() && entries_.back().at == at) {
      out.push_back(std::move(entries_.back().what));
      entries_.pop_back();
    }
    std::reverse(out.begin(), out.end());
  }
  // Moves every event earlier than `floor` to `floor` (events placed before the start).
  void raise_to(const tag& floor) {
    std::vector<event> early;
    while (!entries_.empty() && entries_.back().at < floor) {
      early.push_back(std::move(entries_.back().what));
      entries_.pop_back();
    }
    for (auto it = early.rbegin(); it != early.rend(); ++it)
      insert(floor, it->target, std::move(it->value));
  }
  // Drops every pending event of these targets (a mutation removed them).
  template <class Set>
  void drop_targets(const Set& targets) {
    entries_.erase(
        std::remove_if(entries_.begin(), entries_.end(),
                       [&](const entry& e) { return targets.count(e.what.target) != 0; }),
        entries_.end());
  }
  bool empty() const noexcept { return entries_.empty(); }
  void clear() { entries_.clear(); }

 private:
  struct entry {
    tag at;
    event what;
  };
  std::vector<entry> entries_;  // descending by tag
};

}  // namespace spate::reactor::detail
