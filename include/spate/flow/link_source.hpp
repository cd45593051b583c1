#pragma once
// A source fed from outside the graph through a link (exec/link.hpp): a graph actor, whose
// handlers are serialised, or a reader thread (a socket, a Kafka consumer) produces into the
// link, and this node sends what arrives down the graph. The source's task is the link's
// consumer end, set when the source starts; the producer end is whoever feeds it — a unit or
// a waiter — and is woken by the link's room protocol (R3) when the source has drained the
// link to its resume level.
//
//   auto in = std::make_shared<spate::link<int>>(spate::link_options{.capacity = 256});
//   spate::flow::graph g(spate::flow::pipeline(
//       spate::flow::make_stage<spate::flow::link_source<int>>(in), spate::flow::sink(...)));
//   g.start(rt);
//   // producer: in->try_push(x), then in->wake_consumer(); at the end in->close().
//
// A producer that pushes before the source started is not lost: the source's first
// activation reads the link, and wake_consumer() before then finds no consumer to wake.
#include <memory>

#include <utility>
#include "spate/exec/link.hpp"

#include "spate/flow/detail/node_task_base.hpp"
#include "spate/flow/node.hpp"

namespace spate::flow {

/// A source node reading a link that something outside the graph produces into.
template <class T>
class link_source : public node<void, T> {
 public:
  /// Reads `input`; the graph is its only consumer.
  explicit link_source(std::shared_ptr<link<T>> input) : input_(std::move(input)) {}
  /// Stage prototypes are copied into the graph (a copy reads the same link).
  link_source(const link_source&) = default;

  /// Becomes the link's consumer end.
  void on_start() { input_->set_consumer(static_cast<unit*>(this->running_task())); }
  /// The graph was cancelled: the link is abandoned, so a producer waiting for room is let go
  /// (push_waiting_for_room returns false; a unit producer re-checks is_abandoned()).
  void on_cancel() { input_->abandon(); }
  /// One item down the graph, `wait` when the link is empty, `ended` once closed and drained.
  produce_status produce() {
    return produce([](const T&) {});
  }
  /// The same, showing `noted` the item before it is sent: the one item sent, read once (a
  /// second read of front() could see an item the producer pushed in between, and a source
  /// noting positions would then send an item it did not note).
  template <class Noted>
  produce_status produce(Noted&& noted) {
    if (T* item = input_->front()) {
      noted(std::as_const(*item));
      this->send_next(std::move(*item));
      input_->pop_and_release();
      return produce_status::more;
    }
    // `closed` first: the producer pushes every item before it closes (E1).
    if (input_->is_closed()) {
      return input_->front() != nullptr ? produce_status::more : produce_status::ended;
    }
    input_->release_producer();  // drained: R3 in full before the task idles (link.hpp)
    return produce_status::wait;
  }
  /// The idle re-check: an item or end of stream arrived (atomics only).
  bool has_news() const noexcept { return input_->size_approx() != 0 || input_->is_closed(); }

  /// The link this source reads.
  const std::shared_ptr<link<T>>& input() const noexcept { return input_; }

 private:
  std::shared_ptr<link<T>> input_;
};

}  // namespace spate::flow
