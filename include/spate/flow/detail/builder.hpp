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
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/exec/dedicated_thread.hpp"
#include "spate/exec/worker_pool.hpp"
#include "spate/flow/detail/chain_node.hpp"
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

// Two adjacent stages of a pipeline that run as one task (chain_node.hpp): both single
// nodes that a chain can carry, not a source and a sink at once.
template <class A, class B>
struct chains_with : std::false_type {};
template <class NA, class NB>
struct chains_with<node_stage<NA>, node_stage<NB>>
    : std::bool_constant<chainable_node<NA> && chainable_node<NB> &&
                         !(std::is_void_v<typename NA::input_type> &&
                           std::is_void_v<typename NB::output_type>)> {};

// The stage that runs `b` chained after `a`, placed where `a` runs. `b` cannot ask for a
// place of its own.
template <class NA, class NB>
node_stage<chain_node<NA, NB>> chain_stages(const node_stage<NA>& a, const node_stage<NB>& b) {
  if (b.options.dedicated_thread || b.options.input_links) {
    throw std::invalid_argument(
        "spate::flow: stage '" + b.options.name + "' is chained to '" + a.options.name +
        "' (one task, no link between them), so its " +
        (b.options.dedicated_thread ? "dedicated thread" : "input links") +
        " cannot apply: keep this stage apart with flow::unchained(stage) (its "
        "on_dedicated_thread() and with_input_links() do so)");
  }
  // Named after its first member: the task's counters are that member's (node_stats).
  return node_stage<chain_node<NA, NB>>{
      [make_a = a.make, make_b = b.make, a_name = a.options.name, b_name = b.options.name] {
        return chain_node<NA, NB>(make_a(), make_b(), a_name, b_name);
      },
      a.options};
}

// A pipeline's stages with every run of chainable neighbours folded into one chain stage,
// left to right: (a, b, c) -> (chain(chain(a, b), c)) when all three chain.
// Whether any two neighbours of S... chain: when none do, the stages stay as they are (a
// pipeline of 64 unchained stages would otherwise be rebuilt 64 times over).
template <class... S>
struct any_chain : std::false_type {};
template <class A, class B, class... Rest>
struct any_chain<A, B, Rest...>
    : std::bool_constant<chains_with<A, B>::value || any_chain<B, Rest...>::value> {};

template <class Last>
auto fold_chains(const Last& last) {
  return std::tuple<Last>(last);
}
template <class Last, class Next, class... Rest>
auto fold_chains(const Last& last, const Next& next, const Rest&... rest) {
  if constexpr (chains_with<Last, Next>::value) {
    return fold_chains(chain_stages(last, next), rest...);
  } else {
    return std::tuple_cat(std::tuple<Last>(last), fold_chains(next, rest...));
  }
}

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
    if constexpr (requires { N::member_count; }) {
      name_chain(*task, stats.name, stage.options.name.size());
    }
    return task;
  }

  // A chain's members (chain_node.hpp) each keep their own name and counters, as if they ran
  // alone; the task's own counters are its first member's. `suffix_at`: where the replica's
  // suffix ("#2") starts in the task's name.
  template <class Task>
  void name_chain(Task& task, const std::string& task_name, std::size_t suffix_at) {
    auto& chain = task.node();
    chain.name_replica(task_name.substr(suffix_at));
    std::vector<std::string> names;
    chain.member_names(names);
    std::vector<node_stats*> members{&task.stats()};
    task.stats().chain = task_name;
    for (std::size_t k = 1; k < names.size(); ++k) {
      const bool last = k + 1 == names.size();
      auto& s = state_.add_stats(names[k],
                                 last && std::is_void_v<typename Task::out_type> ? "sink" : "node");
      s.chain = task_name;
      s.chained_after = members.back();
      members.push_back(&s);
    }
    if (task.stats().kind == "sink") task.stats().kind = "node";  // its last member sinks
    task.set_sending_stats(members.back());
    task.set_chain_members(std::move(members));
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

  // ---- a pipeline: stages in order, each connected to the next; runs of chainable
  // neighbours run as one task each (chain_node.hpp)
  template <class... S>
  auto instantiate(const pipeline_stage<S...>& p, bool has_upstream, const std::string& suffix,
                   std::size_t replica = 0, std::size_t replicas = 1) {
    if constexpr (!any_chain<S...>::value) {
      return in_sequence<0>(p.stages, has_upstream, suffix, replica, replicas);
    } else {
      const auto stages = std::apply([](const auto&... s) { return fold_chains(s...); }, p.stages);
      return in_sequence<0>(stages, has_upstream, suffix, replica, replicas);
    }
  }

  // `has_upstream`: a stage inside the graph feeds the first one (its exits can route).
  // `replica`/`replicas`: the position of this whole pipeline when it is a farm worker.
  template <std::size_t I, class Tuple>
  auto in_sequence(const Tuple& stages, bool has_upstream, const std::string& suffix,
                   std::size_t replica, std::size_t replicas) {
    auto first = instantiate(std::get<I>(stages), has_upstream, suffix, replica, replicas);
    if constexpr (I + 1 == std::tuple_size_v<Tuple>) {
      return first;
    } else {
      auto rest = in_sequence<I + 1>(stages, true, suffix, replica, replicas);
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
      if (!std::is_void_v<In> && replicas.back().entry.points.size() != 1) {
        throw std::invalid_argument(
            "spate::flow::farm: a worker must start with a single node (its first stage is a "
            "farm); put a node in front of the inner farm");
      }
    }
    if constexpr (std::is_void_v<In>) {
      // A parallel source: nothing to route; the replicas' outputs merge downstream.
      fragment<In, Out> f;
      for (auto& r : replicas) {
        for (auto& x : r.exits) f.exits.push_back(std::move(x));
      }
      return f;
    } else {
      return fan_out(farm, has_upstream, suffix, std::move(replicas));
    }
  }

  // A plain farm's entry: its policy, applied by the stage in front (fused) or by a router.
  template <class W, class P, class In, class Out>
  auto fan_out(const farm_stage<W, P>& farm, bool has_upstream, const std::string& suffix,
               std::vector<fragment<In, Out>> replicas) {
    fragment<In, Out> f;
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
