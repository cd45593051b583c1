#pragma once
// Message shapes shared by every implementation of the micro benchmarks.
#include <cstdint>

namespace spate_bench {

struct tuple24 {  // pipeline3's 24-byte tuple
  std::uint64_t key;
  std::uint64_t value;
  std::uint64_t timestamp;
};
static_assert(sizeof(tuple24) == 24);

struct stamp {  // latency_chain: send time on the steady clock, ns; negative: end of stream
  std::int64_t sent_ns;
};

// Dropped from latency samples: the first messages pay for cold caches and first wake-ups.
inline constexpr double latency_warmup_fraction = 0.02;

// What a sink must have summed: tuple24::value over items 0..n-1 (pipeline3, farm_chain).
inline std::uint64_t tuple24_checksum(std::uint64_t n) {
  return 3 * (n * (n - 1) / 2);
}
// The sum of uint32_t(i) over 0..n-1 (prodcons); wraps like the items do.
inline std::uint64_t word_checksum(std::uint64_t n) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < n; ++i) sum += static_cast<std::uint32_t>(i);
  return sum;
}

}  // namespace spate_bench
