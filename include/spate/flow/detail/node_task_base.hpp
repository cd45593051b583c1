#pragma once
// The scheduling half of a node replica: a unit (exec/unit.hpp), with "input arrived",
// "output space freed" and "cancelled" as the reasons to be notified. Lifetime follows the
// activation's rule: the graph's state owns the task, and every unfinished task holds a reference
// to that state, dropped after finish().
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "spate/exec/link.hpp"
#include "spate/exec/unit.hpp"
#include "spate/flow/detail/checkpoint_coordinator.hpp"
#include "spate/flow/detail/graph_state.hpp"
#include "spate/platform/export.hpp"
#include "spate/platform/single_writer_counter.hpp"

namespace spate::flow::detail {

class SPATE_API node_task_base : public unit {
 public:
  node_task_base(node_stats& stats) : stats_(stats) {}

  // graph_state::cancel() calls this on the cancelling thread before notify(): a node
  // blocked outside the graph (in send() on a socket, waiting for a broker) would see the
  // flag only when that call returns, so it is woken here. Runs concurrently with the task.
  virtual void interrupt() noexcept {}

  // One line for diagnostics: state, inputs (queued/closed/producer waiting), output.
  // Diagnostics (the stall report): reads only atomics, since the task may be running.
  virtual std::string describe() const = 0;
  int state_for_diagnostics() const noexcept { return static_cast<int>(handshake_state()); }
  // The node's counters (atomics: describe() runs on another thread while the task runs).
  std::string counters_for_diagnostics() const {
    return " in=" + std::to_string(stats_.items_in.load(std::memory_order_relaxed)) +
           " out=" + std::to_string(stats_.items_out.load(std::memory_order_relaxed)) +
           " activations=" + std::to_string(stats_.activations.load(std::memory_order_relaxed)) +
           " blocked=" + std::to_string(stats_.output_blocked.load(std::memory_order_relaxed));
  }

  // Items one activation may handle; 0 takes the executor's budget (graph_options).
  void set_items_per_activation(std::size_t n) noexcept { items_per_activation_ = n; }
  void set_measure_busy_time(bool on) noexcept { measure_busy_ = on; }
  void set_dedicated_thread(bool on) noexcept { dedicated_thread_ = on; }
  bool on_dedicated_thread() const noexcept { return dedicated_thread_; }
  // The pool whose timers serve this task's node (flow/wake_timer.hpp); null before the
  // graph starts and after the task finished.
  worker_pool* timer_pool() const noexcept { return graph_ ? graph_->pool() : nullptr; }
  const std::string& name() const noexcept { return stats_.name; }
  node_stats& stats() noexcept { return stats_; }
  const node_stats& stats() const noexcept { return stats_; }
  // The node whose items leave on this task's output: its own, or its chain's last member's.
  const node_stats& sending_stats() const noexcept {
    return sending_stats_ != nullptr ? *sending_stats_ : stats_;
  }
  void set_sending_stats(const node_stats* s) noexcept { sending_stats_ = s; }

  // One activation: up to graph_options::items_per_activation items (the pool's budget
  // when that is 0), timed when graph_options::measure_busy_time is on. The time is charged
  // before the task lets go of itself (go_idle, finish: it may be destroyed right after),
  // and after an activation that keeps it (resume_later).
  resume_result resume(std::size_t pool_budget) final {
    const std::size_t budget = items_per_activation_ != 0 ? items_per_activation_ : pool_budget;
    if (!measure_busy_) return activate(budget);
    activation_start_ = std::chrono::steady_clock::now();
    const resume_result result = activate(budget);
    if (result == resume_result::resume_later) charge_busy_time();
    return result;
  }

  // The executor stopped with this task queued (or scheduled it after it stopped): it will
  // never run again. The rest of the graph cannot go on without it, and its idle tasks are
  // in no queue to be discarded: cancel the graph, which schedules every task (each is
  // discarded in turn by the stopped executor), and end this one the way a cancelled
  // activation does (on_cancel, outputs closed, waiting producers let go, finish). We own
  // the task here: it was queued, so no other activation runs.
  void discard() noexcept final {
    if (!graph_) return;
    graph_->cancel();
    (void)activate(0);  // a cancelled graph: ends at once
  }

