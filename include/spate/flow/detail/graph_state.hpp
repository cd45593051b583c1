#pragma once
// What the tasks of one running graph share: completion, the first error, cancellation,
// per-node counters, and ownership of tasks and edges.
//
// Lifetime: the graph's owner and every task that has not finished hold a shared_ptr. A
// task releases its reference as the very last thing it does, so the state (tasks and
// edges included) outlives every activation and every notification between neighbours.
//
// What the state does not own are the executors of nodes on dedicated threads: the runtime
// does, and the graph retires them once the run has ended. cancel() wakes every task
// through its executor, so the run must not count as ended while a cancel is still waking
// tasks, or a waiter could retire (free) a thread that cancel() is about to notify: a
// runtime shutdown cancelling a graph whose last node ends on its own meanwhile. Hence, under
// the state's mutex: cancel() marks itself `waking_` unless the run has already finished
// (then there is nobody to wake), and clears it when done; the run has ended
// (`ended_locked`) when every task finished and no cancel is waking; the finish hook of a
// run that finished during a cancel's wake-ups runs at the end of that cancel instead,
// in the locked section that clears waking_. Waiters (wait_and_rethrow, wait_finished) return
// only after the finish hook has returned (`hook_running_`, set under the mutex where the
// run is found ended), so an owner may destroy what the hook uses once wait() returns; the
// hook's own thread does not wait for it (a hook that destroys its graph), and finished()
// does not wait for it either (a hook may post to an actor that asks). Not yet covered:
// graph::~graph on a worker (a graph actor) whose cancel() returns at once because another cancel
// is still waking, and wake timers ticking into a node of a cancelled run (CHANGELOG, Known
// issues).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "spate/exec/link.hpp"
#include "spate/platform/export.hpp"

namespace spate {
class worker_pool;
}

namespace spate::flow {

// Thrown by graph::run() when a node threw: names the node, keeps the original exception.
class SPATE_API node_error : public std::runtime_error {
 public:
  node_error(const std::string& node, const std::string& message, std::exception_ptr original)
      : std::runtime_error("spate::flow: node '" + node + "' failed: " + message),
        node_(node),
        original_(std::move(original)) {}
  const std::string& node() const noexcept { return node_; }
  std::exception_ptr original() const noexcept { return original_; }

 private:
  std::string node_;
  std::exception_ptr original_;
};

// Per node replica, readable while the graph runs.
struct node_stats {
  std::string name;
  std::string kind;  // "source", "node", "sink", "router", "collector"
  std::atomic<std::uint64_t> items_in{0};
  std::atomic<std::uint64_t> items_out{0};
  std::atomic<std::uint64_t> activations{0};
  std::atomic<std::uint64_t> output_blocked{0};  // times the node suspended on a full edge
  std::atomic<std::uint64_t> busy_ns{0};  // time in activations (graph_options::measure_busy_time)
  // Operator chaining (chain_node.hpp): the member before this one in its chain (null: it
  // heads a task), and the chain's task name (its first member's; empty when alone). A
  // chain's task counters (activations, output_blocked, busy_ns) are its first member's.
  const node_stats* chained_after = nullptr;
  std::string chain;
};

namespace detail {

class node_task_base;
class checkpoint_coordinator;

class SPATE_API graph_state : public std::enable_shared_from_this<graph_state> {
 public:
  graph_state() = default;
  graph_state(const graph_state&) = delete;
  graph_state& operator=(const graph_state&) = delete;
  ~graph_state();

  node_stats& add_stats(std::string name, std::string kind);
  // A graph edge: the link from one producer replica to one consumer replica, and what
  // topology pictures show of it. Fixed once the graph is built.
  struct edge {
    std::unique_ptr<link_base> link;
    const node_task_base* producer;
    const node_task_base* consumer;
    // How the producer picks this edge among its outputs ("by key (fused)", "broadcast",
    // ...; empty for a single successor).
    std::string route;
  };
  template <class E>
  link<E>* add_edge(const link_options& options, node_task_base* producer, node_task_base* consumer,
                    std::string route);
  void add_task(std::unique_ptr<node_task_base> t);

