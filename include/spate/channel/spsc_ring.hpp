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

/// A bounded single-producer, single-consumer ring (see the top of this file).
template <class T>
class spsc_ring {
  struct slot {
    alignas(T) unsigned char storage[sizeof(T)];
    T* get() noexcept { return std::launder(reinterpret_cast<T*>(storage)); }
  };
  /// Neighbouring slots hold neighbouring elements (read_batch::contiguous_data).
  static_assert(sizeof(slot) == sizeof(T));

 public:
  /// Capacity is rounded up to a power of two (so index wrap is a mask, not a division).
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

  /// Producer side. Returns false (and leaves `value` untouched) when the ring is full.
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

  /// Producer side, batched: a window of free slots, filled without publishing each
  /// element; commit() publishes what was written with one release store. A producer that
  /// writes through windows touches the shared index once per window instead of once per
  /// element. While a window is open, only commit() may follow (no try_push): try_push
  /// starts from the committed tail.
  class write_window {
   public:
    /// No room left in the window.
    bool full() const noexcept { return next_ == end_; }
    /// Slots left in the window.
    std::size_t room() const noexcept { return end_ - next_; }
    /// Values placed so far.
    std::size_t written() const noexcept { return next_ - start_; }
    /// Places a value in the next slot; false when the window is full.
    template <class U>
    void emplace(U&& value) noexcept(std::is_nothrow_constructible_v<T, U&&>) {
      ::new (&slots_[next_ & mask_].storage) T(std::forward<U>(value));
      ++next_;
    }
    /// Constructs up to `max` elements from make(0), make(1), ... in slots that lie next to
    /// each other (up to where the ring wraps); returns how many. A plain loop over
    /// neighbouring slots, which the compiler may vectorise. If make() throws, the elements
    /// made before it stay in the window.
    template <class Make>
    std::size_t emplace_contiguous(std::size_t max, Make&& make) {
      const std::size_t at = next_ & mask_;
      std::size_t n = end_ - next_;
      if (max < n) n = max;
      if (mask_ + 1 - at < n) n = mask_ + 1 - at;
      slot* const out = slots_ + at;
      std::size_t made = 0;
      try {
        for (; made < n; ++made) ::new (&out[made].storage) T(make(made));
      } catch (...) {
        next_ += made;
        throw;
      }
      next_ += n;
      return n;
    }

   private:
    friend class spsc_ring;
    slot* slots_ = nullptr;
    std::size_t mask_ = 0;
    std::size_t start_ = 0;
    std::size_t next_ = 0;
    std::size_t end_ = 0;
  };

  /// Up to `max` free slots at the tail (refreshing the cached head when fewer are known).
  write_window reserve(std::size_t max) noexcept {
    const std::size_t tail = producer_->tail;
    if (capacity() - (tail - producer_->cached_head) < max) {
      producer_->cached_head = head_->load(std::memory_order_acquire);
    }
    const std::size_t free = capacity() - (tail - producer_->cached_head);
    write_window w;
    w.slots_ = slots_;
    w.mask_ = mask_;
    w.start_ = w.next_ = tail;
    w.end_ = tail + (free < max ? free : max);
    return w;
  }
  /// Publishes the window's elements; returns how many were new. The window stays usable.
  std::size_t commit(write_window& w) noexcept {
    const std::size_t added = w.next_ - w.start_;
    if (added != 0) {
      assert(w.start_ == producer_->tail);
      producer_->tail = w.next_;
      tail_->store(w.next_, std::memory_order_release);
      w.start_ = w.next_;
    }
    return added;
  }

  /// Consumer side: the front element, or nullptr when empty. Valid until pop().
  T* front() noexcept {
    const std::size_t head = consumer_->head;
    if (head == consumer_->cached_tail) {
      consumer_->cached_tail = tail_->load(std::memory_order_acquire);
      if (head == consumer_->cached_tail) return nullptr;
    }
    return slots_[head & mask_].get();
  }

  /// Consumer side: removes the front element; front() must have returned non-null.
  void pop() noexcept { pop_n(1); }

