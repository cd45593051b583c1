#pragma once
// The graph builder: turns stage descriptors into node tasks (on the pool or on dedicated
// threads) and wires them with bounded SPSC edges, routers and collectors.
//
// Farm fusion (the high-throughput-actors paper, Sect. 4, "Pipeline compositions of
// Farms"): when a farm follows a farm, no router exists between them; each upstream replica
// routes directly into the downstream replicas' queues with the downstream policy. The
// paper keeps the first farm's router because actors outside the pattern send to it. In a
// spate graph the stream always enters through a node (a source, or a graph actor's feed
// source), and that node routes just as a farm replica does: with fusion on, a plain farm
// has no router at all. Broadcast and ordered farms always keep theirs (the router makes
// the shared copy / the numbering).
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/exec/dedicated_thread.hpp"
#include "spate/exec/worker_pool.hpp"
#include "spate/flow/detail/graph_state.hpp"
#include "spate/flow/detail/node_task.hpp"
#include "spate/flow/graph_options.hpp"
#include "spate/flow/stages.hpp"

namespace spate::flow {

namespace detail {

struct none {};  // stands for `void` in wiring types
template <class T>
using wire_t = std::conditional_t<std::is_void_v<T>, none, T>;

template <class T>
struct entry_point {
  node_task_base* task;
  link_options links;  // for the links into `task` (its stage's, or the graph's)
  std::function<void(link<T>*)> attach;
};
template <class T>
struct fragment_entry {
  std::vector<entry_point<T>> points;
  std::function<std::unique_ptr<output_port<T>>(std::vector<link<T>*>, std::size_t)> make_port;
  std::string route;  // the label of the edges make_port routes (graph_state::edge::route)
};
template <class T>
struct exit_point {
  node_task_base* task;
  std::function<void(std::unique_ptr<output_port<T>>)> attach;
};
template <class In, class Out>
struct fragment {
  fragment_entry<wire_t<In>> entry;
  std::vector<exit_point<wire_t<Out>>> exits;
};

template <class T>
auto single_port_factory() {
  return [](std::vector<link<T>*> edges, std::size_t seed) -> std::unique_ptr<output_port<T>> {
    return std::make_unique<routing_port<T, round_robin>>(std::move(edges), round_robin{}, seed);
  };
}

// Identity node that applies a farm's policy in its output port.
template <class T>
struct router_node : node<T, T> {
  T apply(T& item) { return std::move(item); }  // one-to-one: batches pass straight through
  void consume(T& item) { this->send_next(apply(item)); }
};

// A by_key farm (policy P) whose worker (W) is one node with keyed state.
template <class W, class P>
concept keyed_farm_worker = requires(const P& p) { p.key; } && requires {
  typename W::node_type;
} && state::keyed_node<typename W::node_type>;

class builder {
 public:
  // `start_thread` gives a node on a dedicated thread its thread (the graph takes it from
  // its runtime, which owns it).
  using thread_starter = std::function<executor&(std::optional<std::size_t> cpu)>;
  builder(graph_state& state, worker_pool& pool, const graph_options& options,
          thread_starter start_thread)
      : state_(state), pool_(pool), options_(options), start_thread_(std::move(start_thread)) {
    state_.set_pool(&pool_);
  }

  template <class Stage>
  auto build(const Stage& stage) {
    return instantiate(stage, false, "");
  }

  template <class T>
  void connect(std::vector<exit_point<T>>& exits, fragment_entry<T>& entry) {
    for (auto& x : exits) {
      std::vector<link<T>*> edges;
      for (auto& p : entry.points) {
        auto* e = state_.add_edge<T>(p.links, x.task, p.task,
                                     entry.points.size() > 1 ? entry.route : std::string());
        p.attach(e);
        edges.push_back(e);
      }
      x.attach(entry.make_port(std::move(edges), seed_++));
    }
  }

 private:
  // `key`: the by_key function of the farm whose worker the node is, for keyed state.
  template <class N, class Mode, class KeyFn = void>
  node_task<N, Mode, KeyFn>* add_node(const node_stage<N>& stage, std::string name,
                                      const char* kind, std::size_t replica, std::size_t replicas,
                                      const KeyFn* key = nullptr) {
    auto& stats = state_.add_stats(std::move(name), kind);
    executor* runs_on = &pool_;
    if (stage.options.dedicated_thread) runs_on = &start_thread_(stage.options.pin_to_cpu);
    auto* task =
        adopt(std::make_unique<node_task<N, Mode, KeyFn>>(stage.make(), stats, replica, replicas,
                                                          key, options_.keyed_state_backend.get()),
              *runs_on);
    task->set_dedicated_thread(stage.options.dedicated_thread);
    return task;
  }

  // Gives a new task its executor and the graph's options, and hands it to the graph.
  template <class Task>
  Task* adopt(std::unique_ptr<Task> task, executor& runs_on) {
    Task* raw = task.get();
    raw->set_executor(&runs_on);
    raw->set_items_per_activation(options_.items_per_activation);
    raw->set_measure_busy_time(options_.measure_busy_time);
    state_.add_task(std::move(task));
    return raw;
  }

