#pragma once
// Unbounded multi-producer / single-consumer queue of values: the actor mailbox.
//
// Layout after crossbeam's SegQueue: a linked list of blocks of `block_capacity` slots.
// A producer reserves a position with one CAS on `tail_index_`, writes the value in place
// and marks the slot ready. The producer that reserves the last slot of a block installs
// the next block first, so the consumer never waits for a link. Values live inside the
// blocks, so a message costs no allocation; the consumer recycles a drained block through a
// one-slot spare, so a mailbox whose length stays bounded stops allocating altogether.
//
// Positions: index % lap is the offset in the current block; offset `block_capacity` is a
// sentinel meaning "the next block is being installed" (producers wait on it briefly).
//
// Ordering: FIFO per producer (program order of the CAS) and linearisable overall.
// `ready` is published with a seq_cst store and read with a seq_cst load because the actor
// scheduling protocol pairs it with the actor's idle flag (a Dekker-style handshake: the
// producer writes ready then reads "idle?", the consumer writes "idle" then reads ready).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "spate/platform/backoff.hpp"
#include "spate/platform/cache_line.hpp"

namespace spate {

/// A multi-producer, single-consumer queue of values (an actor's mailbox; see the top of
/// this file).
template <class T>
class mpsc_queue {
  /// A value is constructed in a slot already reserved: a throwing move there would leave a
  /// hole that the consumer waits on forever.
  static_assert(std::is_nothrow_move_constructible_v<T>,
                "spate::mpsc_queue<T>: T must be nothrow move constructible");

 public:
  static constexpr std::size_t block_capacity = 63;

  mpsc_queue() {
    block* first = new block;
    tail_block_->store(first, std::memory_order_relaxed);
    consumer_->current = first;
  }
  mpsc_queue(const mpsc_queue&) = delete;
  mpsc_queue& operator=(const mpsc_queue&) = delete;

  ~mpsc_queue() {
    while (front() != nullptr) pop();
    delete consumer_->current;
    delete spare_->load(std::memory_order_relaxed);
  }

  /// Any thread. Never fails once it has a T: a conversion or copy that may throw runs
  /// before a slot is reserved (it may throw; nothing is then changed).
  template <class U = T>
  void push(U&& value) {
    if constexpr (!std::is_nothrow_constructible_v<T, U&&>) {
      push(T(std::forward<U>(value)));
      return;
    } else {
      push_nothrow(std::forward<U>(value));
    }
  }

 private:
  template <class U>
  void push_nothrow(U&& value) {  // may throw only before it reserves (a new block)
    backoff wait;
    block* next_block = nullptr;
    for (;;) {
      std::size_t tail = tail_index_->load(std::memory_order_acquire);
      block* current = tail_block_->load(std::memory_order_acquire);
      const std::size_t offset = tail % lap;
      if (offset == block_capacity) {  // another producer is installing the next block
        wait.pause();
        continue;
      }
      const bool takes_last_slot = offset + 1 == block_capacity;
      if (takes_last_slot && next_block == nullptr) next_block = acquire_block();
      if (tail_index_->compare_exchange_weak(tail, tail + 1, std::memory_order_seq_cst,
                                             std::memory_order_relaxed)) {
        if (takes_last_slot) {
          current->next.store(next_block, std::memory_order_release);
          tail_block_->store(next_block, std::memory_order_release);
          tail_index_->fetch_add(1, std::memory_order_release);  // skip the sentinel
          next_block = nullptr;
        }
        slot& s = current->slots[offset];
        ::new (static_cast<void*>(s.storage)) T(std::forward<U>(value));
        s.ready.store(1, std::memory_order_seq_cst);
        if (next_block != nullptr) release_block(next_block);  // reserved but not needed
        return;
      }
      wait.pause();
    }
  }

 public:
  /// Consumer only: the oldest element, or nullptr when none is ready. Valid until pop().
  T* front() noexcept {
    slot& s = consumer_->current->slots[consumer_->index % lap];
    if (s.ready.load(std::memory_order_seq_cst) == 0) return nullptr;
    return s.get();
  }

  /// Consumer only: removes the element front() returned.
  void pop() noexcept {
    const std::size_t offset = consumer_->index % lap;
    slot& s = consumer_->current->slots[offset];
    s.get()->~T();
    s.ready.store(0, std::memory_order_relaxed);
    ++consumer_->index;
    if (offset + 1 == block_capacity) {
      // The producer of the last slot linked `next` before marking the slot ready.
      block* drained = consumer_->current;
      consumer_->current = drained->next.load(std::memory_order_acquire);
      ++consumer_->index;  // skip the sentinel position
      drained->next.store(nullptr, std::memory_order_relaxed);
      release_block(drained);
    }
    head_index_->store(consumer_->index, std::memory_order_release);
  }

  /// Consumer: moves the oldest value into `out`; false when the queue is empty.
  bool try_pop(T& out) noexcept(std::is_nothrow_move_assignable_v<T>) {
    T* item = front();
    if (item == nullptr) return false;
    out = std::move(*item);
    pop();
    return true;
  }

  /// Consumer only; seq_cst (see the header comment).
  bool has_ready_item() noexcept { return front() != nullptr; }

  /// The consumer's position, to be compared later with has_items_after(). This pair lets a
  /// consumer that has just published "idle" ask "did anything arrive?" without touching
  /// consumer-side state, which by then may belong to a new activation on another thread.
  std::size_t consumer_position() const noexcept { return consumer_->index; }
  /// Any thread: true when a producer reserved a position at or after `position`.
  bool has_items_after(std::size_t position) const noexcept {
    return tail_index_->load(std::memory_order_seq_cst) > position;
  }

  /// Any thread; counts reserved positions, so it may include items still being written.
  std::size_t size_approx() const noexcept {
    const std::size_t head = head_index_->load(std::memory_order_acquire);
    const std::size_t tail = tail_index_->load(std::memory_order_acquire);
    if (tail <= head) return 0;
    return (tail - head) - (tail / lap - head / lap);  // minus the sentinels in between
  }

 private:
  static constexpr std::size_t lap = block_capacity + 1;

  struct slot {
    std::atomic<std::uint32_t> ready{0};
    alignas(T) unsigned char storage[sizeof(T)];
    T* get() noexcept { return std::launder(reinterpret_cast<T*>(storage)); }
  };
  struct block {
    std::atomic<block*> next{nullptr};
    slot slots[block_capacity];
  };
  struct consumer_state {
    block* current = nullptr;
    std::size_t index = 0;
  };

  block* acquire_block() {
    block* recycled = spare_->exchange(nullptr, std::memory_order_acquire);
    return recycled != nullptr ? recycled : new block;
  }
  void release_block(block* b) noexcept { delete spare_->exchange(b, std::memory_order_acq_rel); }

  cache_padded<std::atomic<std::size_t>> tail_index_{0};
  cache_padded<std::atomic<block*>> tail_block_{nullptr};
  cache_padded<consumer_state> consumer_;
  cache_padded<std::atomic<std::size_t>> head_index_{0};
  cache_padded<std::atomic<block*>> spare_{nullptr};
};

}  // namespace spate
