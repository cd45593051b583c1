#pragma once
// Runs a reactor program's tags on the shared worker pool (LF paper, Sect. 4.3, and beyond).
//
// # One tag
//
// At the start of a tag the *advancer* (the one thread allowed to move time, see below)
// takes the tag's events from the queue and delivers them: actions, timers and delayed
// inputs become present and mark the reactions they trigger. In a *cone tag* it computes
// from those seed reactions the tag's *cone*: every reaction reachable from a seed in the
// dependency graph. Only cone reactions can run at this tag, so nothing else is looked at.
// (A *sparse tag*, below, looks only at the reactions actually triggered.)
//
// - precise mode: each cone reaction gets a counter of its predecessors in the cone. A
//   reaction whose counter reaches zero is *ready*: it runs when triggered and is skipped
//   when not (then nothing upstream set its triggers, and nothing will), and either way its
//   completion decrements its successors. So a reaction starts as soon as the reactions it
//   depends on at this tag are done, whatever their levels.
// - levels mode (the paper's): the triggered reactions of one level run in parallel, and the
//   last to finish starts the next level with a triggered reaction (a sparse tag, below:
//   levels mode computes no cone).
//
// # Sparse tags
//
// A cone can be far larger than what runs in it: when one trigger reaches a whole tree but
// each tag runs one path through it (uct, facloc), walking the cone costs time in proportion
// to the program. A *sparse* tag (reactor-cpp's scheduler) looks only at triggered
// reactions: the seeds go into per-level buckets; the lowest non-empty level's reactions run
// in parallel; the last of them to finish collects the reactions its level triggered (the
// readers of the ports each of them set, `set_ports_`), buckets them by level (a reaction's
// readers are at higher levels) and starts the next non-empty level. Its cost is in
// proportion to the reactions triggered and the readers of the ports they set. A level goes
// out in at most `level_chunks_` chunks of consecutive reactions (4 per worker; 1 on one
// worker), each run in order by one thread, so that a level of many small reactions costs a
// few tasks instead of one each; the level counter counts chunks, and a chunk's last
// reaction's decrement publishes the whole chunk's writes.
//
// Levels mode always runs sparse tags. Precise mode runs one when the options ask for it,
// or (automatic) from what the last tags with the same first seed cost: a cone tag walks the
// cone's reactions and their edges (the *cone work*), a sparse tag the reactions run and the
// readers of the ports they set (the *sparse work*, also counted at a cone tag). A tag is
// sparse when the last sparse work is under 1/sparse_ratio of the last cone work, and that
// is at least sparse_min_work; `seed_stats_` keeps both, keyed by the first seed (a tag's
// other seeds usually come with it). A first seed never measured makes the tag a cone tag,
// which measures it; the cone work may be stale after mutations. That costs time, never a
// different result: both kinds of tag respect every dependency, and the reactions of one
// level never depend on each other. (A sparse tag gives up precise mode's overlap across
// levels; a reaction may start later in physical time, so a deadline is the one thing that
// can come out differently, as it can on a busier machine.)
//
// The thread that completes a ready reaction runs one newly ready reaction itself (a chain
// of reactions stays on one worker, cache-hot) and hands the others to the pool as tasks.
// The thread that completes the tag's last reaction ends the tag: it clears the ports and
// actions, merges the events the reactions staged (in reaction order, so spacing and
// same-tag replacement are deterministic) and becomes the advancer for the next tag.
//
// # Who may advance time (the advancer token)
//
// `phase_` (under `mutex_`) says who holds the token:
//   running_tag   — a thread is running a tag or about to begin one; only it advances.
//   waiting_timer — nobody: the next tag is in the future; a runtime timer is armed for it
//                   (`wake_generation_` identifies the live timer).
//   waiting_event — nobody: the queue is empty and the program is kept alive.
//   finished      — the shutdown tag has run.
// Leaving a waiting phase (a timer fires with the live generation, a physical action or a
// stop request arrives) sets running_tag and schedules the starter task, under the lock, so
// exactly one thread gets the token. Waiting costs no CPU: the workers park, and the
// runtime's timers wake one at the deadline. The lock is the whole handshake: every
// transition and every queue access happen under it, so no wake-up can be lost between a
// waiter's "nothing to do" and an event's arrival.
//
// # Memory ordering within a tag
//
// Per-tag fields of reactions (cone stamp, counters, triggered flags) are written by the
// advancer before it hands out the first ready reaction (pool scheduling publishes them). A
// reaction's writes (port values, triggered flags of readers) happen before its completion's
// acq_rel decrement of each successor's counter, and a successor runs only after the
// decrement that brought its counter to zero: every write it may read is visible. In levels
// mode the acq_rel level counter plays that part; in a sparse tag it also publishes the
// level's `set_ports_` to the thread that collects them.
//
// # Files
//
// reaction_scheduler.cpp (starting, stopping, events from outside, advancing time, running
// reactions, ending a tag), reaction_cone.cpp (a tag's cone), reaction_failures.cpp (a
// reaction that throws), reaction_scheduler_mutations.cpp (applying mutations at a tag's end).
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "spate/exec/task.hpp"
#include "spate/exec/timer_service.hpp"
#include "spate/platform/export.hpp"
#include "spate/reactor/action.hpp"
#include "spate/reactor/connection.hpp"
#include "spate/reactor/detail/event_queue.hpp"
#include "spate/reactor/environment.hpp"
#include "spate/reactor/mutation.hpp"
#include "spate/reactor/reaction.hpp"
#include "spate/reactor/trace.hpp"