  // by_key farms route by key group when checkpoints are on (state/key_groups.hpp), so
  // keyed state may be restored onto another replica count; 0: by hash modulo replicas.
  std::uint32_t routing_key_groups() const noexcept {
    return options_.checkpoints ? options_.checkpoints->key_groups : 0;
  }

  // The links into a stage's nodes: its own options, or the graph's.
  link_options links_into(const stage_options& stage) const {
    return stage.input_links.value_or(options_.links);
  }

  static const char* kind_of(bool source, bool sink) {
    return source ? "source" : sink ? "sink" : "node";
  }

  // ---- a single node
  template <class N, class Mode = plain_input, class KeyFn = void>
  auto instantiate_node(const node_stage<N>& stage, const std::string& suffix,
                        std::size_t replica = 0, std::size_t replicas = 1,
                        const KeyFn* key = nullptr) {
    using In = typename N::input_type;
    using Out = typename N::output_type;
    auto* task = add_node<N, Mode, KeyFn>(stage, stage.options.name + suffix,
                                          kind_of(std::is_void_v<In>, std::is_void_v<Out>), replica,
                                          replicas, key);
    fragment<In, Out> f;
    if constexpr (!std::is_void_v<In>) {
      using element = typename node_task<N, Mode, KeyFn>::element;
      if constexpr (std::is_same_v<Mode, plain_input>) {
        f.entry.points.push_back(
            {task, links_into(stage.options), [task](link<element>* e) { task->add_input(e); }});
        f.entry.make_port = single_port_factory<In>();
      }
    }
    if constexpr (!std::is_void_v<Out>) {
      f.exits.push_back(
          {task, [task](std::unique_ptr<output_port<Out>> p) { task->set_output(std::move(p)); }});
    }
    return std::make_pair(f, task);
  }

  template <class N>
  auto instantiate(const node_stage<N>& stage, bool, const std::string& suffix,
                   std::size_t replica = 0, std::size_t replicas = 1) {
    return instantiate_node(stage, suffix, replica, replicas).first;
  }

  // ---- a pipeline: stages in order, each connected to the next
  template <class... S>
  auto instantiate(const pipeline_stage<S...>& p, bool has_upstream, const std::string& suffix,
                   std::size_t replica = 0, std::size_t replicas = 1) {
    return chain<0>(p.stages, has_upstream, suffix, replica, replicas);
  }

  // `has_upstream`: a stage inside the graph feeds the first one (its exits can route).
  // `replica`/`replicas`: the position of this whole pipeline when it is a farm worker.
  template <std::size_t I, class Tuple>
  auto chain(const Tuple& stages, bool has_upstream, const std::string& suffix, std::size_t replica,
             std::size_t replicas) {
    auto first = instantiate(std::get<I>(stages), has_upstream, suffix, replica, replicas);
    if constexpr (I + 1 == std::tuple_size_v<Tuple>) {
      return first;
    } else {
      auto rest = chain<I + 1>(stages, true, suffix, replica, replicas);
      connect(first.exits, rest.entry);
      using In = typename std::tuple_element_t<0, Tuple>::input_type;
      using Out = typename std::tuple_element_t<std::tuple_size_v<Tuple> - 1, Tuple>::output_type;
      if constexpr (I == 0) {
        fragment<In, Out> whole;
        whole.entry = std::move(first.entry);
        whole.exits = std::move(rest.exits);
        return whole;
      } else {
        using MidIn = typename std::tuple_element_t<I, Tuple>::input_type;
        fragment<MidIn, Out> whole;
        whole.entry = std::move(first.entry);
        whole.exits = std::move(rest.exits);
        return whole;
      }
    }
  }

  // ---- a farm
  template <class W, class P>
  auto instantiate(const farm_stage<W, P>& farm, bool has_upstream, const std::string& suffix,
                   std::size_t = 0, std::size_t = 1) {
    if constexpr (is_broadcast_v<P>) {
      return instantiate_routed_special(farm, suffix);
    } else {
      if (farm.ordered) {
        if constexpr (keyed_farm_worker<W, P>) {
          throw std::invalid_argument("spate::flow::ordered_farm '" + farm.name +
                                      "': a node with keyed state needs a plain by_key farm");
        } else if constexpr (requires { typename W::node_type; }) {
          return instantiate_routed_special(farm, suffix);
        } else {
          throw std::invalid_argument(
              "spate::flow::ordered_farm: the worker must be a single node");
        }
      }
      return instantiate_plain_farm(farm, has_upstream, suffix);
    }
  }

