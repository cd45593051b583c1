#pragma once
// The scheduling half of a node replica: the same idle hand-shake as actors
// (abstract_actor.hpp), with "input arrived", "output space freed" and "cancelled" as the
// reasons to be scheduled.
#include <atomic>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "spate/flow/detail/graph_state.hpp"
#include "spate/scheduler/task.hpp"

namespace spate::flow::detail {

class node_task_base : public task {
 public:
  node_task_base(node_stats& stats) : stats_(stats) {}

  // Schedules the task if it is idle. Any thread; cheap when it is already scheduled.
  void notify() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    notify_after_fence();
  }
  // For waking several tasks: one seq_cst fence by the caller, then this for each.
  void notify_after_fence() noexcept {
    if (state_.load(std::memory_order_relaxed) != idle) return;
    int expected = idle;
    if (state_.compare_exchange_strong(expected, scheduled, std::memory_order_acq_rel)) {
      executor_->schedule(this);
    }
  }

  // One line for diagnostics: state, inputs (queued/closed/producer waiting), output.
  virtual std::string describe() const = 0;
  int state_for_diagnostics() const noexcept { return state_.load(std::memory_order_relaxed); }

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
  //
  // Once idle is published, another activation of this task may run, and even finish (and
  // move graph_ out). `keep` is taken before: it keeps the graph — and so this task and its
  // edges — alive through the check, which reads no member written by activations.
  template <class MoreWork>
  resume_result go_idle(MoreWork&& more_work) noexcept {
    const std::shared_ptr<graph_state> keep = graph_;
    state_.store(idle, std::memory_order_release);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (more_work() || keep->cancelled()) {
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

  template <class Edges>
  static std::string describe_edges(const Edges& inputs) {
    std::ostringstream out;
    for (auto* e : inputs) {
      out << " [" << e->size_approx() << (e->closed.load() ? " closed" : "")
          << (e->producer_waiting.load() ? " waiting" : "") << "]";
    }
    return out.str();
  }

  // Input checks shared by every consumer. `closed_inputs` and `any_queued` read atomics
  // only, so they may run after idle is published.
  template <class Edges>
  static std::size_t closed_inputs(const Edges& inputs) noexcept {
    std::size_t closed = 0;
    for (auto* e : inputs) closed += e->closed.load(std::memory_order_acquire) ? 1 : 0;
    return closed;
  }
  template <class Edges>
  static bool any_queued(const Edges& inputs) noexcept {
    for (auto* e : inputs) {
      if (e->size_approx() != 0) return true;
    }
    return false;
  }
  // Consumer side: every producer has closed and nothing is left (closed is read first:
  // producers push before they close).
  template <class Edges>
  static bool all_closed_and_drained(const Edges& inputs) {
    for (auto* e : inputs) {
      if (!e->closed.load(std::memory_order_acquire) || e->ring.front() != nullptr) return false;
    }
    return true;
  }

  // Wakes producers that wait for room on `inputs` (call after consuming from them).
  //
  // The consumer never clears the flag: only the producer does, once its buffer for that
  // edge is empty. A consumer clearing it could swallow a request the producer made after
  // refilling the ring (the notify then lands while the producer still runs, its re-check
  // sees a full ring, and nobody wakes it again). Notifying a running task is one load.
  template <class Edges>
  static void release_waiting_producers(const Edges& inputs) noexcept {
    if (inputs.empty()) return;
    std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with the producer's go_idle
    for (auto* e : inputs) {
      if (e->producer_waiting.load(std::memory_order_relaxed)) e->producer->notify_after_fence();
    }
  }

  // The output is full: ask the consumers to wake us when they make room, then idle.
  template <class Port, class Edges>
  resume_result wait_for_output(Port& port, const Edges& inputs) {
    stats_.output_blocked.store(stats_.output_blocked.load(std::memory_order_relaxed) + 1,
                                std::memory_order_relaxed);
    release_waiting_producers(inputs);  // our own inputs may hold producers back
    port.notify_consumers();
    port.request_space_notification();
    // This flush may fill rings whose consumers are already idle: tell them, or both sides
    // would sleep (consumer on a full ring it was never told about, producer on no room).
    const bool flushed = port.flush();
    port.notify_consumers();
    if (flushed) return resume_result::resume_later;
    std::vector<edge_base*> blocked;
    port.blocked_edges(blocked);
    return go_idle([&] {
      for (auto* e : blocked) {
        if (e->size_approx() < e->capacity()) return true;
      }
      return false;
    });
  }

  // Cancelled (by a failure anywhere): drop everything, close the outputs so nobody waits
  // for us, let producers waiting on our inputs go, and end.
  template <class Port, class Edges>
  resume_result end_cancelled(Port* port, const Edges& inputs) noexcept {
    release_waiting_producers(inputs);
    if (port != nullptr) port->close();
    return finish();
  }

  std::atomic<int> state_{scheduled};
  node_stats& stats_;

 private:
  executor* executor_ = nullptr;
  std::shared_ptr<graph_state> graph_;
};

}  // namespace spate::flow::detail
