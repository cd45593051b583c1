#pragma once
// The scheduling half of a node replica: the same idle hand-shake as actors
// (abstract_actor.hpp), with "input arrived", "output space freed" and "cancelled" as the
// reasons to be scheduled.
#include <atomic>
#include <memory>
#include <string>

#include "spate/flow/detail/graph_state.hpp"
#include "spate/scheduler/task.hpp"

namespace spate::flow::detail {

class node_task_base : public task {
 public:
  node_task_base(node_stats& stats) : stats_(stats) {}

  // Schedules the task if it is idle. Any thread; cheap when it is already scheduled.
  void notify() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (state_.load(std::memory_order_relaxed) != idle) return;
    int expected = idle;
    if (state_.compare_exchange_strong(expected, scheduled, std::memory_order_acq_rel)) {
      executor_->schedule(this);
    }
  }

  void set_executor(executor* e) noexcept { executor_ = e; }
  executor* get_executor() const noexcept { return executor_; }
  const std::string& name() const noexcept { return stats_.name; }
  node_stats& stats() noexcept { return stats_; }

  // graph_state::start() hands every task its reference and the first activation.
  void launch(std::shared_ptr<graph_state> graph) {
    graph_ = std::move(graph);
    executor_->schedule(this);
  }

 protected:
  static constexpr int idle = 0;
  static constexpr int scheduled = 1;
  static constexpr int finished = 2;

  // Publishes idle, then asks `more_work` (which must read only atomics that producers
  // write); takes the activation back when it says yes. Returns the result for resume().
  template <class MoreWork>
  resume_result go_idle(MoreWork&& more_work) noexcept {
    state_.store(idle, std::memory_order_release);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (more_work() || graph_->cancelled()) {
      int expected = idle;
      if (state_.compare_exchange_strong(expected, scheduled, std::memory_order_acq_rel)) {
        return resume_result::resume_later;
      }
    }
    return resume_result::awaiting;
  }

  // The last step of a task: marks it finished and drops its reference to the graph (which
  // may destroy the graph, this task included: nothing may follow but `return`).
  resume_result finish() noexcept {
    state_.store(finished, std::memory_order_release);
    std::shared_ptr<graph_state> last = std::move(graph_);
    last->task_finished();
    last.reset();
    return resume_result::done;
  }

  graph_state& graph() noexcept { return *graph_; }

  std::atomic<int> state_{scheduled};
  node_stats& stats_;

 private:
  executor* executor_ = nullptr;
  std::shared_ptr<graph_state> graph_;
};

}  // namespace spate::flow::detail
