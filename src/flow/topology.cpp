#include <chrono>
#include <unordered_map>

#include "spate/flow/detail/node_task_base.hpp"
#include "spate/flow/graph.hpp"

namespace spate::flow::detail {

// Reads only what is fixed once the graph is built (names, edges) and atomics (counters,
// queue sizes), so it may run on any thread while the graph runs.
flow::topology read_topology(const graph_state& state) {
  flow::topology result;
  std::unordered_map<const node_stats*, std::size_t> index;
  for (const auto& s : state.stats()) {
    index.emplace(s.get(), result.nodes.size());
    result.nodes.push_back({s->name, s->kind, s->items_in.load(std::memory_order_relaxed),
                            s->items_out.load(std::memory_order_relaxed),
                            s->activations.load(std::memory_order_relaxed),
                            s->output_blocked.load(std::memory_order_relaxed),
                            std::chrono::nanoseconds{s->busy_ns.load(std::memory_order_relaxed)}, 0,
                            s->chain});
  }
  // A chain's members are joined by function calls, not links: an edge of capacity 0.
  for (const auto& s : state.stats()) {
    if (s->chained_after != nullptr) {
      result.edges.push_back({index.at(s->chained_after), index.at(s.get()), 0, 0, "chained"});
    }
  }
  for (const auto& e : state.edges()) {
    const std::size_t from = index.at(&e.producer->sending_stats());
    const std::size_t to = index.at(&e.consumer->stats());
    const std::size_t queued = e.link->size_approx();
    result.nodes[to].queued += queued;
    result.edges.push_back({from, to, e.link->capacity(), queued, e.route});
  }
  return result;
}

}  // namespace spate::flow::detail
