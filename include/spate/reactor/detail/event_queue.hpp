#pragma once
// The event queue of a reactor program: for each future tag, the targets (actions, timers,
// delayed connections' inputs) that become present at it, with their values. One event per
// target and tag: a second event for the same target and tag replaces the first's value
// (LF semantics). Not thread-safe: the reaction scheduler guards it with its lock. Nodes come
// from a pool, so a steady stream of events does not allocate.
#include <map>
#include <memory_resource>
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
  using event_list = std::pmr::vector<event>;

  event_queue() : events_(&pool_) {}

  void insert(const tag& at, event_target* target, erased_value value) {
    auto [it, inserted] = events_.try_emplace(at, event_list(&pool_));
    for (event& e : it->second) {
      if (e.target == target) {
        e.value = std::move(value);
        return;
      }
    }
    it->second.push_back(event{target, std::move(value)});
  }
  // Replaces the value of a pending event; false when there is none at that tag.
  bool replace(const tag& at, event_target* target, erased_value value) {
    auto it = events_.find(at);
    if (it == events_.end()) return false;
    for (event& e : it->second) {
      if (e.target == target) {
        e.value = std::move(value);
        return true;
      }
    }
    return false;
  }
  std::optional<tag> earliest() const {
    if (events_.empty()) return std::nullopt;
    return events_.begin()->first;
  }
  // Moves the events of `at` (the earliest tag) into `out` (cleared first).
  void take(const tag& at, std::vector<event>& out) {
    out.clear();
    auto it = events_.find(at);
    if (it == events_.end()) return;
    for (event& e : it->second) out.push_back(std::move(e));
    events_.erase(it);
  }
  // Moves every event earlier than `floor` to `floor` (events placed before the start).
  void raise_to(const tag& floor) {
    std::vector<event> early;
    while (!events_.empty() && events_.begin()->first < floor) {
      for (event& e : events_.begin()->second) early.push_back(std::move(e));
      events_.erase(events_.begin());
    }
    for (event& e : early) insert(floor, e.target, std::move(e.value));
  }
  bool empty() const noexcept { return events_.empty(); }
  void clear() { events_.clear(); }

 private:
  std::pmr::unsynchronized_pool_resource pool_;
  std::pmr::map<tag, event_list> events_;
};

}  // namespace spate::reactor::detail