namespace spate {
class runtime;
}

namespace spate::reactor::detail {

struct SPATE_API program {
  std::vector<reactor*> tops;
  // By index: the program's total order. A reaction a mutation removes leaves a null here
  // only until the end of that tag's mutations (reaction_scheduler::close_removed_slots_locked).
  std::vector<reaction*> reactions;
  std::vector<action_base*> startup_triggers, shutdown_triggers;
  std::vector<timer*> timers;
  std::vector<std::unique_ptr<delayed_connection>> delayed_connections;
  bool has_physical_inputs = false;
  std::size_t level_count = 0;
};

class SPATE_API reaction_scheduler {
 public:
  reaction_scheduler(spate::runtime& rt, const environment_options& options, program prog);
  ~reaction_scheduler();  // waits for threads still returning from this program's tasks

  void start();
  // Throw reaction_error when a reaction failed (environment.hpp).
  void wait();
  bool wait_for(duration timeout);
  // For the environment's destructor and the runtime's shutdown: waits, and reports a failure
  // nobody has been told of through the runtime's error reporter instead of throwing it.
  void wait_and_report();
  void request_stop();
  bool is_started() const;
  // Any thread, without the lock (the error reporter and removed reactors' destructors run
  // under it and may ask). Written under the lock at the end of each tag's mutations.
  std::size_t rejected_mutations() const noexcept {
    return rejected_mutations_.load(std::memory_order_relaxed);
  }
  // The live program's reactions, and its levels (a high-water mark: removals do not lower
  // it).
  std::size_t reaction_count() const noexcept {
    return reaction_count_.load(std::memory_order_relaxed);
  }
  std::size_t level_count() const noexcept { return level_count_.load(std::memory_order_relaxed); }
  // Tags whose reactions have all run, and reactions run in them (any thread).
  std::uint64_t tags_completed() const noexcept {
    return tags_completed_.load(std::memory_order_relaxed);
  }
  std::uint64_t reactions_executed() const noexcept {
    return reactions_executed_.load(std::memory_order_relaxed);
  }
  std::uint64_t sparse_tags_completed() const noexcept {
    return sparse_tags_completed_.load(std::memory_order_relaxed);
  }
  bool is_finished() const;

