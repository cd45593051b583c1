#pragma once
// The environment: one reactor program on a spate runtime. It owns the top-level reactors,
// assembles the program (dependency graph, causality check, levels) and runs it on the
// runtime's worker pool, next to whatever actors and flow graphs share that pool.
//
//   spate::runtime rt;
//   spate::reactor::environment env{rt, {.timeout = 1s}};
//   env.make_top<my_program>("main", parameters...);
//   env.run();   // assemble, startup, run until shutdown; throws reaction_error on a failure
//
// Assembly errors are spate::reactor::assembly_error exceptions naming the reactors, ports
// and reactions involved; nothing runs after a failed assembly.
//
// When a reaction throws (a body, a deadline handler, a startup or shutdown reaction, a
// reactor constructor run by a mutation), the program stops as if the reaction had called
// request_stop(): the current tag finishes (every other reaction triggered at it runs), the
// shutdown tag follows at the next microstep and its shutdown reactions run, and nothing
// after it. What the failed reaction did before it threw stands (ports it set, actions it
// scheduled), except its mutation, which is dropped whole. wait() and run() then throw a
// reaction_error naming the first failure in logical order: the earliest tag, and within a
// tag the reaction first in the program's order (level, then reactor tree), whichever worker
// got there first. Every later failure (same tag or the shutdown tag) is counted in it and
// reported through the runtime's error reporter when its tag ends, in the same order.
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "spate/platform/export.hpp"
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
  /// The LF paper's reaction scheduler (Sect. 4.3): the reactions of a tag run level by
  /// level, with a barrier between levels.
  levels,
  /// A reaction starts as soon as the reactions it depends on at this tag have finished (or
  /// are known not to run), across levels. Same results, no barrier.
  precise,
};

/// Which reactions a tag looks at (reaction_scheduler.hpp, "Sparse tags"). Values are the
/// same either way; the cost differs, and so may the physical time a reaction starts (a
/// deadline can be met in one and missed in the other).
enum class sparse_tags {
  /// Precise mode looks only at the triggered reactions when that cost less than half of
  /// walking everything reachable at the last tag with the same first trigger (a large
  /// program of which one trigger reaches everything but runs a path); levels mode always
  /// does.
  automatic,
  /// Precise mode always walks everything reachable from the tag's triggers (levels mode
  /// still looks only at triggered reactions).
  never,
  /// Only the triggered reactions, level by level, in both modes.
  always,
};

/// How a program runs (see the top of this file).
struct environment_options {
  /// How reactions are scheduled.
  scheduling_mode mode = scheduling_mode::precise;
  /// Which reactions a tag looks at.
  sparse_tags sparse = sparse_tags::automatic;
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

/// An assembly rule broken (see the top of this file).
class SPATE_API assembly_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// What environment::run(), wait() and wait_for() throw when a reaction threw (see the top of
/// this file): names the reaction and the tag, holds the original exception as nested
/// (`std::rethrow_if_nested(e)` rethrows it, so its own type can still be caught).
class SPATE_API reaction_error : public std::runtime_error, public std::nested_exception {
 public:
  /// Nests the exception being handled (construct it in a handler of the original).
  reaction_error(const std::string& what, std::string reaction_name, tag at, duration elapsed,
                 std::size_t later_failures)
      : std::runtime_error(what),
        reaction_name_(std::move(reaction_name)),
        at_(at),
        elapsed_(elapsed),
        later_failures_(later_failures) {}
  /// The failed reaction's fully qualified name ("main.sink.reaction_2").
  const std::string& reaction_name() const noexcept { return reaction_name_; }
  /// The tag it failed at.
  tag failed_at() const noexcept { return at_; }
  /// That tag's time since the program's start.
  duration elapsed() const noexcept { return elapsed_; }
  /// Failures after this one (each also reported through the runtime's error reporter).
  std::size_t later_failures() const noexcept { return later_failures_; }
  /// The exception the reaction threw.
  std::exception_ptr original() const noexcept { return nested_ptr(); }

 private:
  std::string reaction_name_;
  tag at_;
  duration elapsed_;
  std::size_t later_failures_;
};

/// Runs one reactor program on a runtime (see the top of this file).
class SPATE_API environment {
 public:
  /// A program on `rt`'s pool.
  explicit environment(spate::runtime& rt, environment_options options = {});
  /// Stops a running program (request_stop) and waits for its shutdown tag.
  ~environment();
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

  /// Makes a top-level reactor R named `name` from `args`.
  template <class R, class... Args>
    requires std::is_base_of_v<reactor, R>
  R& make_top(std::string name, Args&&... args) {
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
  /// Blocks until the shutdown tag has run; throws reaction_error when a reaction threw (see
  /// the top of this file). Do not call from a worker of the runtime.
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

  /// After assembly: the program's reactions, as mutations left them at the end of the last
  /// tag (any thread).
  std::size_t reaction_count() const;
  /// Reaction levels after assembly; mutations may raise it, removals do not lower it.
  std::size_t level_count() const;
  /// Mutations rejected so far (each also reported through the runtime's error reporter).
  std::size_t rejected_mutations() const;
  /// Progress counters, readable from any thread while the program runs (metrics).
  std::uint64_t tags_completed() const noexcept;
  /// Reactions run so far.
  std::uint64_t reactions_executed() const noexcept;
  /// Tags so far that looked only at their triggered reactions (environment_options::sparse).
  std::uint64_t sparse_tags_completed() const noexcept;
  /// Chrome trace-event JSON of the run (open in Perfetto or chrome://tracing); empty
  /// traceEvents when options().trace is false.
  std::string trace_json() const;
  /// Writes trace_json() to `path`.
  void write_trace(const std::string& path) const;

 private:
  friend class reactor;
  friend class action_base;
  friend class reaction;
  detail::reaction_scheduler* reaction_scheduler() const noexcept {
    return reaction_scheduler_.get();
  }
  void check_not_assembled(const char* what) const;

  spate::runtime* runtime_;
  environment_options options_;
  std::vector<std::unique_ptr<reactor>> tops_;
  std::unique_ptr<detail::reaction_scheduler> reaction_scheduler_;
  std::size_t shutdown_step_ = 0;
};

}  // namespace spate::reactor
