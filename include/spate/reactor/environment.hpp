#pragma once
// The environment: one reactor program on a spate runtime. It owns the top-level reactors,
// assembles the program (dependency graph, causality check, levels) and runs it on the
// runtime's worker pool, next to whatever actors and flow graphs share that pool.
//
//   spate::runtime rt;
//   spate::reactor::environment env{rt, {.timeout = 1s}};
//   env.make_top<my_program>("main", parameters...);
//   env.run();   // assemble, startup, run until shutdown; rethrows a reaction's exception
//
// Assembly errors are spate::reactor::assembly_error exceptions naming the reactors, ports
// and reactions involved; nothing runs after a failed assembly.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "spate/reactor/reactor.hpp"
#include "spate/reactor/tag.hpp"

namespace spate {
class runtime;
}

namespace spate::reactor {

namespace detail {
class reaction_scheduler;
class assembler;
}  // namespace detail

enum class scheduling_mode {
  /// The LF paper's scheduler (Sect. 4.3): the reactions of a tag run level by level, with a
  /// barrier between levels.
  levels,
  /// A reaction starts as soon as the reactions it depends on at this tag have finished (or
  /// are known not to run), across levels. Same results, no barrier.
  precise,
};

/// How a program runs (see the top of this file).
struct environment_options {
  /// How reactions are scheduled.
  scheduling_mode mode = scheduling_mode::precise;
  /// Do not wait for physical time: tags follow one another as fast as reactions run.
  bool fast = false;
  /// Shut down at start + timeout (the shutdown tag is (start + timeout, 0)).
  std::optional<duration> timeout;
  /// Wait for events when the queue is empty instead of shutting down. Default: true when
  /// the program has physical actions or physical connections.
  std::optional<bool> keep_alive;
  /// Record reaction start/stop per worker and tag advances (trace_json()).
  bool trace = false;
};

class assembly_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Runs one reactor program on a runtime (see the top of this file).
class environment {
 public:
  /// A program on `rt`'s pool.
  explicit environment(spate::runtime& rt, environment_options options = {});
  /// Stops a running program (request_stop) and waits for its shutdown tag.
  ~environment();
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

  /// Makes a top-level reactor R named `name` from `args`.
  template <class R, class... Args>
  requires std::is_base_of_v<reactor, R> R& make_top(std::string name, Args&&... args) {
    check_not_assembled("make_top");
    auto r =
        std::make_unique<R>(reactor::context{*this, std::move(name)}, std::forward<Args>(args)...);
    R& result = *r;
    tops_.push_back(std::move(r));
    return result;
  }

  /// Builds the dependency graph and checks it; throws assembly_error. Idempotent.
  void assemble();
  /// assemble(), then runs the startup tag and what follows on the runtime's pool.
  void start();
  /// Blocks until the shutdown tag has run; rethrows the first exception a reaction threw.
  /// Do not call from a worker of the runtime.
  void wait();
  /// As wait(), for at most `timeout`; false when the program still runs.
  bool wait_for(duration timeout);
  /// start(), then wait().
  void run() {
    start();
    wait();
  }
  /// Shutdown at the next microstep of the current tag. Any thread; idempotent.
  void request_stop();
  /// True once the shutdown tag has run.
  bool is_finished() const;

  /// The tag being processed (diagnostics).
  tag current_tag() const noexcept;
  /// The program's start time (its first tag).
  time_point start_time() const noexcept;
  /// The options it runs with.
  const environment_options& options() const noexcept { return options_; }
  /// The runtime it runs on.
  spate::runtime& runtime() const noexcept { return *runtime_; }

  /// After assembly: the program's reactions (now, with mutations) and levels.
  std::size_t reaction_count() const;
  /// Reaction levels after assembly.
  std::size_t level_count() const;
  /// Mutations rejected so far (each also reported through the runtime's error reporter).
  std::size_t rejected_mutations() const;
  /// Progress counters, readable from any thread while the program runs (metrics).
  std::uint64_t tags_completed() const noexcept;
  /// Reactions run so far.
  std::uint64_t reactions_executed() const noexcept;
  /// Chrome trace-event JSON of the run (open in Perfetto or chrome://tracing); empty
  /// traceEvents when options().trace is false.
  std::string trace_json() const;
  /// Writes trace_json() to `path`.
  void write_trace(const std::string& path) const;

 private:
  friend class reactor;
  friend class action_base;
  friend class reaction;
  detail::reaction_scheduler* scheduler() const noexcept { return scheduler_.get(); }
  void check_not_assembled(const char* what) const;

  spate::runtime* runtime_;
  environment_options options_;
  std::vector<std::unique_ptr<reactor>> tops_;
  std::unique_ptr<detail::reaction_scheduler> scheduler_;
  std::size_t shutdown_step_ = 0;
};

}  // namespace spate::reactor