  // The tag being run; for reactions (written before they start).
  tag current_tag() const noexcept { return current_; }
  time_point start_time() const noexcept { return start_time_; }
  const trace_recorder& trace() const noexcept { return trace_; }

  // Any thread.
  void schedule_physical(action_base& action, erased_value value, duration delay);
  // A reaction task's resume: runs `first` and what becomes ready after it.
  void run_from(reaction* first, std::size_t budget);

 private:
  enum class phase { not_started, running_tag, waiting_timer, waiting_event, finished };
  class starter final : public task {
   public:
    explicit starter(reaction_scheduler& s) : owner_(&s) {}
    resume_result resume(std::size_t budget) override;

   private:
    reaction_scheduler* owner_;
  };

  // Holding the token; each returns the next reaction to run on this thread, or null.
  reaction* advance(std::unique_lock<std::mutex>& lock);
  reaction* begin_tag(const tag& t, bool is_stop_tag, std::unique_lock<std::mutex>& lock);
  const std::vector<reaction*>* settle_cone();  // reaction_cone.cpp
  void compute_cone();
  void execute(reaction* r);
  reaction* complete_precise(reaction* r, std::size_t& unsettled);
  reaction* complete_level(reaction* r);
  reaction* start_next_level();
  bool prefers_sparse_tag() const;
  void add_to_level(reaction* r);
  void learn_from_tag(std::uint64_t ran, std::uint64_t readers);
  reaction* end_tag();
  void hand_out(reaction* r, reaction*& keep);
  static void deliver_target(event_target* target, erased_value value);
  static void clear_target(event_target* target) noexcept;

  // Under mutex_.
  void place_locked(event_target* target, action_base* action, tag at, erased_value value);
  void set_stop_locked(const tag& at);
  tag physical_tag_locked(time_point when);
  void wake_locked(const tag& at);
  void finish_locked();
  void on_timer(std::uint64_t generation);
  // Mutations (reaction_scheduler_mutations.cpp).
  void apply_mutations_locked();
  void apply_mutation_locked(pending_mutation& m);
  void close_removed_slots_locked();
  void drop_mutation(reaction* r);
  static void forget_created(pending_mutation& m);

  // Failures (reaction_failures.cpp; environment.hpp, "When a reaction throws").
  struct failure {
    std::size_t index;  // the reaction's, for the order within a tag
    std::string name;   // fully qualified (the reaction may be removed before the report)
    bool in_deadline_handler;
    std::exception_ptr error;
  };
  void record_failure(reaction* r, bool in_deadline_handler);
  void settle_failures();  // at the end of a tag, before the lock
  std::string failure_message_locked() const;
  [[noreturn]] void throw_failure_locked(std::unique_lock<std::mutex>& lock);
  void report(const std::string& text) noexcept;

  spate::runtime* runtime_;
  environment_options options_;
  program program_;
  bool keep_alive_;
  starter starter_{*this};
  trace_recorder trace_;
  /// With tracing on: every reaction's fully qualified name, by index in trace_name_of_. The
  /// names live in a deque that only grows, so the trace's pointers to them stay valid as
  /// mutations add, remove and renumber reactions. Empty otherwise: a name per reaction is
  /// ~100 bytes, at a million reactions a tenth of a gigabyte.
  std::deque<std::string> trace_names_;
  std::vector<const std::string*> trace_name_of_;
  void name_new_reactions_for_trace();

  mutable std::mutex mutex_;
  std::condition_variable finished_cv_;
  phase phase_ = phase::not_started;
  event_queue queue_;
  std::uint64_t wake_generation_ = 0;
  timer_service::timer_id timer_ = 0;
  tag waiting_for_{};
  std::optional<tag> stop_tag_;
  tag last_tag_{};       // the tag running or last run
  tag last_physical_{};  // the latest tag given to a physical event
  // The first failure in logical order and how many came after it (each reported).
  struct first_failure {
    std::string text;  // "reaction '...' failed at tag (...): what()"
    std::string reaction_name;
    tag at;
    std::exception_ptr error;
  };
  std::optional<first_failure> first_failure_;
  std::size_t later_failures_ = 0;
  std::string next_failure_;           // the second one's text, for the first one's message
  bool failure_delivered_ = false;     // wait() has thrown it
  std::vector<failure> tag_failures_;  // this tag's, in any order (several workers may fail)

