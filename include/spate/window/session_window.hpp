#pragma once
// Session windows: a key's session is a run of its tuples with no pause longer than `gap`
// between them. Each tuple at time t spans the closed interval [t, t + gap]; intervals of one
// key that touch are one session, whose end is its newest tuple's time + gap. So sessions
// have no fixed start or length, and a tuple arriving out of order may join two sessions
// into one (they merge, window functions and all).
//
// Event time: progress is the watermark of the time windows (time_window.hpp), the largest
// time seen so far − lateness (per partition with partitioned_time: event_time.hpp). A
// session fires once the watermark has passed its end (end < watermark). A tuple whose own
// interval the watermark has passed (t + gap < watermark) is *late*: its session may have
// fired already, so it is counted in window_report::late_tuples and dropped_tuples and left
// out (or sent to pattern_options::late). A tuple that is not late never joins a session that has
// fired; one that would have bridged to it starts a session of its own (as in Flink, whose
// fired sessions are gone too).
//
// Processing time: a tuple's time is its arrival at the pattern's emitter, and sessions fire
// on the runtime's clock, input or not. No tuple is late.
#include <chrono>
#include <cstdint>
#include <stdexcept>

#include "spate/state/codec.hpp"

namespace spate::window {

/// Event-time sessions, in the tuples' own time unit.
struct session_window {
  /// The longest pause within a session: a tuple at t keeps its session open until t + gap.
  std::uint64_t gap = 0;
  /// How far behind the newest time a tuple may arrive and still count (see above).
  std::uint64_t lateness = 0;

  /// Throws std::invalid_argument naming the field.
  void check() const {
    if (gap == 0) throw std::invalid_argument("session_window: gap must be > 0");
  }
};

/// Processing-time sessions: a session ends `gap` after its last tuple arrived.
struct processing_time_session_window {
  /// The longest pause within a session.
  std::chrono::nanoseconds gap{0};

  /// Throws std::invalid_argument naming the field.
  void check() const {
    if (gap <= std::chrono::nanoseconds::zero())
      throw std::invalid_argument("processing_time_session_window: gap must be > 0");
  }
};

/// One session's result, as window::sessions emits it (per key in session order).
template <class Key, class R>
struct session_result {
  /// The key whose session this is.
  Key key;
  /// Its first tuple's time.
  std::uint64_t start;
  /// Its last tuple's time + gap (processing time: nanoseconds since the emitter started).
  std::uint64_t end;
  /// What the window function returned.
  R value;
  /// false for a session fired by the end of the stream before its gap had passed.
  bool complete;
  std::uint64_t tuples;  ///< how many tuples the session held
  /// Every field equal.
  friend bool operator==(const session_result&, const session_result&) = default;
};

}  // namespace spate::window

/// A session result's codec (state/codec.hpp), when its key and value have one.
template <class Key, class R>
  requires spate::state::encodable<Key> && spate::state::encodable<R>
struct spate::state::codec<spate::window::session_result<Key, R>> {
  /// Appends the encoding of the result, field by field.
  static void encode(const spate::window::session_result<Key, R>& r, byte_writer& out) {
    state::encode(r.key, out);
    state::encode(r.start, out);
    state::encode(r.end, out);
    state::encode(r.value, out);
    state::encode(r.complete, out);
    state::encode(r.tuples, out);
  }
  /// Reads one result; throws decode_error on corrupt or truncated input.
  static spate::window::session_result<Key, R> decode(byte_reader& in) {
    auto key = state::decode<Key>(in);
    const auto start = state::decode<std::uint64_t>(in);
    const auto end = state::decode<std::uint64_t>(in);
    auto value = state::decode<R>(in);
    const auto complete = state::decode<bool>(in);
    return {std::move(key),   start,    end,
            std::move(value), complete, state::decode<std::uint64_t>(in)};
  }
};
