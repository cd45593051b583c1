#pragma once
// The one fence of every store-then-load handshake in spate (wake_handshake.hpp, the worker
// pool's park/wake, the flow layer's producer/consumer wake-ups).
//
// Each of those handshakes is a Dekker pair: side A stores X and then loads Y, side B stores
// Y and then loads X, and at least one side must see the other's store. That needs a
// sequentially consistent fence between each side's store and load. ThreadSanitizer does
// not model `atomic_thread_fence` (it warns, and then cannot check the handshake), so in
// TSAN builds the fence point is a seq_cst read-modify-write on one shared atomic instead.
// That is also a correct implementation of the handshake in the C++ memory model: all RMWs
// on one location are totally ordered, and the later one acquires what the earlier one
// released, so whichever side passes the fence point second sees the other's store. It is
// slower (every fence point of the process meets on one cache line), which is why release
// builds keep the real fence.
#include <atomic>
#include "spate/platform/export.hpp"

#if defined(__SANITIZE_THREAD__)
#define SPATE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SPATE_TSAN 1
#endif
#endif

namespace spate {

#if defined(SPATE_TSAN)
namespace detail {
inline SPATE_API std::atomic<unsigned> handshake_fence_point{0};
}
inline void handshake_fence() noexcept {
  detail::handshake_fence_point.fetch_add(0, std::memory_order_seq_cst);
}
#else
inline void handshake_fence() noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
#endif

}  // namespace spate
