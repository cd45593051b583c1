#pragma once
// Deduplication within a time span, as a flow stage: the first tuple of each id passes at
// once, and repeats of it within `within` of a tuple of the id that passed are left out
// (counted in window_report::duplicate_tuples; detail/dedup_keeper.hpp has the rule).
//
//   window::deduplicate<bid>(window::dedup_window{.within = 60'000, .lateness = 1'000},
//                            [](const bid& b) { return b.request_id; },  // the id
//                            [](const bid& b) { return b.time_ms; },     // event time
//                            2, {.report = report})
//
// Event time: a passed tuple's time is remembered while the watermark (time_window.hpp; per
// partition with window::partitioned_time, event_time.hpp) has not passed it + within, so
// memory holds the ids of one span, not of the whole stream. A tuple
// behind the watermark is late — a repeat of an id already forgotten cannot be told from a
// first — so it is counted in late_tuples and dropped_tuples and left out. Processing time
// (processing_time_dedup_window): a tuple's time is its arrival; nothing is late.
//
// The pattern is an emitter and a farm of `workers` workers, each keeping the ids whose
// hash routes to it. Tuples pass unchanged (moved, never copied), per id in arrival order;
// the workers' outputs interleave. For any worker count, exactly the tuples of a sequential
// run pass (the emitter stamps each tuple with the watermark before it: detail/
// keyed_time_emitter.hpp).
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "spate/window/detail/arrival_time.hpp"
#include "spate/window/detail/dedup_stages.hpp"
#include "spate/window/pattern_options.hpp"

namespace spate::window {

/// Event-time deduplication: a repeat within `within` of the tuple that passed is a
/// duplicate.
struct dedup_window {
  /// The span, in the tuples' time unit: a repeat at most this far from the passed tuple is
  /// left out.
  std::uint64_t within = 0;
  /// How far behind the newest time a tuple may arrive and still be judged.
  std::uint64_t lateness = 0;

  /// Throws std::invalid_argument naming the field.
  void check() const {
    if (within == 0) throw std::invalid_argument("dedup_window: within must be > 0");
  }
};

/// Processing-time deduplication: a repeat arriving within `within` of the passed tuple.
struct processing_time_dedup_window {
  /// The span.
  std::chrono::nanoseconds within{0};

  /// Throws std::invalid_argument naming the field.
  void check() const {
    if (within <= std::chrono::nanoseconds::zero())
      throw std::invalid_argument("processing_time_dedup_window: within must be > 0");
  }
};

/// Passes the first tuple of each `id(tuple)` and leaves out its repeats within the span.
template <class T, class IdFn, class TimeFn>
auto deduplicate(dedup_window spec, IdFn id, TimeFn time, std::size_t workers,
                 pattern_options options = {}) {
  spec.check();
  return detail::dedup_pattern<T>(spec.within, spec.lateness, std::move(id), std::move(time),
                                  workers, std::move(options));
}

/// The same over arrival times (the emitter's timer ticks every quarter of the span, at most
/// once a millisecond unless the span is shorter, to forget ids).
template <class T, class IdFn>
auto deduplicate(processing_time_dedup_window spec, IdFn id, std::size_t workers,
                 pattern_options options = {}) {
  spec.check();
  return detail::dedup_pattern<T>(std::uint64_t(spec.within.count()), 0, std::move(id),
                                  detail::arrival_time{detail::processing_tick(spec.within)},
                                  workers, std::move(options));
}

}  // namespace spate::window
