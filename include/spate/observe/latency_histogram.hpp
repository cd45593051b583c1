#pragma once
// A latency histogram that any thread may record into without a lock: fixed bucket bounds
// from 1 µs to ~17 s, doubling (Prometheus' cumulative "le" buckets are built from these
// when it is exported, observe/metrics_registry.hpp).
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace spate::observe {

/// Latencies counted in doubling buckets, lock-free.
class latency_histogram {
 public:
  /// Upper bounds 1 µs, 2 µs, 4 µs, ... 2^24 µs (~16.8 s); slower samples land in +Inf.
  static constexpr std::size_t bucket_count = 25;

  /// Threading: any thread, concurrently with other record() calls and with readers.
  void record(std::chrono::nanoseconds latency) noexcept {
    const auto micros =
        static_cast<std::uint64_t>(latency.count() < 0 ? 0 : latency.count()) / 1000;
    /// Bucket i holds (2^(i-1), 2^i] µs; 0 and 1 µs go to bucket 0.
    const std::size_t bucket =
        micros <= 1 ? 0 : static_cast<std::size_t>(std::bit_width(micros - 1));
    counts_[bucket < bucket_count ? bucket : bucket_count].fetch_add(1, std::memory_order_relaxed);
    sum_ns_.fetch_add(static_cast<std::uint64_t>(latency.count() < 0 ? 0 : latency.count()),
                      std::memory_order_relaxed);
  }

  /// The upper bound of bucket i, in seconds.
  static double upper_bound_seconds(std::size_t i) noexcept {
    return static_cast<double>(std::uint64_t{1} << i) * 1e-6;
  }
  /// Samples in bucket i (not cumulative); i == bucket_count is the overflow (+Inf) bucket.
  std::uint64_t count_in(std::size_t i) const noexcept {
    return counts_[i].load(std::memory_order_relaxed);
  }
  /// Samples recorded.
  std::uint64_t count() const noexcept {
    std::uint64_t n = 0;
    for (const auto& c : counts_) n += c.load(std::memory_order_relaxed);
    return n;
  }
  /// Their sum, in seconds.
  double sum_seconds() const noexcept {
    return static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) * 1e-9;
  }

 private:
  std::array<std::atomic<std::uint64_t>, bucket_count + 1> counts_{};
  std::atomic<std::uint64_t> sum_ns_{0};
};

}  // namespace spate::observe
