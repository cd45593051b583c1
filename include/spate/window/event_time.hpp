#pragma once
// What an event-time pattern's time function may return (time windows, sessions):
//
// - an integer: the tuple's time. The watermark is the newest time seen − lateness
//   (bounded out-of-orderness over the whole stream).
// - window::partitioned_time{partition, time}: the tuple's time and the partition of the
//   input it came from (a Kafka partition, a source replica, a sensor gateway). The
//   watermark is then kept per partition — newest time of that partition − lateness — and
//   the pattern's watermark is the least of them, so a partition that lags behind the others
//   (a slower consumer, a replayed backlog) does not make their tuples late, and its own
//   tuples are not late either as long as each partition is in order within `lateness`.
//   A partition that has sent nothing for pattern_options::idle_after (processing time, on
//   the emitter's clock) stops holding the watermark back until it sends again, so one
//   quiet partition does not stall every window; 0 (the default) waits for it forever.
//   Partitions count from 0; the pattern keeps one slot per partition number up to the
//   largest seen, and refuses numbers of max_partitions or more.
#include <cstdint>

namespace spate::window {

/// A tuple's event time and the input partition it came from (see above).
struct partitioned_time {
  /// The partition: 0 .. max_partitions - 1.
  std::uint32_t partition = 0;
  /// The tuple's time, in the window's unit.
  std::uint64_t time = 0;
};

/// Partition numbers a pattern accepts (one slot each, up to the largest seen).
inline constexpr std::uint32_t max_partitions = 65536;

}  // namespace spate::window