  template <class W, class P>
  auto instantiate_plain_farm(const farm_stage<W, P>& farm, bool has_upstream,
                              const std::string& suffix) {
    using In = typename W::input_type;
    using Out = typename W::output_type;
    const std::size_t n = farm.replicas;
    fragment<In, Out> f;
    std::vector<fragment<In, Out>> replicas;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string replica_suffix = suffix + "#" + std::to_string(i);
      if constexpr (keyed_farm_worker<W, P>) {
        // The farm's key is the state key of its node (state/keyed.hpp).
        replicas.push_back(instantiate_node<typename W::node_type, plain_input>(
                               farm.worker, replica_suffix, i, n, &farm.policy.key)
                               .first);
      } else {
        replicas.push_back(instantiate(farm.worker, false, replica_suffix, i, n));
      }
      if (replicas.back().entry.points.size() != 1) {
        throw std::invalid_argument(
            "spate::flow::farm: a worker must start with a single node (its first stage is a "
            "farm); put a node in front of the inner farm");
      }
    }
    fragment_entry<In> fanout;
    for (auto& r : replicas) fanout.points.push_back(std::move(r.entry.points.front()));
    fanout.make_port = [policy = farm.policy, groups = routing_key_groups()](
                           std::vector<link<In>*> edges,
                           std::size_t seed) -> std::unique_ptr<output_port<In>> {
      auto port = std::make_unique<routing_port<In, P>>(std::move(edges), policy, seed);
      port->route_by_key_group(groups);
      return port;
    };
    fanout.route = policy_name<P>();
    if (has_upstream && options_.fuse_farms) {
      fanout.route += " (fused)";
      f.entry = std::move(fanout);  // fused: the upstream stage's exits route directly
    } else {
      auto [router, task] = instantiate_node(
          node_stage<router_node<In>>{[] { return router_node<In>{}; }, named_options("router")},
          "(" + farm.name + suffix + ")");
      task->stats().kind = "router";
      connect(router.exits, fanout);
      f.entry = std::move(router.entry);
    }
    for (auto& r : replicas) {
      for (auto& x : r.exits) f.exits.push_back(std::move(x));
    }
    return f;
  }

  // Broadcast and ordered farms: router -> replicas (-> collector when ordered).
  template <class W, class P>
  auto instantiate_routed_special(const farm_stage<W, P>& farm, const std::string& suffix) {
    using In = typename W::input_type;
    using Out = typename W::output_type;
    static_assert(
        requires { typename W::node_type; },
        "spate::flow: workers of broadcast and ordered farms must be single nodes");
    using N = typename W::node_type;
    const std::size_t n = farm.replicas;
    fragment<In, Out> f;
    auto [router, router_task] = instantiate_node(
        node_stage<router_node<In>>{[] { return router_node<In>{}; }, named_options("router")},
        "(" + farm.name + suffix + ")");
    router_task->stats().kind = "router";
    f.entry = std::move(router.entry);

    if constexpr (is_broadcast_v<P>) {
      using element = std::shared_ptr<const In>;
      std::vector<link<element>*> edges;
      for (std::size_t i = 0; i < n; ++i) {
        auto [replica, task] =
            instantiate_node<N, shared_input>(farm.worker, suffix + "#" + std::to_string(i), i, n);
        auto* e = state_.add_edge<element>(links_into(farm.worker.options), router_task, task,
                                           "broadcast");
        task->add_input(e);
        edges.push_back(e);
        for (auto& x : replica.exits) f.exits.push_back(std::move(x));
      }
      router_task->set_output(std::make_unique<broadcast_port<In>>(std::move(edges)));
    } else {
      using element = sequenced<In>;
      using out_element = sequenced<Out>;
      auto& collector_stats =
          state_.add_stats("collector(" + farm.name + suffix + ")", "collector");
      auto* collector_raw = adopt(std::make_unique<collector_task<Out>>(collector_stats), pool_);
      std::vector<link<element>*> edges;
      for (std::size_t i = 0; i < n; ++i) {
        auto [replica, task] = instantiate_node<N, sequenced_input>(
            farm.worker, suffix + "#" + std::to_string(i), i, n);
        auto* in = state_.add_edge<element>(links_into(farm.worker.options), router_task, task,
                                            std::string(policy_name<P>()) + " (ordered)");
        task->add_input(in);
        edges.push_back(in);
        auto* out = state_.add_edge<out_element>(options_.links, task, collector_raw, "");
        collector_raw->add_input(out);
        task->set_output(std::make_unique<tagging_port<Out>>(out));
      }
      auto port = std::make_unique<sequencing_port<In, P>>(std::move(edges), farm.policy, seed_++);
      port->route_by_key_group(routing_key_groups());
      router_task->set_output(std::move(port));
      f.exits.push_back({collector_raw, [collector_raw](std::unique_ptr<output_port<Out>> p) {
                           collector_raw->set_output(std::move(p));
                         }});
    }
    return f;
  }

  graph_state& state_;
  worker_pool& pool_;
  const graph_options& options_;
  thread_starter start_thread_;
  std::size_t seed_ = 1;
};

}  // namespace detail

}  // namespace spate::flow
