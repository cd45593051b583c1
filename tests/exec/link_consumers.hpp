#pragma once
// Consumer ends for link tests (tests/exec/link_test.cpp, tests/stress): a task that drains a
// link, and a thread loop that does the same through a waiter.
#include <atomic>
#include <cstdint>
#include <vector>

#include "spate/exec/link.hpp"

namespace spate_test {

// The consumer end as a task, as flow::link_source consumes: item by item with
// pop_and_release (R3 at the resume level), then idle re-checking the link; it finishes once
// the link is closed and drained.
class link_draining_unit final : public spate::unit {
 public:
  explicit link_draining_unit(spate::link<int>& input) : input_(input) {}
  spate::resume_result resume(std::size_t) override {
    for (;;) {
      while (int* item = input_.front()) {
        got.push_back(*item);
        input_.pop_and_release();
      }
      input_.release_producer();  // drained: R3 in full before idling
      if (input_.closed_and_drained()) {
        finish_unit();
        done.store(true, std::memory_order_release);
        return spate::resume_result::done;
      }
      if (!go_idle([&] { return input_.size_approx() != 0 || input_.is_closed(); })) {
        return spate::resume_result::awaiting;
      }
    }
  }
  std::vector<int> got;  // read once `done`
  std::atomic<bool> done{false};

 private:
  spate::link<int>& input_;
};

// The consumer end as a thread: sleeps in `w` until an item or the end arrives, pops one
// item at a time (pop_and_release), returns everything once the link is closed and drained.
inline std::vector<int> drain_on_this_thread(spate::link<int>& l, spate::waiter& w) {
  std::vector<int> got;
  for (;;) {
    w.wait_until([&] { return l.size_approx() != 0 || l.is_closed(); });
    while (int* item = l.front()) {
      got.push_back(*item);
      l.pop_and_release();
    }
    l.release_producer();  // drained: R3 in full before waiting
    if (l.closed_and_drained()) return got;
  }
}

// A consumer task that takes part in markers: reads with readable_before_marker(), records
// each marker it meets as {its id, the items popped before it}, and counts a marker as news
// in its idle re-check (link M2, M3). It ends once the link has ended() (no marker due).
class marker_recording_unit final : public spate::unit {
 public:
  explicit marker_recording_unit(spate::link<int>& input) : input_(input) {}
  spate::resume_result resume(std::size_t) override {
    for (;;) {
      // Read before the markers are examined (M2): one posted later is news to the re-check.
      const std::size_t markers_seen = input_.markers_posted();
      for (;;) {
        if (input_.at_marker()) {
          markers.push_back({.id = input_.front_marker()->id, .position = input_.popped()});
          input_.pop_marker();
          continue;
        }
        const auto batch = input_.readable_before_marker(64);
        if (batch.size() == 0) break;
        for (std::size_t k = 0; k < batch.size(); ++k) got.push_back(batch[k]);
        input_.pop_n(batch.size());
      }
      input_.release_producer();
      if (input_.ended()) {
        finish_unit();
        done.store(true, std::memory_order_release);
        return spate::resume_result::done;
      }
      if (!go_idle([&] {
            // Atomics only (M2): the next activation may already run.
            return input_.size_approx() != 0 || input_.markers_posted() != markers_seen ||
                   input_.is_closed();
          })) {
        return spate::resume_result::awaiting;
      }
    }
  }
  std::vector<int> got;                     // read once `done`
  std::vector<spate::link_marker> markers;  // read once `done`
  std::atomic<bool> done{false};

 private:
  spate::link<int>& input_;
};

// The producer thread of marker tests: pushes 0..n-1 and posts a marker, numbered in turn,
// after every `every` items, waking the consumer after each (M2); then closes. A marker that
// finds the queue full is not posted. Returns the markers posted.
inline std::vector<spate::link_marker> push_with_markers(spate::link<int>& l, int n, int every) {
  std::vector<spate::link_marker> posted;
  std::uint64_t next_id = 0;
  for (int i = 0; i < n; ++i) {
    l.push_waiting_for_room(i, [] { return false; });
    if ((i + 1) % every == 0) {
      l.publish();
      const spate::link_marker m{.id = next_id++, .position = l.pushed()};
      if (l.post_marker(m)) {
        posted.push_back(m);
        l.wake_consumer();
      }
    }
  }
  l.close();
  return posted;
}

inline std::vector<int> zero_to(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

}  // namespace spate_test
