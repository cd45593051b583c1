#pragma once
// Bounded single-producer / single-consumer ring buffer.
//
// Design (after folly's ProducerConsumerQueue and the FastFlow SWSR buffer used in the
// high-throughput-actors paper, Sect. 3): the producer owns `tail_`, the consumer owns
// `head_`; each keeps a private cached copy of the other's index on its own cache line and
// re-reads the shared one only when the cached copy says "full" / "empty". In the steady
// state a push or pop therefore touches one shared line (the slot) plus one release store.
#include <atomic>
#include <cassert>
#include <cstddef>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "spate/platform/cache_line.hpp"

namespace spate {

template <class T>
class spsc_ring {
 public:
  // Capacity is rounded up to a power of two (so index wrap is a mask, not a division).
  explicit spsc_ring(std::size_t capacity)
      : mask_(round_up_to_power_of_two(capacity) - 1),
        slots_(static_cast<slot*>(
            ::operator new[]((mask_ + 1) * sizeof(slot), std::align_val_t{alignof(slot)}))) {}

  spsc_ring(const spsc_ring&) = delete;
  spsc_ring& operator=(const spsc_ring&) = delete;

  ~spsc_ring() {
    while (try_pop_and_discard()) {
    }
    ::operator delete[](slots_, std::align_val_t{alignof(slot)});
  }

  // Producer side. Returns false (and leaves `value` untouched) when the ring is full.
  template <class U = T>
  bool try_push(U&& value) noexcept(std::is_nothrow_constructible_v<T, U&&>) {
    const std::size_t tail = producer_->tail;
    if (tail - producer_->cached_head > mask_) {
      producer_->cached_head = head_->load(std::memory_order_acquire);
      if (tail - producer_->cached_head > mask_) return false;
    }
    ::new (&slots_[tail & mask_].storage) T(std::forward<U>(value));
    producer_->tail = tail + 1;
    tail_->store(tail + 1, std::memory_order_release);
    return true;
  }

  // Consumer side: the front element, or nullptr when empty. Valid until pop().
  T* front() noexcept {
    const std::size_t head = consumer_->head;
    if (head == consumer_->cached_tail) {
      consumer_->cached_tail = tail_->load(std::memory_order_acquire);
      if (head == consumer_->cached_tail) return nullptr;
    }
    return slots_[head & mask_].get();
  }

  // Consumer side: removes the front element; front() must have returned non-null.
  void pop() noexcept {
    const std::size_t head = consumer_->head;
    assert(head != consumer_->cached_tail);
    slots_[head & mask_].get()->~T();
    consumer_->head = head + 1;
    head_->store(head + 1, std::memory_order_release);
  }

  // Consumer side: moves the front element out into `out`. Returns false when empty.
  bool try_pop(T& out) noexcept(std::is_nothrow_move_assignable_v<T>) {
    T* item = front();
    if (item == nullptr) return false;
    out = std::move(*item);
    pop();
    return true;
  }

  // Approximate number of elements; exact when called by the producer or consumer while
  // the other side is idle. Safe from any thread.
  std::size_t size_approx() const noexcept {
    const std::size_t head = head_->load(std::memory_order_acquire);
    const std::size_t tail = tail_->load(std::memory_order_acquire);
    return tail >= head ? tail - head : 0;
  }
  bool empty_approx() const noexcept { return size_approx() == 0; }
  std::size_t capacity() const noexcept { return mask_ + 1; }

 private:
  struct slot {
    alignas(T) unsigned char storage[sizeof(T)];
    T* get() noexcept { return std::launder(reinterpret_cast<T*>(storage)); }
  };
  struct producer_state {
    std::size_t tail = 0;
    std::size_t cached_head = 0;
  };
  struct consumer_state {
    std::size_t head = 0;
    std::size_t cached_tail = 0;
  };

  static std::size_t round_up_to_power_of_two(std::size_t n) {
    if (n == 0) throw std::invalid_argument("spsc_ring: capacity must be at least 1");
    std::size_t p = 1;
    while (p < n) p <<= 1;
    return p;
  }

  bool try_pop_and_discard() noexcept {
    if (front() == nullptr) return false;
    pop();
    return true;
  }

  const std::size_t mask_;
  slot* const slots_;
  cache_padded<std::atomic<std::size_t>> head_{0};
  cache_padded<std::atomic<std::size_t>> tail_{0};
  cache_padded<producer_state> producer_;
  cache_padded<consumer_state> consumer_;
};

}  // namespace spate
