#pragma once
#include <atomic>
#include <functional>
#include <memory>

#include "spate/channel/spsc_ring.hpp"
#include "spate/flow/detail/node_task_base.hpp"
#include "spate/flow/node.hpp"

namespace spate::flow::detail {

// A source fed from outside the graph: a ring from one producer (a graph actor, whose
// handlers are serialised, or a reader thread, io/detail/thread_feed.hpp) to the graph's
// feed source. When the ring is full the producer stops: a graph actor leaves the backlog
// in its mailbox, where senders see it (mailbox_size); a reader thread stops reading.
//
// Wake-ups in both directions reuse existing handshakes. Producer to source: the producer
// pushes, then notifies the source's task (`wake`, the wake handshake of
// exec/wake_handshake.hpp); the source's idle re-check is has_news(). Source to producer:
// when the ring has drained to half the source calls `on_room`, which schedules a graph
// actor (its idle re-check reads the ring's fill level) or notifies a reader thread's
// parking_event (a notify before the wait is not lost: exec/detail/parking_event.hpp). The ring only
// drains between those two points, so a full ring always reaches the half mark, and the actor is
// woken once per refill, not per item.
template <class T>
struct feed_channel {
  explicit feed_channel(std::size_t capacity) : items(capacity) {}
  spsc_ring<T> items;
  std::atomic<bool> closed{false};
  std::atomic<node_task_base*> source_task{nullptr};
  // Set before the graph starts, called on the source's task, cleared when the source goes.
  std::function<void()> on_room;

  void wake() {
    if (auto* t = source_task.load(std::memory_order_acquire)) t->notify();
  }
  // Any thread: reads only the ring's indices.
  bool has_room() const noexcept { return items.size_approx() < items.capacity(); }
  std::size_t size() const noexcept { return items.size_approx(); }
};

template <class T>
struct feed_source : node<void, T> {
  explicit feed_source(std::shared_ptr<feed_channel<T>> channel) : channel(std::move(channel)) {}
  feed_source(const feed_source&) = default;  // stage prototypes are copied into the graph
  // on_room holds a handle to the actor, which holds the graph: the cycle ends when the
  // running source (not a prototype copy) goes with the graph.
  ~feed_source() {
    if (running) channel->on_room = nullptr;
  }
  void on_start() {
    running = true;
    channel->source_task.store(this->running_task(), std::memory_order_release);
  }
  produce_status produce() {
    if (T* item = channel->items.front()) {
      this->send_next(std::move(*item));
      channel->items.pop();
      if (channel->on_room && channel->items.size_approx() == channel->items.capacity() / 2) {
        channel->on_room();
      }
      return produce_status::more;
    }
    // Check `closed` first: the actor pushes every item before it closes.
    if (channel->closed.load(std::memory_order_acquire)) {
      return channel->items.front() != nullptr ? produce_status::more : produce_status::ended;
    }
    return produce_status::wait;
  }
  bool has_news() const noexcept {
    return channel->items.size_approx() != 0 || channel->closed.load(std::memory_order_acquire);
  }
  std::shared_ptr<feed_channel<T>> channel;
  bool running = false;
};

}  // namespace spate::flow::detail
