#pragma once
// A runnable streaming graph: instantiates stage descriptors into node replicas (tasks on
// a runtime's worker pool, or dedicated threads of that runtime), wires them with bounded
// SPSC edges, runs them to the end of the stream, and reports the first failure.
//
// A graph runs only on a runtime (run(rt), start(rt), or run() with a runtime of its own):
// the runtime owns its threads and stops it at shutdown (runtime.hpp, step 1).
//
// How the graph is wired (farm fusion, routers, collectors) is in flow/detail/builder.hpp.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "spate/exec/dedicated_thread.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/flow/detail/builder.hpp"
#include "spate/flow/detail/checkpoint_coordinator.hpp"
#include "spate/flow/detail/graph_state.hpp"
#include "spate/flow/graph_options.hpp"
#include "spate/flow/stages.hpp"
#include "spate/platform/export.hpp"

namespace spate::flow {

/// A node's identity and counters, for tests, metrics and topology pictures.
struct node_info {
  std::string name;               ///< the stage's name, "#i" for farm replica i
  std::string kind;               ///< "source", "node", "sink", "router" or "collector"
  std::uint64_t items_in;         ///< items consumed
  std::uint64_t items_out;        ///< items sent
  std::uint64_t activations;      ///< times it ran on a worker
  std::uint64_t output_blocked;   ///< times it suspended on a full output edge
  std::chrono::nanoseconds busy;  ///< zero unless graph_options::measure_busy_time
  std::size_t queued = 0;         ///< items waiting in its input edges (approximate while it runs)
  /// Operator chaining: the name of the chain's first node when this node runs chained in
  /// one task with others (that first node's activations, output_blocked and busy are the
  /// whole chain's); empty when it runs alone.
  std::string chain{};
};

/// One edge: a bounded SPSC queue from one node replica to another (indices into
/// topology::nodes).
struct edge_info {
  std::size_t from;      ///< the producing replica
  std::size_t to;        ///< the consuming replica
  std::size_t capacity;  ///< items the edge holds (0: chained nodes, one calling the next)
  std::size_t queued;    ///< approximate while the graph runs
  std::string route;     ///< how `from` picks this edge among its outputs; empty: its only one;
                         ///< "chained": `to` runs in `from`'s task (flow::unchained)
};

/// The graph as it was built: every node replica (routers and collectors included) and
/// every edge. Farm replicas are named "name#i"; a fused farm has no router, so its edges
/// run from every upstream replica to every replica.
struct topology {
  std::vector<node_info> nodes;  ///< in the order they were built (sources first)
  std::vector<edge_info> edges;  ///< every edge between them
};

namespace detail {
SPATE_API flow::topology read_topology(const graph_state& state);
}

/// A runnable streaming graph: a pipeline from a source to a sink, instantiated into node
/// replicas on a runtime's worker pool (or its dedicated threads) when it starts. It may
/// run again after wait() returned (on the same runtime or another).
class graph {
 public:
  /// A graph of `stage`, which must start with a source and end with a sink (checked at
  /// compile time).
  template <class Stage>
    requires is_stage<Stage>::value
  explicit graph(Stage stage, graph_options options = {}) : options_(options) {
    static_assert(std::is_void_v<typename Stage::input_type>,
                  "spate::flow::graph: a runnable graph starts with a source (node<void, T>)");
    static_assert(std::is_void_v<typename Stage::output_type>,
                  "spate::flow::graph: a runnable graph ends with a sink (node<T, void>)");
    build_ = [stage = std::move(stage)](detail::builder& b) { b.build(stage); };
  }

  graph(const graph&) = delete;
  graph& operator=(const graph&) = delete;
  /// A graph destroyed while it runs is cancelled first. Off the pool it is then waited
  /// for. On a worker of its own pool (a graph actor stopping) it is never waited for:
  /// waiting there could need the very worker it blocks. Its tasks keep their shared state
  /// alive until they end, and its dedicated threads, once their cancelled node has ended,
  /// are joined by the runtime, which must still be alive then.
  ~graph() {
    if (!state_ || waited_) return;
    state_->cancel();
    if (runtime_->pool().is_worker_thread()) {
      forget_shutdown_step();
      release_threads_without_waiting();
      return;
    }
    try {
      finish_run();
    } catch (...) {  // a node's failure: the owner chose not to ask for it
    }
  }

  /// Runs the graph on the runtime's pool until every sink has seen the end of the stream.
  /// Rethrows the first node failure as node_error (after cancelling and draining the rest).
  /// A runtime shut down meanwhile cancels the graph (runtime.hpp, step 1): run() returns.
  void run(runtime& rt) {
    reject_on_worker(rt.pool(), "run");
    start(rt);
    finish_run();
  }
  /// Runs on a runtime of its own, configured as every runtime is (the SPATE_* environment
  /// variables apply).
  void run() {
    runtime rt;
    run(rt);
  }

