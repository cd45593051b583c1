#pragma once
// The time side of a time pattern's emitter (time windows, sessions, deduplication): each
// tuple's stamp — what its time function returns (a time, or a partitioned_time), or its
// arrival on the emitter's clock in processing time — and the watermark that the stamps make
// (detail/watermark_tracker.hpp). The emitter's thread only.
#include <chrono>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "spate/window/detail/arrival_time.hpp"
#include "spate/window/detail/watermark_tracker.hpp"
#include "spate/window/event_time.hpp"
#include "spate/window/late_output.hpp"
#include "spate/window/pattern_options.hpp"

namespace spate::window::detail {

// A time pattern's options, checked when the pattern is built rather than when its graph
// starts: the late output's tuple type, the partition options' ranges.
template <class T>
void check_time_options(const pattern_options& options, const char* pattern) {
  (void)late_output_for<T>(options.late, pattern);
  partitioned_watermark::check(options);
}

template <class T, class TimeFn>
class emitter_time {
  using clock = std::chrono::steady_clock;
  using tracker = watermark_tracker<T, TimeFn>;

 public:
  static constexpr bool processing_time = is_processing_time<TimeFn>;
  /// What a checkpoint keeps of the watermark.
  using kept = typename tracker::kept;

  emitter_time(TimeFn time, std::uint64_t lateness, const pattern_options& options)
      : time_(std::move(time)), watermark_(lateness, options) {}

  // When the emitter starts: the processing-time origin, the partitions' idle clocks.
  void start() {
    origin_ = clock::now();
    watermark_.start();
  }
  // Processing time: how often the emitter's timer ticks.
  std::chrono::nanoseconds tick() const
    requires processing_time
  {
    return time_.tick;
  }
  // Nanoseconds since start().
  std::uint64_t now() const { return std::uint64_t((clock::now() - origin_).count()); }
  // The tuple's stamp: an integer time, or a partitioned_time.
  auto stamp(const T& tuple) const {
    if constexpr (processing_time)
      return now();
    else if constexpr (std::is_same_v<tracker, partitioned_watermark>)
      return partitioned_time(time_(tuple));
    else
      return std::uint64_t(time_(tuple));
  }
  template <class Stamp>
  static std::uint64_t time_of(const Stamp& stamp) noexcept {
    return tracker::time_of(stamp);
  }
  // A tuple with this stamp was sent on: whether the watermark moved.
  template <class Stamp>
  bool observe(const Stamp& stamp) {
    return watermark_.observe(stamp);
  }
  std::uint64_t watermark() const noexcept { return watermark_.watermark(); }
  kept snapshot() const { return watermark_.snapshot(); }
  void restore(kept k) { watermark_.restore(std::move(k)); }

 private:
  TimeFn time_;
  tracker watermark_;
  clock::time_point origin_{};
};

}  // namespace spate::window::detail
