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
#include <memory>
#include <string>
#include <utility>

#include "spate/actor.hpp"
#include "spate/channel/unbounded_spsc_queue.hpp"
#include "spate/flow/graph.hpp"

namespace spate::flow {

// Closes a graph actor's input; the output actor receives one after the last item. When a
// node fails instead, the graph actor terminates with exit_code::unhandled_exception and a
// reason naming the node (link to it or monitor it to learn of that); the error is also
// reported through the system's error reporter.
struct end_of_stream {};

namespace detail {

// The actor (single producer: its handlers are serialised) to the graph's feed source.
template <class T>
struct feed_channel {
  unbounded_spsc_queue<T> items;
  std::atomic<bool> closed{false};
  std::atomic<node_task_base*> source_task{nullptr};

  void wake() {
    if (auto* t = source_task.load(std::memory_order_acquire)) t->notify();
  }
};

template <class T>
struct feed_source : node<void, T> {
  explicit feed_source(std::shared_ptr<feed_channel<T>> channel) : channel(std::move(channel)) {}
  void on_start() { channel->source_task.store(this->running_task(), std::memory_order_release); }
  produce_status produce() {
    if (T* item = channel->items.front()) {
      this->send_next(std::move(*item));
      channel->items.pop();
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
};

struct graph_finished {
  std::string failure;  // empty: the stream ended normally
};

template <class T>
struct forward_sink : node<T, void> {
  explicit forward_sink(spate::actor output) : output(std::move(output)) {}
  void consume(T& item) { spate::send(output, std::move(item)); }
  void on_stop() { spate::send(output, end_of_stream{}); }
  spate::actor output;
};

}  // namespace detail

template <class In>
class graph_actor
    : public spate::typed_actor<graph_actor<In>, In, end_of_stream, detail::graph_finished> {
 public:
  template <class Stage>
  graph_actor(Stage stage, spate::actor output, graph_options options)
      : channel_(std::make_shared<detail::feed_channel<In>>()) {
    using Out = typename Stage::output_type;
    static_assert(std::is_same_v<typename Stage::input_type, In>);
    static_assert(!std::is_void_v<Out>,
                  "spate::flow::spawn_graph: the graph's last stage must produce items");
    make_ = [stage = std::move(stage), output = std::move(output), options, channel = channel_] {
      return std::make_unique<graph>(pipeline(make_stage<detail::feed_source<In>>(channel), stage,
                                              make_stage<detail::forward_sink<Out>>(output)),
                                     options);
    };
  }

  void on_start() {
    graph_ = make_();
    graph_->start(this->system().scheduler(), [self = this->self()](const std::string& failure) {
      spate::send(self, detail::graph_finished{failure});
    });
  }
  void on(In& item) {
    if (channel_->closed.load(std::memory_order_relaxed)) {
      throw std::logic_error("spate::flow graph actor: item sent after end_of_stream");
    }
    channel_->items.push(std::move(item));
    channel_->wake();
  }
  void on(end_of_stream&) {
    channel_->closed.store(true, std::memory_order_release);
    channel_->wake();
  }
  void on(detail::graph_finished& f) {
    if (f.failure.empty()) {
      this->quit();
      return;
    }
    this->system().report_error("spate::flow graph actor '" + this->name() + "': " + f.failure);
    this->quit(exit_reason{exit_code::unhandled_exception, f.failure});
  }
  // Drops the graph: its sink holds a handle to this actor, so keeping it would be a cycle.
  // Unfinished tasks keep the graph's state alive until they end (cancelled here).
  void on_stop() {
    if (graph_ && !graph_->finished()) graph_->cancel();
    graph_.reset();
    make_ = nullptr;
  }

 private:
  std::shared_ptr<detail::feed_channel<In>> channel_;
  std::function<std::unique_ptr<graph>()> make_;
  std::unique_ptr<graph> graph_;
};

// Spawns `stage` (In -> Out, neither a source nor a sink) as an actor on `system`'s pool.
template <class Stage>
auto spawn_graph(actor_system& system, Stage stage, spate::actor output,
                 graph_options options = {}) {
  auto s = as_stage(std::move(stage));
  using In = typename decltype(s)::input_type;
  static_assert(!std::is_void_v<In>, "spate::flow::spawn_graph: the graph must take input");
  return system.spawn<graph_actor<In>>(std::move(s), std::move(output), options);
}

}  // namespace spate::flow