  // ---- checkpoints (flow/checkpoints.hpp; the coordinator's protocol C1..C4)

  // Non-empty: why this task cannot take part in checkpoints (the graph does not start).
  virtual std::string checkpoint_refusal() { return {}; }
  // What its checkpoint part holds, for the graph's fingerprint: its keyed state's layout
  // and its own state's type (empty: none; both empty: no part).
  virtual std::string keyed_layout() { return {}; }
  virtual std::string own_layout() { return {}; }
  // Before the graph starts: the keyed rows of one part of the checkpoint it resumes from
  // (called for each part of its farm: it keeps the key groups it owns now), and its own
  // state (from its own part).
  virtual void restore_keyed(std::string_view /*bytes*/, std::uint32_t /*key_groups*/) {}
  virtual void restore_own(std::string_view /*bytes*/) {}
  // Before the graph starts (sources): the position recorded with the barrier.
  virtual void restore_position(std::string_view /*bytes*/) {}
  // A chain's members, "a, b, c" (empty: one node): with unaligned checkpoints, the items
  // stored in flight are the chain's, so the layout must match to restore them.
  virtual std::string chain_layout() const { return {}; }
  // Non-empty: why this task cannot take unaligned barriers (flow/detail/unaligned_barrier.hpp).
  virtual std::string unaligned_refusal() {
    return "cannot store the items in flight to it (an ordered farm's collector)";
  }
  // Before the graph starts: the outputs and inputs a part stored in flight (U5).
  virtual void restore_in_flight(std::string_view /*outputs*/, std::string_view /*inputs*/) {
    throw std::runtime_error("it cannot take back items in flight");
  }
  // Two-phase commit (flow/checkpoints.hpp T2..T5), for a committing_node's task.
  virtual bool commits() const noexcept { return false; }
  virtual bool commit(const checkpoint_commit& /*done*/) { return true; }
  virtual void abort_commit(std::uint64_t /*id*/) {}
  virtual std::optional<std::uint64_t> last_committed(const checkpoint_commit& /*newest*/) {
    return std::nullopt;
  }
  // Before the graph starts: the coordinator this task acknowledges to; the node's
  // enable_checkpoints() if it has one.
  void join_checkpoints(checkpoint_coordinator* c, std::size_t index) {
    checkpoints_ = c;
    checkpoint_index_ = index;
    enable_checkpoints();
  }
  // C1 (sources; any thread): inject barrier `id` at the next activation.
  void request_checkpoint(std::uint64_t id) noexcept {
    requested_checkpoint_.store(id, std::memory_order_release);
    notify();
  }

  // graph_state::start() hands every task its reference and the first activation.
  void launch(std::shared_ptr<graph_state> graph) {
    graph_ = std::move(graph);
    graph_cancelled_ = &graph_->cancelled_flag();
    get_executor()->schedule(this);
  }

 protected:
  // What the node does with one activation of at most `budget` items.
  virtual resume_result activate(std::size_t budget) = 0;
  virtual void enable_checkpoints() {}
  // The task has ended: what holds its state outside the process's memory (a keyed state
  // backend's table) goes now, not when the graph is destroyed or starts again.
  virtual void release_state() noexcept {}

  // Goes idle unless `more_work` (which must read only atomics that producers write) or
  // cancellation says otherwise. Returns the result for resume().
  template <class MoreWork>
  resume_result go_idle(MoreWork&& more_work) noexcept {
    charge_busy_time();
    const std::atomic<bool>& cancelled = *graph_cancelled_;
    const bool keep_running =
        unit::go_idle([&] { return more_work() || cancelled.load(std::memory_order_relaxed); });
    return keep_running ? resume_result::resume_later : resume_result::awaiting;
  }

