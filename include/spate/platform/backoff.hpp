#pragma once
// Spin-then-yield backoff for the short waits of lock-free code (a producer waiting for a
// consumer to free a slot, a consumer waiting for a reserved slot to be written).
#include <cstdint>
#include <thread>

namespace spate {

/// One CPU relaxation hint: lets the sibling hyper-thread run and saves power in spin loops.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

/// Exponential spinning, then yielding: for short waits on another thread.
class backoff {
 public:
  /// Spins 2^step times per call up to spin_limit, then yields the thread: on an
  /// oversubscribed machine (more threads than cores) the thread we wait for may need our core.
  void pause() noexcept {
    if (step_ <= spin_limit) {
      for (std::uint32_t i = 0; i < (1u << step_); ++i) cpu_relax();
      ++step_;
    } else {
      std::this_thread::yield();
    }
  }
  /// True once it has stopped spinning and yields.
  bool is_yielding() const noexcept { return step_ > spin_limit; }
  /// Back to the shortest spin (after progress).
  void reset() noexcept { step_ = 0; }

 private:
  static constexpr std::uint32_t spin_limit = 6;
  std::uint32_t step_ = 0;
};

}  // namespace spate
