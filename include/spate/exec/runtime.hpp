#pragma once
// The runtime: one object that owns what every programming model shares — the worker pool,
// the timers, the dedicated threads, error reporting — and the order in which they stop.
// An actor system, a flow graph, a reactor environment and the parallel algorithms all take
// a `runtime&`, so one program mixes them on one pool:
//
//   spate::runtime rt{spate::runtime_config::from_command_line(argc, argv)};
//   spate::actor_system actors{rt};
//   spate::flow::graph job{...};
//   job.run(rt);                      // the graph's nodes share the actors' workers
//
// Configuration is applied in one place, here: the program's runtime_config, then SPATE_KEY
// environment variables, then `--spate.KEY=VALUE` arguments (each overriding the one
// before; see scheduler_config::apply for the keys).
//
// Shutdown (shutdown(), or the destructor), in this order:
//   1. Each attached model stops, newest first: an actor system kills its actors and waits
//      for them, a flow graph is cancelled and waited for, a reactor program stops at its
//      next microstep; a model attaches with on_shutdown() and detaches when it is destroyed.
//   2. The timers stop: pending ones are cancelled without running (their callbacks are
//      freed), so no callback can schedule work on a pool that is stopping.
//   3. Dedicated threads are asked to stop and joined.
//   4. The worker pool stops and joins its workers; tasks still queued are discarded.
// Calling shutdown() from a thread of this runtime (a worker, a dedicated thread) throws
// std::logic_error: it would wait for itself.
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "spate/exec/dedicated_thread.hpp"
#include "spate/exec/scheduler_config.hpp"
#include "spate/exec/timer_service.hpp"
#include "spate/exec/worker_pool.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// How a runtime is built.
struct SPATE_API runtime_config {
  scheduler_config scheduler = scheduler_config::default_preset();  ///< the worker pool's
  /// Where models report unexpected messages and unhandled exceptions. Empty (default): to
  /// the log (spate/log/log.hpp) at level error, so stderr unless a log sink is set; set:
  /// every such error text goes here instead, and not to the log.
  std::function<void(const std::string&)> error_reporter;
  /// SPATE_KEY environment variables override `scheduler` (when the runtime is built); a
  /// `polling` preset keeps the polling knobs the program changed (scheduler_config::apply),
  /// and an unknown SPATE_ variable is reported as a warning: to `error_reporter` when set,
  /// else to the log at level warn (component "config").
  bool read_environment = true;
  /// `--spate.KEY=VALUE` settings taken from a command line; they override the environment.
  std::vector<scheduler_config::setting> command_line;

  /// A configuration with the `--spate.KEY=VALUE` arguments of this command line; the other
  /// arguments (argv[0] excluded) go to `rest` when given.
  static runtime_config from_command_line(int argc, const char* const* argv,
                                          std::vector<std::string>* rest = nullptr);
};

/// What every model shares: the worker pool, timers, dedicated threads, error reporting
/// and the order they stop in (see the top of this file).
class SPATE_API runtime {
 public:
  /// Builds the pool and starts its workers (SPATE_* variables and `command_line` applied).
  explicit runtime(runtime_config config = {});
  ~runtime();  ///< shutdown()
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  /// The worker pool every model runs on.
  worker_pool& pool() noexcept { return *pool_; }
  /// Timers served by the pool's workers.
  timer_service& timers() noexcept { return *timers_; }
  /// The configuration in force (with the environment and command line applied).
  const runtime_config& config() const noexcept { return config_; }

  /// A thread of its own for tasks that block or must be pinned; owned by the runtime and
  /// joined at shutdown (step 3). Thread-safe.
  dedicated_thread& start_dedicated_thread(std::string name,
                                           std::optional<std::size_t> cpu = std::nullopt);
  /// The thread's work is over (its detached actor terminated): it stops once its queue is
  /// empty and is joined and freed by a later start_dedicated_thread / retire call or at
  /// shutdown, so threads of finished work do not pile up. Callable on that thread itself;
  /// a thread shutdown() has already taken (step 3) is left to it.
  void retire_dedicated_thread(dedicated_thread& thread);
  /// Dedicated threads not yet joined (tests, diagnostics).
  std::size_t dedicated_thread_count() const;

  /// Registers a model's stop step (shutdown step 1); returns a key for remove_shutdown_step.
  std::size_t on_shutdown(std::function<void()> stop);
  /// Unregisters a stop step (its model went away first).
  void remove_shutdown_step(std::size_t key);

  /// Reports an error through config().error_reporter, or to the log (level error,
  /// component "runtime") when there is none. Thread-safe.
  void report_error(const std::string& text);

  /// The numbered shutdown above. Idempotent.
  void shutdown();
  /// True once shutdown() has run.
  bool is_shut_down() const;

 private:
  void join_finished_threads_locked();
  runtime_config config_;
  std::unique_ptr<worker_pool> pool_;
  std::unique_ptr<timer_service> timers_;  ///< over pool_
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<dedicated_thread>> dedicated_threads_;
  std::vector<std::pair<std::size_t, std::function<void()>>> shutdown_steps_;
  std::size_t next_step_key_ = 1;
  bool shut_down_ = false;
};

}  // namespace spate