  // The running tag (advancer-owned).
  tag current_{};
  time_point start_time_{};
  std::uint64_t generation_ = 0;
  bool is_stop_tag_ = false;
  std::vector<reaction*> cone_;
  const std::vector<reaction*>* cone_view_ = &cone_;  // this tag's cone (cone_ or a cache)
  // Per seed reaction, the cone and initial counters of a tag that only it seeds. Kept for
  // programs of up to max_cached_cone reactions (the caches are quadratic in the worst case).
  struct cone_cache {
    std::uint64_t graph_generation = 0;  // valid while it equals graph_generation_
    std::vector<reaction*> members;
    std::vector<std::uint32_t> pending;
    std::vector<reaction*> ready;
    std::size_t edges = 0;
  };
  static constexpr std::size_t max_cached_cone = 4096;
  void fit_cone_caches();
  std::vector<cone_cache> solo_cones_;
  std::uint64_t graph_generation_ = 1;  // bumped by every applied mutation
  std::vector<reaction*> mutated_by_;
  std::set<reactor*> removed_this_tag_;
  std::size_t first_removed_slot_ = SIZE_MAX;  // the lowest index removed this tag
  std::vector<std::unique_ptr<reactor>> graveyard_;
  std::atomic<std::size_t> rejected_mutations_{0};
  std::atomic<std::size_t> reaction_count_{0}, level_count_{0};  // program_'s, see above
  void publish_counts() noexcept;  // after assembly and after each tag's mutations
  std::vector<event> delivered_events_;
  std::vector<event_target*> delivered_;
  std::vector<reaction*> staged_by_;
  std::vector<reaction*> ready_;
  std::atomic<std::size_t> remaining_{0};
  std::atomic<std::uint64_t> tags_completed_{0};
  std::atomic<std::uint64_t> reactions_executed_{0};
  std::atomic<std::uint64_t> sparse_tags_completed_{0};
  // Sparse tags ("Sparse tags" above).
  bool sparse_tag_ = false;
  std::vector<std::vector<reaction*>> by_level_;     // triggered, not yet started
  std::vector<std::size_t> pending_levels_;          // min-heap of the non-empty ones
  std::vector<reaction*>* running_level_ = nullptr;  // its bucket, until collected
  std::vector<reaction*> visited_;                   // every reaction bucketed at this tag
  std::size_t level_chunks_ = 1;  // a level's reactions go out in at most this many tasks
  std::atomic<std::size_t> level_remaining_{0};
  struct seed_stats {
    std::uint32_t cone_work = 0;    // cone reactions + their edges, last cone tag; 0: unknown
    std::uint32_t sparse_work = 0;  // reactions run + readers of the ports they set, last tag
  };
  static constexpr std::size_t sparse_min_work = 64;
  static constexpr std::size_t sparse_ratio = 2;
  std::vector<seed_stats> seed_stats_;  // by the index of a tag's first seed
  std::size_t cone_edges_ = 0;          // this cone tag's: its reactions' successor edges
  reaction* first_seed_ = nullptr;

  std::atomic<int> threads_inside_{0};
  // What a runtime timer holds: it outlives the reaction scheduler, which unhooks itself on
  // destruction, so a timer firing late finds nobody instead of freed memory.
  struct timer_link {
    std::mutex mutex;
    reaction_scheduler* owner = nullptr;
    void fire(std::uint64_t generation);
  };
  std::shared_ptr<timer_link> timer_link_;
};

}  // namespace spate::reactor::detail