  /// Starts without waiting (graph actors); wait() blocks until the end. `on_finished`, if
  /// given, runs once when the graph has finished, with the failure's text (empty on
  /// success), on the thread that ended it: a worker, a dedicated thread, or the thread of
  /// a cancel (cancel(), the destructor, runtime shutdown); it must not block. wait()
  /// returns only after it has returned.
  /// Nodes on dedicated threads get them from the runtime. The graph registers a shutdown
  /// step: runtime::shutdown() cancels it and waits until every node has ended, so a
  /// wait() blocked meanwhile returns.
  void start(runtime& rt, std::function<void(const std::string&)> on_finished = nullptr) {
    if (state_ && !waited_) {
      throw std::logic_error("spate::flow::graph: started again before wait() returned");
    }
    runtime_ = &rt;
    prepare();
    waited_ = false;
    if (on_finished) state_->set_on_finished(std::move(on_finished));
    state_->set_stall_report_after(options_.stall_report_after);
    shutdown_key_ = rt.on_shutdown([state = state_] {
      state->cancel();
      state->wait_finished();
    });
    state_->start(state_);
    // After the tasks launched (its requests notify them). A thread that cannot start
    // fails the run rather than leave it running without checkpoints.
    if (auto* c = state_->coordinator()) {
      try {
        c->start();
      } catch (...) {
        state_->fail("checkpoint coordinator", std::current_exception());
      }
    }
  }
  /// Blocks until the run started by start() has ended; rethrows a node's failure as
  /// node_error. Not on a worker of the graph's pool (std::logic_error: it would block a
  /// worker the graph may need).
  void wait() {
    if (runtime_ != nullptr) reject_on_worker(runtime_->pool(), "wait");
    finish_run();
  }
  /// Ends the run: every node drops its input and ends (on_cancel, not on_stop). Any thread.
  void cancel() {
    if (state_) state_->cancel();
  }
  /// True once every node of the current run has ended. Any thread.
  bool finished() const { return state_ && state_->finished(); }
  /// What the current (or last) run's checkpoints did (graph_options::checkpoints); zeros
  /// without checkpoints. Any thread.
  checkpoint_stats checkpoints() const {
    const auto state = current_state();
    return state && state->coordinator() ? state->coordinator()->stats() : checkpoint_stats{};
  }
  /// The options it was made with (observe::watch reads measure_busy_time). Any thread.
  const graph_options& options() const noexcept { return options_; }

  /// Every node replica's counters. Empty before the first start; the last run's after it.
  /// Any thread, also while the graph runs (a metrics scrape).
  std::vector<node_info> nodes() const { return topology().nodes; }
  /// Nodes and edges of the current (or last) run; empty before the first start. Any thread.
  flow::topology topology() const {
    const auto state = current_state();
    return state ? detail::read_topology(*state) : flow::topology{};
  }

 private:
  static void reject_on_worker(worker_pool& pool, const char* what) {
    if (pool.is_worker_thread()) {
      throw std::logic_error(std::string("spate::flow::graph::") + what +
                             "() called on a worker of the pool the graph runs on: it would "
                             "block that worker; spawn the graph as an actor or call it from "
                             "another thread");
    }
  }
  void prepare() {
    auto state = std::make_shared<detail::graph_state>();
    runtime_threads_.clear();
    detail::builder b(
        *state, runtime_->pool(), options_, [this](std::optional<std::size_t> cpu) -> executor& {
          runtime_threads_.push_back(&runtime_->start_dedicated_thread("spate-node", cpu));
          return *runtime_threads_.back();
        });
    try {
      build_(b);
      if (options_.checkpoints) {
        // Before any task runs: nodes that cannot take part are refused, state restored.
        auto coordinator =
            std::make_unique<detail::checkpoint_coordinator>(*options_.checkpoints, *state);
        coordinator->restore();
        state->set_coordinator(std::move(coordinator));
      }
    } catch (...) {  // threads started for the nodes built so far are not leaked
      release_threads_without_waiting();
      throw;
    }
    const std::lock_guard lock(state_mutex_);
    state_ = std::move(state);
  }
  void forget_shutdown_step() {
    if (shutdown_key_ != 0) runtime_->remove_shutdown_step(shutdown_key_);
    shutdown_key_ = 0;
  }
  /// The run's dedicated threads go back to the runtime, which joins each once its node
  /// has run to its end and its queue is empty (a later start_dedicated_thread or retire
  /// call, or shutdown). Never waits: also used after cancel() on a worker of the pool.
  void release_threads_without_waiting() {
    for (auto* t : runtime_threads_) runtime_->retire_dedicated_thread(*t);
    runtime_threads_.clear();
  }
  /// A reader on another thread (metrics) may race with a restart that replaces the state.
  std::shared_ptr<detail::graph_state> current_state() const {
    const std::lock_guard lock(state_mutex_);
    return state_;
  }
  void finish_run() {
    waited_ = true;
    // The shutdown step stays registered while this waits: a runtime shut down meanwhile
    // must still cancel the graph, or a wait on idle nodes would never return.
    struct release_threads {
      graph& g;
      ~release_threads() {
        if (auto* c = g.state_->coordinator()) c->stop();  // its last checkpoint is done
        g.forget_shutdown_step();
        g.release_threads_without_waiting();
      }
    } releaser{*this};
    state_->wait_and_rethrow();
  }

  graph_options options_;
  std::function<void(detail::builder&)> build_;
  mutable std::mutex state_mutex_;  ///< guards replacing state_ against current_state()
  std::shared_ptr<detail::graph_state> state_;
  std::vector<dedicated_thread*> runtime_threads_;  ///< the runtime's, retired at the end
  bool waited_ = true;            ///< no run in progress that the destructor must end
  runtime* runtime_ = nullptr;    ///< the runtime of the current (or last) run
  std::size_t shutdown_key_ = 0;  ///< the runtime's shutdown step for this run
};

}  // namespace spate::flow
