#pragma once
// The watermark of an event-time pattern's emitter (time windows, sessions), from the times
// its time function returns (window/event_time.hpp): one bound over the whole stream, or one
// per partition with idleness. Both are owned by the emitter and used on its thread only.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/window/detail/arrival_time.hpp"
#include "spate/window/event_time.hpp"
#include "spate/window/pattern_options.hpp"

namespace spate::window::detail {

// Newest time seen − lateness.
class stream_watermark {
 public:
  // The newest time seen: all a checkpoint needs.
  using kept = std::uint64_t;

  stream_watermark(std::uint64_t lateness, const pattern_options&) : lateness_(lateness) {}
  void start() noexcept {}
  // A tuple at `time`: whether the watermark moved.
  bool observe(std::uint64_t time) noexcept {
    if (time <= newest_) return false;
    newest_ = time;
    return true;
  }
  std::uint64_t watermark() const noexcept { return newest_ > lateness_ ? newest_ - lateness_ : 0; }
  static std::uint64_t time_of(std::uint64_t time) noexcept { return time; }
  kept snapshot() const noexcept { return newest_; }
  void restore(kept newest) noexcept { newest_ = newest; }

 private:
  std::uint64_t lateness_;
  std::uint64_t newest_ = 0;
};

// The least over the partitions that are not idle of (newest time of the partition −
// lateness), never moving back.
//
// Cost per tuple: a compare, and the least recomputed over the partitions (a scan of their
// slots) only when the tuple's partition may have held it — it was the least, unseen or
// idle. With idle_after set, one clock read per tuple, and a scan for newly idle partitions
// at most every min(idle_after, 1 ms).
class partitioned_watermark {
  using clock = std::chrono::steady_clock;

 public:
  // The watermark and, per partition, whether it was seen and its newest time. Idleness is
  // not kept: a restored run starts with every partition active.
  using kept = std::pair<std::uint64_t, std::vector<std::pair<bool, std::uint64_t>>>;

  partitioned_watermark(std::uint64_t lateness, const pattern_options& options)
      : lateness_(lateness),
        idle_after_(options.idle_after),
        check_every_(std::min<clock::duration>(
            std::chrono::duration_cast<clock::duration>(options.idle_after),
            std::chrono::milliseconds(1))),
        parts_(options.partitions) {
    check(options);
    for (part& p : parts_) p.expected = true;
  }
  // Throws std::invalid_argument for options no tracker takes (the patterns check when they
  // are built).
  static void check(const pattern_options& options) {
    if (options.partitions > max_partitions)
      throw std::invalid_argument("pattern_options: partitions " +
                                  std::to_string(options.partitions) + " exceeds " +
                                  std::to_string(max_partitions));
    if (options.idle_after < std::chrono::nanoseconds::zero())
      throw std::invalid_argument("pattern_options: idle_after must be >= 0");
  }
  // When the emitter starts: expected partitions are idle from here if they never send.
  void start() {
    const auto now = clock::now();
    for (part& p : parts_) p.last_seen = now;
    next_check_ = now + check_every_;
  }
  bool observe(partitioned_time t) {
    if (t.partition >= max_partitions)
      throw std::out_of_range("window pattern: partition " + std::to_string(t.partition) +
                              " of a tuple at time " + std::to_string(t.time) +
                              " (partitions count from 0, below " + std::to_string(max_partitions) +
                              ")");
    if (t.partition >= parts_.size()) parts_.resize(std::size_t(t.partition) + 1);
    part& p = parts_[t.partition];
    bool may_move = false;
    if (!p.seen || p.idle) {
      may_move = true;  // it joins (a new partition may hold the watermark where it is)
    } else if (t.time > p.newest) {
      may_move = p.newest == least_;
    }
    if (!p.seen || t.time > p.newest) p.newest = t.time;
    p.seen = true;
    p.idle = false;
    if (idle_after_ > std::chrono::nanoseconds::zero()) {
      const auto now = clock::now();
      p.last_seen = now;
      if (now >= next_check_) {
        next_check_ = now + check_every_;
        for (part& q : parts_)
          if (!q.idle && now - q.last_seen >= idle_after_) {
            q.idle = true;
            may_move = true;
          }
      }
    }
    return may_move && recompute();
  }
  std::uint64_t watermark() const noexcept { return watermark_; }
  static std::uint64_t time_of(partitioned_time t) noexcept { return t.time; }
  kept snapshot() const {
    kept k{watermark_, {}};
    for (const part& p : parts_) k.second.emplace_back(p.seen, p.newest);
    return k;
  }
  void restore(kept k) {
    watermark_ = k.first;
    parts_.resize(std::max(parts_.size(), k.second.size()));
    for (std::size_t i = 0; i < k.second.size(); ++i)
      std::tie(parts_[i].seen, parts_[i].newest) = k.second[i];
    recompute();
  }

 private:
  struct part {
    bool seen = false;
    // Named by pattern_options::partitions: holds the watermark at 0 until it sends (or is
    // idle). A slot only made for the numbers below a higher partition's is not, and counts
    // from its first tuple.
    bool expected = false;
    bool idle = false;
    std::uint64_t newest = 0;
    clock::time_point last_seen{};
  };
  // Whether the watermark moved.
  bool recompute() {
    bool any = false;
    std::uint64_t least = 0;
    for (const part& p : parts_) {
      if (p.idle || !(p.seen || p.expected)) continue;
      const std::uint64_t newest = p.seen ? p.newest : 0;
      least = any ? std::min(least, newest) : newest;
      any = true;
    }
    if (!any) return false;  // every partition idle: time stands still
    least_ = least;
    const std::uint64_t candidate = least > lateness_ ? least - lateness_ : 0;
    if (candidate <= watermark_) return false;
    watermark_ = candidate;
    return true;
  }

  std::uint64_t lateness_;
  std::chrono::nanoseconds idle_after_;
  clock::duration check_every_;
  clock::time_point next_check_{};
  std::vector<part> parts_;
  std::uint64_t least_ = 0;      // the least newest time over the active partitions
  std::uint64_t watermark_ = 0;  // never moves back
};

// The tracker for a pattern over T with this time function.
template <class T, class TimeFn>
struct watermark_tracker_of {
  using type = stream_watermark;
};
template <class T, class TimeFn>
  requires(
      !is_processing_time<TimeFn> &&
      std::is_same_v<std::decay_t<std::invoke_result_t<const TimeFn&, const T&>>, partitioned_time>)
struct watermark_tracker_of<T, TimeFn> {
  using type = partitioned_watermark;
};
template <class T, class TimeFn>
using watermark_tracker = typename watermark_tracker_of<T, TimeFn>::type;

}  // namespace spate::window::detail