  // Starts every task (each takes a reference to this state).
  void start(const std::shared_ptr<graph_state>& self);
  // Records the first failure and cancels the graph: every task drops its input and ends.
  void fail(const std::string& node, std::exception_ptr error);
  // fail() for a failure from outside the tasks (the checkpoint coordinator): recorded only
  // while some task runs, so a run that has ended keeps the outcome it was reported with.
  void fail_unless_finished(const std::string& node, std::exception_ptr error);
  bool cancelled() const noexcept { return cancelled_.load(std::memory_order_acquire); }
  const std::atomic<bool>& cancelled_flag() const noexcept { return cancelled_; }
  // Called by a task as its last step.
  void task_finished();
  // Items in and out and activations over every node: changes while the graph progresses.
  std::uint64_t progress() const noexcept;
  // Blocks until every task has finished; rethrows a node's failure as node_error.
  void wait_and_rethrow();
  // Blocks until every task has finished (runtime shutdown: the failure is the owner's).
  void wait_finished();
  bool finished() const;
  void cancel();
  // Runs once, on the thread of the last task to finish (or of the cancel that was waking
  // tasks then), after the graph ended (with the failure's text, empty on success), and
  // before waiters return. Must not block (send a message). Set it before start().
  void set_on_finished(std::function<void(const std::string& failure)> hook) {
    on_finished_ = std::move(hook);
  }

  void set_stall_report_after(std::chrono::milliseconds period) { stall_report_after_ = period; }

  // The pool the graph's tasks run on (its timers serve every node, dedicated or not).
  void set_pool(worker_pool* pool) noexcept { pool_ = pool; }
  worker_pool* pool() const noexcept { return pool_; }

  const std::vector<std::unique_ptr<node_stats>>& stats() const noexcept { return stats_; }
  const std::vector<std::unique_ptr<node_task_base>>& tasks() const noexcept { return tasks_; }
  // Fixed once the graph is built: read while it runs (sizes are atomics).
  const std::vector<edge>& edges() const noexcept { return edges_; }

  // The run's checkpoint coordinator (flow/checkpoints.hpp), or null. Set once the graph is
  // built, before start(); destroyed first by ~graph_state, while the tasks still exist.
  void set_coordinator(std::unique_ptr<checkpoint_coordinator> c);
  checkpoint_coordinator* coordinator() const noexcept { return coordinator_.get(); }

 private:
  std::vector<std::unique_ptr<node_stats>> stats_;
  std::vector<std::unique_ptr<node_task_base>> tasks_;  ///< destroyed newest first (~graph_state)
  std::vector<edge> edges_;                             ///< destroyed before the tasks
  std::atomic<std::size_t> live_{0};
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mutex_;
  std::condition_variable done_;
  bool finished_ = false;              ///< every task has finished
  bool waking_ = false;                ///< a cancel() is notifying tasks (top of the file)
  bool finish_hook_deferred_ = false;  ///< finished while waking_: cancel() runs the hook
  bool hook_running_ = false;          ///< a thread is running the finish hook
  std::thread::id hook_thread_{};      ///< which one (it does not wait for itself)
  bool ended_locked() const noexcept { return finished_ && !waking_; }
  void begin_finish_hook_locked();
  void end_finish_hook();
  bool waiters_may_return_locked() const noexcept;
  void run_finish_hook();
  std::chrono::milliseconds stall_report_after_{0};
  std::exception_ptr error_;
  std::string error_node_;
  std::string error_message_;
  std::function<void(const std::string&)> on_finished_;
  worker_pool* pool_ = nullptr;
  std::unique_ptr<checkpoint_coordinator> coordinator_;  // declared last: destroyed first
};

}  // namespace detail
}  // namespace spate::flow