  // The last step of a task: marks it finished and drops its reference to the graph (which
  // may destroy the graph, this task included: nothing may follow but `return`).
  resume_result finish() noexcept {
    charge_busy_time();
    release_state();
    if (checkpoints_ != nullptr) checkpoints_->task_ended(checkpoint_index_);
    finish_unit();
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
      out << " [" << e->size_approx() << (e->is_closed() ? " closed" : "")
          << (e->producer_waits() ? " waiting" : "") << "]";
    }
    return out.str();
  }

  // Input checks shared by every consumer. `closed_inputs` and `any_queued` read atomics
  // only, so they may run after idle is published.
  template <class Edges>
  static std::size_t closed_inputs(const Edges& inputs) noexcept {
    std::size_t closed = 0;
    for (auto* e : inputs) closed += e->is_closed() ? 1 : 0;
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
      if (!e->closed_and_drained()) return false;
    }
    return true;
  }

  // The output is full: ask the consumers to wake us when they make room, then idle.
  template <class Port, class Edges>
  resume_result wait_for_output(Port& port, const Edges& inputs) {
    return wait_for_output(port, inputs, [] { return false; });
  }
  // The same, also woken by `news` (atomics only, like go_idle's re-check): a barrier to
  // take while the output is full (flow/detail/unaligned_barrier.hpp U1, U2).
  template <class Port, class Edges, class News>
  resume_result wait_for_output(Port& port, const Edges& inputs, News&& news) {
    add_single_writer(stats_.output_blocked);
    release_producers(inputs);  // link R3: our own inputs may hold producers back
    port.notify_consumers();
    port.request_space_notification();
    // This flush may fill rings whose consumers are already idle: tell them, or both sides
    // would sleep (consumer on a full ring it was never told about, producer on no room).
    const bool flushed = port.flush();
    port.notify_consumers();
    if (flushed) return resume_result::resume_later;
    std::vector<link_base*> blocked;
    port.blocked_edges(blocked);
    return go_idle([&] {
      for (auto* e : blocked) {
        if (e->has_room_to_resume()) return true;
      }
      return news();
    });
  }

  // Cancelled (by a failure anywhere): drop everything, close the outputs so nobody waits
  // for us, let producers waiting on our inputs go, and end.
  template <class Port, class Edges>
  resume_result end_cancelled(Port* port, const Edges& inputs) noexcept {
    release_producers(inputs, true);  // link R3, unconditionally: we end early
    if (port != nullptr) port->close();
    return finish();
  }

  // Adds the time since the activation started (or since the last charge) to the stats.
  void charge_busy_time() noexcept {
    if (!measure_busy_) return;
    const auto now = std::chrono::steady_clock::now();
    const auto spent =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - activation_start_);
    activation_start_ = now;
    add_single_writer(stats_.busy_ns, static_cast<std::uint64_t>(spent.count()));
  }

  node_stats& stats_;
  const node_stats* sending_stats_ = nullptr;      // a chain's last member's (null: stats_)
  checkpoint_coordinator* checkpoints_ = nullptr;  // null: checkpoints are off
  std::size_t checkpoint_index_ = 0;
  std::atomic<std::uint64_t> requested_checkpoint_{0};  // C1, written by the coordinator

 private:
  std::size_t items_per_activation_ = 0;
  bool measure_busy_ = false;
  bool dedicated_thread_ = false;  // a thread of its own, not the pool (builder)
  std::chrono::steady_clock::time_point activation_start_{};
  std::shared_ptr<graph_state> graph_;
  const std::atomic<bool>* graph_cancelled_ = nullptr;
};

template <class E>
link<E>* graph_state::add_edge(const link_options& options, node_task_base* producer,
                               node_task_base* consumer, std::string route) {
  auto l = std::make_unique<link<E>>(options, static_cast<unit*>(producer),
                                     static_cast<unit*>(consumer));
  link<E>* raw = l.get();
  edges_.push_back({std::move(l), producer, consumer, std::move(route)});
  return raw;
}

}  // namespace spate::flow::detail
