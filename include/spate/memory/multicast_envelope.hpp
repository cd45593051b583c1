#pragma once
// One allocation per multicast tuple: the tuple and the count of receivers still to release
// it live in one block (the dynamic-memory paper's "wrapper", Sect. 4.1, allocated with its
// tuple in one operation as in its Sect. 5). The emitter makes an envelope for a group of n
// receivers and sends the same pointer to each; each receiver reads the tuple and releases
// its share; the last release destroys the tuple and frees the block — to the slab pool it
// came from, through the releasing receiver's return channel, or with operator delete.
//
// The release handshake (the only one here):
//   1. A receiver finishes every read of the tuple, then decrements `receivers_left` with
//      acq_rel.
//   2. The receiver whose decrement takes the count from 1 to 0 destroys and frees.
// Why it is safe: every other receiver's reads precede its release decrement; the last
// decrement is an acquire on the same atomic, which reads the whole release sequence, so
// those reads happen-before the destruction. No receiver touches the envelope after its own
// decrement unless that decrement was the last. A stress test injects delays between the
// decrement and the check of its result (tests/stress).
//
// Threading contract: make() is the owner's (the pool's allocating side); release() may be
// called from any thread, once per receiver, each with that receiver's releaser index.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <utility>

#include "spate/memory/slab_pool.hpp"
#include "spate/platform/stress_point.hpp"

namespace spate::memory {

/// One value shared by several receivers in one allocation (see the top of this file).
template <class T>
class multicast_envelope {
 public:
  /// Owner: an envelope for `receivers` releases, its block from `pool` (nullptr: new).
  template <class... Args>
  static multicast_envelope* make(slab_pool* pool, std::uint32_t receivers, Args&&... args) {
    if (receivers == 0) throw std::invalid_argument("multicast_envelope: no receivers");
    void* block = nullptr;
    if (pool != nullptr) {
      if (pool->block_size() < sizeof(multicast_envelope) ||
          pool->alignment() < alignof(multicast_envelope))
        throw std::invalid_argument(
            "multicast_envelope: the pool's blocks are too small or too weakly aligned");
      block = pool->allocate();
    } else {
      block = ::operator new(sizeof(multicast_envelope));
    }
    return ::new (block) multicast_envelope(pool, receivers, std::forward<Args>(args)...);
  }

  /// The shared value (read-only: receivers share it).
  const T& value() const noexcept { return value_; }

  /// Any receiver, once, after its last read of value(): `releaser` is its return channel's
  /// index in the pool (ignored for envelopes made without a pool).
  void release(std::size_t releaser) {
    const auto before = receivers_left_.fetch_sub(1, std::memory_order_acq_rel);
    stress_point();  ///< another receiver's decrement may land here
    if (before != 1) return;
    slab_pool* pool = pool_;
    this->~multicast_envelope();
    if (pool != nullptr)
      pool->deallocate(releaser, this);
    else
      ::operator delete(this);
  }

 private:
  template <class... Args>
  multicast_envelope(slab_pool* pool, std::uint32_t receivers, Args&&... args)
      : value_(std::forward<Args>(args)...), receivers_left_(receivers), pool_(pool) {}
  ~multicast_envelope() = default;

  T value_;
  std::atomic<std::uint32_t> receivers_left_;
  slab_pool* pool_;
};

/// What a slab pool for envelopes of T needs (slab_options{.block_size, .alignment}).
template <class T>
inline constexpr std::size_t envelope_block_size = sizeof(multicast_envelope<T>);
template <class T>
inline constexpr std::size_t envelope_alignment = alignof(multicast_envelope<T>) <
                                                          alignof(std::max_align_t)
                                                      ? alignof(std::max_align_t)
                                                      : alignof(multicast_envelope<T>);

/// A receiver's share as a value: releases on destruction (RAII), movable, not copyable.
template <class T>
class envelope_share {
 public:
  envelope_share() = default;
  /// A share released through return channel `releaser`.
  envelope_share(multicast_envelope<T>* envelope, std::size_t releaser) noexcept
      : envelope_(envelope), releaser_(releaser) {}
  /// Takes the other's share over.
  envelope_share(envelope_share&& other) noexcept
      : envelope_(std::exchange(other.envelope_, nullptr)), releaser_(other.releaser_) {}
  /// Releases this share, then takes the other's over.
  envelope_share& operator=(envelope_share&& other) noexcept {
    if (this != &other) {
      reset();
      envelope_ = std::exchange(other.envelope_, nullptr);
      releaser_ = other.releaser_;
    }
    return *this;
  }
  ~envelope_share() { reset(); }

  /// The shared value.
  const T& operator*() const noexcept { return envelope_->value(); }
  /// The shared value.
  const T* operator->() const noexcept { return &envelope_->value(); }
  /// True while it holds a share.
  explicit operator bool() const noexcept { return envelope_ != nullptr; }
  /// Releases the share now.
  void reset() {
    if (envelope_ != nullptr) std::exchange(envelope_, nullptr)->release(releaser_);
  }

 private:
  multicast_envelope<T>* envelope_ = nullptr;
  std::size_t releaser_ = 0;
};

}  // namespace spate::memory
