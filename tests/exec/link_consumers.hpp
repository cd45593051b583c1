#pragma once
// Consumer ends for link tests (tests/exec/link_test.cpp, tests/stress): a task that drains a
// link, and a thread loop that does the same through a waiter.
#include <atomic>
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

inline std::vector<int> zero_to(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

}  // namespace spate_test