  /// Consumer side, batched: up to `max` readable elements (re-reading the producer's index
  /// only when the cached one says none), as a value the caller keeps in registers; then
  /// pop_n() removes the first n of them with one index store. A consumer that drains in
  /// batches touches the shared index once per batch instead of once per element.
  class read_batch {
   public:
    /// Values in the batch.
    std::size_t size() const noexcept { return count_; }
    /// The k-th value of the batch, oldest first.
    T& operator[](std::size_t k) const noexcept {
      assert(k < count_);
      return *slots_[(head_ + k) & mask_].get();
    }
    /// The elements from the k-th on that lie next to each other in memory (up to where the
    /// ring wraps), and a pointer to the first: loops over them need no index masking.
    std::size_t contiguous(std::size_t k) const noexcept {
      const std::size_t at = (head_ + k) & mask_;
      const std::size_t to_wrap = mask_ + 1 - at;
      return count_ - k < to_wrap ? count_ - k : to_wrap;
    }
    /// The values from k on that lie next to each other in memory.
    T* contiguous_data(std::size_t k) const noexcept { return slots_[(head_ + k) & mask_].get(); }
    /// Shortens the batch to its first `n` values (no change when it holds fewer).
    void keep_first(std::size_t n) noexcept {
      if (n < count_) count_ = n;
    }

   private:
    friend class spsc_ring;
    slot* slots_;
    std::size_t mask_;
    std::size_t head_;
    std::size_t count_;
  };
  /// Consumer: up to `max` values ready to read, oldest first (pop_n releases them).
  read_batch readable(std::size_t max) noexcept {
    const std::size_t head = consumer_->head;
    if (head == consumer_->cached_tail) {
      consumer_->cached_tail = tail_->load(std::memory_order_acquire);
    }
    const std::size_t ready = consumer_->cached_tail - head;
    read_batch b;
    b.slots_ = slots_;
    b.mask_ = mask_;
    b.head_ = head;
    b.count_ = ready < max ? ready : max;
    return b;
  }
  /// Consumer: the next `n` values, which the caller knows were published (it acquired
  /// something the producer released after publishing them): the producer's index is read
  /// again when the cached one shows fewer. pop_n releases them.
  read_batch readable_known(std::size_t n) noexcept {
    if (consumer_->cached_tail - consumer_->head < n) {
      consumer_->cached_tail = tail_->load(std::memory_order_acquire);
    }
    assert(consumer_->cached_tail - consumer_->head >= n);
    return readable(n);
  }
  /// Consumer: releases the first n values of the last batch read.
  void pop_n(std::size_t n) noexcept {
    const std::size_t head = consumer_->head;
    assert(n <= consumer_->cached_tail - head);
    if constexpr (!std::is_trivially_destructible_v<T>) {
      for (std::size_t k = 0; k < n; ++k) slots_[(head + k) & mask_].get()->~T();
    }
    consumer_->head = head + n;
    head_->store(head + n, std::memory_order_release);
  }

  /// Consumer side: moves the front element out into `out`. Returns false when empty.
  bool try_pop(T& out) noexcept(std::is_nothrow_move_assignable_v<T>) {
    T* item = front();
    if (item == nullptr) return false;
    out = std::move(*item);
    pop();
    return true;
  }

  /// Approximate number of elements; exact when called by the producer or consumer while
  /// the other side is idle. Safe from any thread.
  std::size_t size_approx() const noexcept {
    const std::size_t head = head_->load(std::memory_order_acquire);
    const std::size_t tail = tail_->load(std::memory_order_acquire);
    return tail >= head ? tail - head : 0;
  }
  /// Nothing queued (approximate from the other side).
  bool empty_approx() const noexcept { return size_approx() == 0; }
  /// Producer side: values ever published (the committed tail; a write window's values
  /// count once committed).
  std::size_t pushed() const noexcept { return producer_->tail; }
  /// Consumer side: values ever removed.
  std::size_t popped() const noexcept { return consumer_->head; }
  /// Values the ring holds.
  std::size_t capacity() const noexcept { return mask_ + 1; }

 private:
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
