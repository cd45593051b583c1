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

}  // namespace spate_bench
