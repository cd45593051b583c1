#pragma once
// Intrusive multi-producer / single-consumer queue (Dmitry Vyukov's node-based MPSC).
//
// Producers link a node with one atomic exchange on `tail_` (wait-free); the consumer walks
// `next` pointers from a stub. Order is FIFO per producer (and linearisable overall, by the
// order of the exchanges). Nodes are owned by the caller: the queue allocates nothing,
// which is why the scheduler uses it for ready tasks and actors for control messages.
//
// A node type derives from `intrusive_mpsc_link`; one node sits in at most one queue.
#include <atomic>
#include <cstddef>
#include <type_traits>

#include "spate/platform/backoff.hpp"
#include "spate/platform/cache_line.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// The link a node type embeds (derives from) to be queued without an allocation.
struct SPATE_API intrusive_mpsc_link {
  std::atomic<intrusive_mpsc_link*> next_in_queue{nullptr};  ///< the queue's, not the node's
};

/// A multi-producer, single-consumer queue of nodes that carry their own link (see the top
/// of this file).
template <class Node>
class intrusive_mpsc_queue {
  static_assert(std::is_base_of_v<intrusive_mpsc_link, Node>,
                "intrusive_mpsc_queue<Node>: Node must derive from spate::intrusive_mpsc_link");

 public:
  intrusive_mpsc_queue() noexcept {
    tail_->store(&stub_, std::memory_order_relaxed);
    *head_ = &stub_;
  }
  intrusive_mpsc_queue(const intrusive_mpsc_queue&) = delete;
  intrusive_mpsc_queue& operator=(const intrusive_mpsc_queue&) = delete;

  /// Any thread.
  void push(Node* node) noexcept {
    size_->fetch_add(1, std::memory_order_relaxed);
    link(node);
  }

  /// Consumer only. Returns nullptr when empty.
  Node* pop() noexcept {
    intrusive_mpsc_link* head = *head_;
    intrusive_mpsc_link* next = head->next_in_queue.load(std::memory_order_acquire);
    if (head == &stub_) {
      if (next == nullptr) {
        if (tail_->load(std::memory_order_acquire) == &stub_) return nullptr;
        next = wait_for_link(head);  // a push is half done
      }
      *head_ = next;
      head = next;
      next = next->next_in_queue.load(std::memory_order_acquire);
    }
    if (next == nullptr) {
      if (tail_->load(std::memory_order_acquire) == head) {
        // `head` is the last node: put the stub behind it so that head can move past it.
        link(&stub_);
      }
      next = wait_for_link(head);
    }
    *head_ = next;
    size_->fetch_sub(1, std::memory_order_relaxed);
    return static_cast<Node*>(head);
  }

  /// Any thread; approximate while producers are active.
  bool empty_approx() const noexcept { return size_->load(std::memory_order_acquire) <= 0; }
  /// Nodes queued (approximate while producers push).
  std::size_t size_approx() const noexcept {
    const auto n = size_->load(std::memory_order_acquire);
    return n < 0 ? 0 : static_cast<std::size_t>(n);
  }

 private:
  void link(intrusive_mpsc_link* node) noexcept {
    node->next_in_queue.store(nullptr, std::memory_order_relaxed);
    intrusive_mpsc_link* previous = tail_->exchange(node, std::memory_order_acq_rel);
    /// Between the exchange and this store the list is briefly cut; pop() waits it out.
    previous->next_in_queue.store(node, std::memory_order_release);
  }

  static intrusive_mpsc_link* wait_for_link(intrusive_mpsc_link* node) noexcept {
    backoff wait;
    intrusive_mpsc_link* next;
    while ((next = node->next_in_queue.load(std::memory_order_acquire)) == nullptr) wait.pause();
    return next;
  }

  cache_padded<std::atomic<intrusive_mpsc_link*>> tail_;
  cache_padded<std::atomic<std::ptrdiff_t>> size_{0};
  cache_padded<intrusive_mpsc_link*> head_;
  intrusive_mpsc_link stub_;
};

}  // namespace spate
