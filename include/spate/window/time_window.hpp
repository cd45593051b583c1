#pragma once
// Time-based windows over each key's stream, in event time: window w of a key holds that
// key's tuples whose time t (given by the user's time function, in any integer unit) lies in
// [w · slide, w · slide + length).
//
// Progress is a watermark, "no tuple older than this is still expected": the emitter keeps
// the largest time seen and sets watermark = largest − lateness (bounded out-of-orderness:
// a tuple may arrive up to `lateness` behind the newest one and still count). A window fires
// once the watermark reaches its end. A tuple that arrives after some of its windows fired
// is *late* for those: it joins the windows still open, and the pattern counts it in
// window_report::late_tuples — pass a shared report as pattern_options::report
// (pattern_options.hpp) to read it; without one the pattern logs the counts at the end — so
// it is never dropped silently.
#include <chrono>
#include <cstdint>
#include <numeric>
#include <stdexcept>

#include "spate/window/pattern_options.hpp"  // window_report, for users of this header alone

namespace spate::window {

/// An event-time window: window w of a key holds its tuples whose time lies in
/// [w * slide, w * slide + length), in the tuples' own time unit.
struct time_window {
  /// Time a window spans.
  std::uint64_t length = 0;
  /// Time between the starts of consecutive windows.
  std::uint64_t slide = 0;
  std::uint64_t lateness = 0;  ///< how far behind the newest time a tuple is still on time

  /// Throws std::invalid_argument naming the field.
  void check() const {
    if (length == 0) throw std::invalid_argument("time_window: length must be > 0");
    if (slide == 0) throw std::invalid_argument("time_window: slide must be > 0");
  }
  /// The first time in `window`.
  std::uint64_t start(std::uint64_t window) const noexcept { return window * slide; }
  /// The time after its last.
  std::uint64_t end(std::uint64_t window) const noexcept { return window * slide + length; }
  /// The last window that holds time t.
  std::uint64_t last_holding(std::uint64_t t) const noexcept { return t / slide; }
  /// The first window that holds time t.
  std::uint64_t first_holding(std::uint64_t t) const noexcept {
    return t < length ? 0 : (t - length) / slide + 1;
  }
  /// How many windows have fired at this watermark: windows 0 .. fired(wm) - 1, the ones whose
  /// end is at or before it.
  std::uint64_t fired(std::uint64_t watermark) const noexcept {
    return watermark < length ? 0 : (watermark - length) / slide + 1;
  }
};

/// Time-based windows in processing time: a tuple's time is when the pattern's emitter
/// receives it, and a window fires when the runtime's clock passes its end — input or not (a
/// timer wakes the emitter every gcd(length, slide)). Window w of a key holds the tuples that
/// arrived in [origin + w · slide, origin + w · slide + length), the origin being the moment
/// the emitter started. Tuples are never late. Results are not repeatable run to run (they
/// depend on when tuples arrive); use event time for that.
struct processing_time_window {
  /// Time a window spans.
  std::chrono::nanoseconds length{0};
  /// Time between the starts of consecutive windows.
  std::chrono::nanoseconds slide{0};

  /// Throws std::invalid_argument naming the field.
  void check() const {
    if (length <= std::chrono::nanoseconds::zero())
      throw std::invalid_argument("processing_time_window: length must be > 0");
    if (slide <= std::chrono::nanoseconds::zero())
      throw std::invalid_argument("processing_time_window: slide must be > 0");
  }
  /// The same windows over nanoseconds since the origin.
  time_window in_nanoseconds() const noexcept {
    return {std::uint64_t(length.count()), std::uint64_t(slide.count()), 0};
  }
  /// Every window ends on a multiple of this after the origin.
  std::chrono::nanoseconds tick() const noexcept {
    return std::chrono::nanoseconds{std::gcd(length.count(), slide.count())};
  }
};

}  // namespace spate::window
