#pragma once
// Typed streaming operators (the high-throughput-actors paper, Sect. 3: SeqNode).
//
//   struct tokenizer : spate::flow::node<std::string, std::string> {
//     void consume(std::string& line) {          // called once per input item, in order
//       for (auto& w : split(line)) send_next(std::move(w));
//     }
//     void on_start() {}                         // optional: before the first item
//     void on_stop() {}                          // optional: after the input is drained
//     void on_cancel() {}                        // optional: the graph was cancelled or
//                                                //   failed (this node's own exception,
//                                                //   from on_start and on_stop too, included)
//                                                //   once on_start was called; no on_stop
//                                                //   follows it
//     void interrupt() noexcept {}               // optional: called at once by cancel(), on
//   };                                           //   the cancelling thread, even mid-consume:
//                                                //   wake a blocking call (thread-safe)
//
// A source is a node<void, Out> whose `bool produce()` emits items and returns false at the
// end of the stream; a sink is a node<In, void>.
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "spate/flow/detail/output_port.hpp"

namespace spate::flow {

namespace detail {
template <class N, class Mode, class KeyFn = void>
class node_task;
struct node_access;
class node_task_base;
}  // namespace detail

/// What a source's produce() may return besides bool (true: more, false: ended): a source
/// fed from outside says `wait` when it has nothing now; it must then offer
/// `bool has_news() const` (atomics only) and be woken with wake() when input arrives.
enum class produce_status { more, wait, ended };

/// What every node knows about its place in the graph.
class node_context {
 public:
  /// Which replica of its farm this node is, from 0 (0 outside a farm).
  std::size_t replica_index() const noexcept { return replica_; }
  /// How many replicas its farm has (1 outside a farm).
  std::size_t replica_count() const noexcept { return replicas_; }

 protected:
  /// The task running this node (valid from on_start on), for waking it from outside.
  detail::node_task_base* running_task() const noexcept { return task_; }

 private:
  friend struct detail::node_access;
  std::size_t replica_ = 0;
  std::size_t replicas_ = 1;
  detail::node_task_base* task_ = nullptr;
};

/// A typed streaming operator: derive, define `void consume(In&)`, call send_next (see the
/// top of this file). `In` void: a source (`produce()` instead of consume).
template <class In, class Out>
class node : public node_context {
 public:
  using input_type = In;    ///< what it consumes
  using output_type = Out;  ///< what it sends

  /// Runs before the first item; hide it to set up (it may send).
  void on_start() {}
  /// Runs once after the input has ended and drained; hide it to flush (it may send).
  void on_stop() {}

 protected:
  /// Sends to the next stage, routed by that stage's policy. Never drops: when the next
  /// queue is full, the item waits in this node's output buffer and the node suspends
  /// after the current consume() (or produce()) returns, until the consumer makes room.
  [[gnu::always_inline]] void send_next(Out&& item) { port_->send(std::move(item)); }
  /// Sends a copy of `item` (as the rvalue overload).
  void send_next(const Out& item) { port_->send(Out(item)); }

  /// Sends only when the destination queue holds fewer than `max_queue_length` items; with
  /// round-robin or random routing every replica's queue is tried before failing. Returns
  /// false and leaves `item` untouched otherwise (paper, Sect. 4: flow control at sources).
  /// A node chained to the next stage (flow::unchained) has no queue in front of it: there
  /// it refuses only while the chain's output holds items back for a full link, so a
  /// source that needs the bound is kept apart with flow::unchained.
  bool send_next_if(Out&& item, std::size_t max_queue_length) {
    return port_->send_if(item, max_queue_length);
  }

 private:
  friend struct detail::node_access;
  output_port<Out>* port_ = nullptr;
};

/// Sinks have no output.
template <class In>
class node<In, void> : public node_context {
 public:
  using input_type = In;     ///< what it consumes
  using output_type = void;  ///< nothing: a sink
  /// Runs before the first item.
  void on_start() {}
  /// Runs once after the input has ended and drained.
  void on_stop() {}
};

/// Sources: implement `bool produce()`, which sends zero or more items and returns false
/// once the stream has ended. It is called repeatedly, a batch per activation.
template <class Out>
using source = node<void, Out>;

template <class N>
concept node_type = requires {
  typename N::input_type;
  typename N::output_type;
} && std::is_base_of_v<node_context, N>;

namespace detail {
struct node_access {
  template <class N>
  static void bind(N& n, std::size_t replica, std::size_t replicas, node_task_base* task) {
    n.replica_ = replica;
    n.replicas_ = replicas;
    n.task_ = task;
    // A chain (flow/detail/chain_node.hpp) hands its place on to the nodes it runs.
    if constexpr (requires { n.bind_members(replica, replicas, task); }) {
      n.bind_members(replica, replicas, task);
    }
  }
  static node_task_base* task_of(const node_context& n) noexcept { return n.task_; }
  template <class N, class Port>
  static void set_port(N& n, Port* port) {
    n.port_ = port;
    // A chain's last node sends on the chain's port.
    if constexpr (requires { n.set_member_port(port); }) n.set_member_port(port);
  }
};
}  // namespace detail

}  // namespace spate::flow
