#pragma once
// Unbounded single-producer / single-consumer queue: a linked list of bounded rings, as
// FastFlow's uSPSC (cited by the high-throughput-actors paper, Sect. 3). The producer
// appends a fresh ring when its current one is full; the consumer follows `next` once its
// ring is drained and hands the drained ring back through a one-slot spare, so a queue that
// oscillates around a steady length stops allocating.
#include <atomic>
#include <cstddef>
#include <utility>

#include "spate/channel/spsc_ring.hpp"
#include "spate/platform/cache_line.hpp"

namespace spate {

/// A single-producer, single-consumer queue that grows by linked segments.
template <class T>
class unbounded_spsc_queue {
 public:
  /// Segments of `segment_capacity` values.
  explicit unbounded_spsc_queue(std::size_t segment_capacity = 1024)
      : segment_capacity_(segment_capacity) {
    auto* first = new segment(segment_capacity_);
    *producer_segment_ = first;
    *consumer_segment_ = first;
  }
  unbounded_spsc_queue(const unbounded_spsc_queue&) = delete;
  unbounded_spsc_queue& operator=(const unbounded_spsc_queue&) = delete;

  ~unbounded_spsc_queue() {
    segment* s = *consumer_segment_;
    while (s != nullptr) {
      segment* next = s->next.load(std::memory_order_relaxed);
      delete s;
      s = next;
    }
    delete spare_->load(std::memory_order_relaxed);
  }

  /// Producer side; never fails.
  template <class U = T>
  void push(U&& value) {
    segment* tail = *producer_segment_;
    if (!tail->ring.try_push(std::forward<U>(value))) {
      segment* fresh = spare_->exchange(nullptr, std::memory_order_acquire);
      if (fresh == nullptr) fresh = new segment(segment_capacity_);
      fresh->ring.try_push(std::forward<U>(value));  // an empty ring always has room
      tail->next.store(fresh, std::memory_order_release);
      *producer_segment_ = fresh;
    }
    pushed_->store(pushed_->load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

  /// Consumer side: the front element or nullptr. Valid until pop().
  T* front() noexcept {
    for (;;) {
      segment* head = *consumer_segment_;
      if (T* item = head->ring.front()) return item;
      segment* next = head->next.load(std::memory_order_acquire);
      if (next == nullptr) return nullptr;
      // The producer wrote every element of `head` before publishing `next`.
      if (T* item = head->ring.front()) return item;
      *consumer_segment_ = next;
      head->next.store(nullptr, std::memory_order_relaxed);
      delete spare_->exchange(head, std::memory_order_release);
    }
  }

  /// Consumer: removes the oldest value (there must be one).
  void pop() noexcept {
    (*consumer_segment_)->ring.pop();
    popped_->store(popped_->load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

  /// Consumer: moves the oldest value into `out`; false when empty.
  bool try_pop(T& out) {
    T* item = front();
    if (item == nullptr) return false;
    out = std::move(*item);
    pop();
    return true;
  }

  /// Values queued (approximate from the other side).
  std::size_t size_approx() const noexcept {
    const auto popped = popped_->load(std::memory_order_acquire);
    const auto pushed = pushed_->load(std::memory_order_acquire);
    return pushed >= popped ? pushed - popped : 0;
  }

 private:
  struct segment {
    explicit segment(std::size_t capacity) : ring(capacity) {}
    spsc_ring<T> ring;
    std::atomic<segment*> next{nullptr};
  };

  const std::size_t segment_capacity_;
  cache_padded<segment*> producer_segment_;
  cache_padded<std::atomic<std::size_t>> pushed_{0};
  cache_padded<segment*> consumer_segment_;
  cache_padded<std::atomic<std::size_t>> popped_{0};
  cache_padded<std::atomic<segment*>> spare_{nullptr};
};

}  // namespace spate
