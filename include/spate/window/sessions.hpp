#pragma once
// Session windows over each key's stream (semantics in session_window.hpp), as a flow stage:
//
//   window::sessions<click>(window::session_window{.gap = 30'000, .lateness = 5'000},
//                           user_of, time_of, f, 4, {.report = report})
//
// An emitter and a farm of `workers` session workers: every session of a key lives in one
// worker, chosen by the key's std::hash (Key Partitioning; Window Farming does not apply,
// as a session's extent is known only once it has ended). Each tuple is moved to its worker
// (no envelope: it has one receiver; a non-incremental function's worker keeps a copy);
// options.memory is not used. Results are session_result{key, start, end,
// value, complete, tuples}, per key in start order (keys interleave as the workers finish);
// at the end of the stream the sessions still open fire with complete == false. The window
// function is either form of window_function.hpp; an incremental one needs a merge. A
// window_report in the options counts late tuples (event time).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>

#include "spate/window/detail/arrival_time.hpp"
#include "spate/window/detail/session_stages.hpp"
#include "spate/window/pattern_options.hpp"
#include "spate/window/session_window.hpp"
#include "spate/window/window_function.hpp"

namespace spate::window {

/// Event-time sessions: `time(tuple)` gives the tuple's time (any integer unit, the one of the
/// gap and lateness), `key(tuple)` its key, `f` the function applied to each session.
template <class T, class KeyFn, class TimeFn, class F>
auto sessions(session_window spec, KeyFn key, TimeFn time, F f, std::size_t workers,
              pattern_options options = {}) {
  return detail::session_pattern<T>(spec, std::move(key), std::move(time), std::move(f), workers,
                                    options);
}

/// Processing-time sessions: a session ends once `spec.gap` has passed on the runtime's clock
/// since its key's last tuple arrived, input or not (the emitter's timer ticks every quarter
/// of the gap, but at most once a millisecond unless the gap is shorter). Results are not
/// repeatable run to run.
template <class T, class KeyFn, class F>
auto sessions(processing_time_session_window spec, KeyFn key, F f, std::size_t workers,
              pattern_options options = {}) {
  spec.check();
  return detail::session_pattern<T>(
      session_window{std::uint64_t(spec.gap.count()), 0}, std::move(key),
      detail::arrival_time{detail::processing_tick(spec.gap)}, std::move(f), workers, options);
}

}  // namespace spate::window
