#pragma once
// The two-priority mailbox of typed and event-based actors: two MPSC queues (high-priority
// messages overtake normal ones, FIFO per sender within each), with the pieces the
// wake handshake needs — a consumer-side mark taken before going idle and a
// producer-side "grew since the mark" re-check.
//
// Threading contract: push() and size_approx() from any thread; everything else only from
// the actor's running activation, except grew_since(), which the idle re-check may call
// while a later activation already runs (it reads only producer-side atomics).
#include <cstddef>
#include <utility>

#include "spate/channel/mpsc_queue.hpp"

namespace spate {

enum class message_priority { normal, high };

/// Where the consumer stood in each queue when it decided to go idle.
struct mailbox_mark {
  /// High-priority messages pushed so far.
  std::size_t high = 0;
  /// Normal messages pushed so far.
  std::size_t normal = 0;
};

/// An actor's mailbox: a high-priority queue before a normal one.
template <class Envelope>
class two_priority_mailbox {
 public:
  /// Any thread.
  void push(Envelope envelope, message_priority priority) {
    (priority == message_priority::high ? high_ : normal_).push(std::move(envelope));
  }
  /// Messages waiting in both queues.
  std::size_t size_approx() const noexcept { return high_.size_approx() + normal_.size_approx(); }

  /// Hands up to `budget` messages to handle(envelope), high-priority ones first; normal ones
  /// only while take_normal() (an actor that cannot accept them now leaves them queued).
  /// Stops early when handle returns false (the actor quits). Returns how many it handled.
  template <class TakeNormal, class Handle>
  std::size_t drain(std::size_t budget, TakeNormal&& take_normal, Handle&& handle) {
    std::size_t handled = 0;
    while (handled < budget) {
      auto* queue = &high_;
      Envelope* e = queue->front();
      if (e == nullptr) {
        if (!take_normal()) break;
        queue = &normal_;
        e = queue->front();
        if (e == nullptr) break;
      }
      const bool go_on = handle(*e);
      queue->pop();
      ++handled;
      if (!go_on) break;
    }
    return handled;
  }

  /// The push counts now, for the idle re-check.
  mailbox_mark mark() const noexcept {
    return {high_.consumer_position(), normal_.consumer_position()};
  }
  /// Producer-side atomics only. Normal messages count only when `count_normal`.
  bool grew_since(const mailbox_mark& mark, bool count_normal = true) const noexcept {
    return high_.has_items_after(mark.high) ||
           (count_normal && normal_.has_items_after(mark.normal));
  }

  /// Removes every message, high first, passing each to `dropped(envelope)`; returns the count.
  template <class Dropped>
  std::size_t drop_all(Dropped dropped) {
    std::size_t count = 0;
    for (auto* queue : {&high_, &normal_}) {
      while (Envelope* e = queue->front()) {
        dropped(*e);
        queue->pop();
        ++count;
      }
    }
    return count;
  }

 private:
  mpsc_queue<Envelope> high_;
  mpsc_queue<Envelope> normal_;
};

}  // namespace spate
