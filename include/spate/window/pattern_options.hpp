#pragma once
// What a window pattern (patterns.hpp) takes beyond its window, key, function and worker
// count: where the emitter keeps its copy of each tuple, and a report to read its counts
// from. Named fields, so that asking for one does not mean spelling out the others:
//
//   auto report = std::make_shared<window::window_report>();
//   window::window_farming<reading>(spec, key, time, f, 4, {.report = report});
//   window::key_partitioning<trade>(spec, key, f, 2, {.memory = window::tuple_memory::heap});
//
// observe::watch(registry, report, name) (observe/watch.hpp) exports a report's counts.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

#include "spate/window/late_output.hpp"

namespace spate::window {

/// Where the emitter's copy of each tuple lives.
enum class tuple_memory {
  slab,  ///< envelopes from the emitter's slab pool, returned by the workers (default)
  heap,  ///< envelopes from operator new / delete (the paper's "wrap-std")
};

/// What a window pattern counts as it runs. Atomics: the pattern's emitter writes (and
/// deduplication's workers, duplicate_tuples), any thread reads. Several patterns (or runs) may
/// share one report: their counts add up.
struct window_report {
  /// Time patterns: tuples that arrived late (time windows: after at least one of their
  /// windows fired; sessions, deduplication, joins: see their headers).
  std::atomic<std::uint64_t> late_tuples{0};
  /// Time patterns: late tuples left out (time windows: late for every window that held
  /// them, so in no window; the others leave out every late tuple).
  std::atomic<std::uint64_t> dropped_tuples{0};
  /// Deduplication: repeats of an id within the span, left out (the pattern's purpose, so
  /// never logged).
  std::atomic<std::uint64_t> duplicate_tuples{0};
  /// Slabs the emitters' slab pools hold now (tuple_memory::slab; 0 with heap). A pool grows
  /// to the most tuples in flight at once and gives its slabs back when the graph's run is
  /// released: after the graph is destroyed or started again, once its last task has let go
  /// of it (on a worker, possibly just after wait() returned).
  std::atomic<std::uint64_t> pool_slabs{0};
  /// The bytes of those slabs.
  std::atomic<std::uint64_t> pool_bytes{0};
};

/// The optional arguments of key_partitioning and window_farming (patterns.hpp).
struct pattern_options {
  /// Where the emitter's tuple copies live: its slab pool, or the heap (for comparison).
  tuple_memory memory = tuple_memory::slab;
  /// Where the pattern counts late tuples and its pool's size; null: a time-window pattern
  /// logs its late-tuple counts (a warning) at the end of the stream instead.
  std::shared_ptr<window_report> report = nullptr;
  /// Event time with window::partitioned_time (event_time.hpp): a partition that has sent
  /// nothing for this long stops holding the watermark back until it sends again; zero: never.
  std::chrono::nanoseconds idle_after{0};
  /// Event time with window::partitioned_time: partitions 0 .. partitions - 1 hold the
  /// watermark back from the start, before they first send (until idle_after, if set);
  /// zero: a partition counts from its first tuple.
  std::uint32_t partitions = 0;
  /// Time patterns: where the tuples left out as late go (window::late_to<T>(f),
  /// late_output.hpp); null: nowhere (they are counted in the report either way).
  std::shared_ptr<late_output_base> late = nullptr;
};

}  // namespace spate::window
