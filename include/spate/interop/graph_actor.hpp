#pragma once
// A streaming graph spawned as an actor (the high-throughput-actors paper's coexistence of
// patterns and actors): ordinary actors send items of the graph's input type to it, the
// graph's outputs are sent to an `output` actor, and `end_of_stream` drains it.
//
//   auto words = flow::spawn_graph(system,
//       flow::pipeline(flow::flat_map<std::string>(split), flow::farm(normalise, 4)),
//       printer);                       // printer receives std::string, then end_of_stream
//   spate::send(words, std::string("a line of text"));
//   spate::send(words, flow::end_of_stream{});
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "spate/actor.hpp"
#include "spate/exec/link.hpp"
#include "spate/flow/link_source.hpp"
#include "spate/flow/graph.hpp"

namespace spate::flow {

/// Closes a graph actor's input; the output actor receives one after the last item. When a
/// node fails instead, the graph actor terminates with exit_code::unhandled_exception and a
/// reason naming the node (link to it or monitor it to learn of that); the error is also
/// reported through the system's error reporter.
struct end_of_stream {};

namespace detail {

struct graph_finished {
  std::string failure;  ///< empty: the stream ended normally
};

template <class T>
struct forward_sink : node<T, void> {
  explicit forward_sink(spate::actor output) : output(std::move(output)) {}
  void consume(T& item) { spate::send(output, std::move(item)); }
  void on_stop() { spate::send(output, end_of_stream{}); }
  spate::actor output;
};

}  // namespace detail

/// A flow graph behind an actor's mailbox (flow::spawn_graph; see the top of this file).
template <class In>
class graph_actor
    : public spate::typed_actor<graph_actor<In>, In, end_of_stream, detail::graph_finished> {
 public:
  /// The graph of `stage` with a feed source in front and a sink to `output` behind.
  template <class Stage>
  graph_actor(Stage stage, spate::actor output, graph_options options)
      : input_(std::make_shared<link<In>>(options.links)) {
    using Out = typename Stage::output_type;
    static_assert(std::is_same_v<typename Stage::input_type, In>);
    static_assert(!std::is_void_v<Out>,
                  "spate::flow::spawn_graph: the graph's last stage must produce items");
    make_ = [stage = std::move(stage), output = std::move(output), options, input = input_] {
      return std::make_unique<graph>(pipeline(make_stage<link_source<In>>(input), stage,
                                              make_stage<detail::forward_sink<Out>>(output)),
                                     options);
    };
  }

  /// Builds and starts the graph.
  void on_start() {
    graph_ = make_();
    // This actor is the link's producer end. The graph's on_finished hook (below) holds a
    // handle to it until the graph's last task has ended, so the source's room wake-ups
    // (link R3) never reach a destroyed actor; after this actor stopped they find it finished.
    input_->set_producer(static_cast<unit*>(this));
    graph_->start(this->system().context(), [self = this->self()](const std::string& failure) {
      // High priority: a failed graph no longer drains its input, so this must overtake
      // the items waiting in the mailbox.
      spate::send(message_priority::high, self, detail::graph_finished{failure});
    });
  }
  /// An item into the graph's input ring.
  void on(In& item) {
    if (input_->is_closed()) {
      throw std::logic_error("spate::flow graph actor: item sent after end_of_stream");
    }
    if (!input_->try_push(std::move(item))) {
      throw std::logic_error("spate::flow graph actor: input ring full (taken while full)");
    }
    input_->withdraw_room_request();
    input_->wake_consumer();
  }
  /// Closes the graph's input: it drains and ends.
  void on(end_of_stream&) {
    input_->close();
  }
  /// The typed_actor hook: items (and end_of_stream behind them) stay in the mailbox while
  /// the graph's input link is full. A full link asks for room (link R1); this is also the
  /// actor's idle re-check (R2), and the source wakes the actor at the resume level (R3).
  bool accepting_messages() const noexcept {
    if (input_->has_room()) return true;
    input_->request_room();
    return input_->has_room();
  }
  /// The mailbox plus the items in the graph's input ring: what a pacing sender should read.
  std::size_t mailbox_size() const noexcept override {
    return this->typed_actor<graph_actor<In>, In, end_of_stream,
                             detail::graph_finished>::mailbox_size() +
           input_->size_approx();
  }

  /// The graph has ended: terminates, with the failure as exit reason when it failed.
  void on(detail::graph_finished& f) {
    if (f.failure.empty()) {
      this->quit();
      return;
    }
    this->system().report_error("spate::flow graph actor '" + this->name() + "': " + f.failure);
    this->quit(exit_reason{exit_code::unhandled_exception, f.failure});
  }
  /// Drops the graph: its sink holds a handle to this actor, so keeping it would be a cycle.
  /// Unfinished tasks keep the graph's state alive until they end (cancelled here).
  void on_stop() {
    // A finished graph's tasks have all ended: nobody wakes this actor through the link.
    if (!graph_ || graph_->finished()) input_->set_producer({});
    if (graph_ && !graph_->finished()) graph_->cancel();
    graph_.reset();
    make_ = nullptr;
  }

 private:
  std::shared_ptr<link<In>> input_;
  std::function<std::unique_ptr<graph>()> make_;
  std::unique_ptr<graph> graph_;
};

/// Spawns `stage` (In -> Out, neither a source nor a sink) as an actor on `system`'s pool.
/// Its input is bounded: options.links.capacity items in flight into the graph; beyond
/// that, items wait in the actor's mailbox, and mailbox_size() counts both.
template <class Stage>
auto spawn_graph(actor_system& system, Stage stage, spate::actor output,
                 graph_options options = {}) {
  auto s = as_stage(std::move(stage));
  using In = typename decltype(s)::input_type;
  static_assert(!std::is_void_v<In>, "spate::flow::spawn_graph: the graph must take input");
  return system.spawn<graph_actor<In>>(std::move(s), std::move(output), options);
}

}  // namespace spate::flow
