// pipeline3, prodcons, latency_chain, farm_chain and nodes_vs_cores with spate's streaming
// layer (impl "spate"): typed nodes as tasks on the shared pool, bounded SPSC edges.
#include <memory>
#include <utility>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#include "shapes.hpp"
#include "spate/flow.hpp"
#include "spate/interop/graph_actor.hpp"

namespace spate_bench {
namespace {

namespace flow = spate::flow;

// How the pool spent the run: activations, steals, parks and idle time over all workers
// (what tells a scheduling problem from a slow operator).
void add_pool_metrics(json& m, const spate::worker_pool& pool) {
  std::uint64_t tasks = 0, steals = 0, parks = 0;
  double idle_ms = 0;
  for (const auto& w : pool.stats()) {
    tasks += w.tasks_run;
    steals += w.steals;
    parks += w.parks;
    idle_ms += double(w.idle.count()) / 1e6;
  }
  m["activations"] = tasks;
  m["steals"] = steals;
  m["parks"] = parks;
  m["idle_ms"] = idle_ms;
}

// --capacity and --batch: graph_options::links.capacity and items_per_activation.
flow::graph_options graph_options_of(const bench_params& p) {
  flow::graph_options options;
  options.links.capacity = static_cast<std::size_t>(p.integer("capacity"));
  options.items_per_activation = static_cast<std::size_t>(p.integer("batch"));
  return options;
}

template <class T>
auto forwarder() {
  // A task of its own (not chained to its neighbours): these benchmarks measure the hops
  // between tasks, as CAF's measure those between actors.
  return flow::unchained(flow::map([](T& item) { return std::move(item); }));
}

json pipeline3(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  spate::runtime rt(spate_runtime_config(p));
  std::uint64_t checksum = 0;
  flow::graph g(flow::pipeline(flow::generate<tuple24>(n,
                                                       [](std::size_t i) {
                                                         return tuple24{i, i * 3, i};
                                                       }),
                               forwarder<tuple24>(),
                               flow::sink([&](tuple24& t) { checksum += t.value; })));
  json m;
  timed_run(m, [&] { g.run(rt); });
  if (checksum != tuple24_checksum(n)) throw std::runtime_error("pipeline3: wrong checksum");
  add_items_per_s(m, n);
  return m;
}

json prodcons(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  spate::runtime rt(spate_runtime_config(p));
  std::uint64_t checksum = 0;
  flow::graph g(flow::pipeline(
      flow::generate<std::uint32_t>(n, [](std::size_t i) { return std::uint32_t(i); }),
      flow::sink([&](std::uint32_t& x) { checksum += x; })));
  json m;
  timed_run(m, [&] { g.run(rt); });
  if (checksum != word_checksum(n)) throw std::runtime_error("prodcons: wrong checksum");
  add_ns_per_msg(m, n);
  add_items_per_s(m, n);
  return m;
}

// A forwarder written as a user-defined node: consume() and send_next() per item, where
// flow::map (forwarder) lets the runtime move whole batches. nodes_vs_cores measures both.
template <class T>
struct forwarding_node : flow::node<T, T> {
  void consume(T& item) { this->send_next(std::move(item)); }
};

// A chain of forwarding nodes between a source and a sink (compile-time length).
template <class Forwarder = decltype(forwarder<stamp>()), class Source, class Sink,
          std::size_t... I>
auto forwarding_chain(Source source, Sink sink, std::index_sequence<I...>,
                      Forwarder forward = forwarder<stamp>()) {
  return flow::pipeline(std::move(source), ((void)I, forward)..., std::move(sink));
}

// latency_chain: an external thread feeds the graph's source at a fixed rate (through the
// same feed channel graph actors use); 11 forwarders and the recording sink make 12 stages.
json latency_chain(const bench_params& p) {
  const auto stages = p.integer("stages");
  const double rate = p.number("rate");
  const double seconds = p.number("seconds");
  if (stages != 12) throw usage_error("latency_chain --impl spate supports --stages=12");
  if (rate <= 0) throw usage_error("latency_chain needs rate > 0");
  spate::runtime rt(spate_runtime_config(p));
  // The generator thread is the link's producer (a waiter); every stamp wakes the source.
  spate::waiter room;
  auto input = std::make_shared<spate::link<stamp>>(
      spate::link_options{.capacity = std::size_t(1) << 16, .notify_batch = 1}, &room);
  std::vector<std::int64_t> samples;
  samples.reserve(std::size_t(rate * seconds) + 16);
  flow::graph g(
      forwarding_chain(flow::make_stage<flow::link_source<stamp>>(input),
                       flow::sink([&](stamp& s) { samples.push_back(now_ns() - s.sent_ns); }),
                       std::make_index_sequence<11>{}));
  json m;
  timed_run(m, [&] {
    g.start(rt);
    paced_sends(rate, seconds, [&](std::int64_t sent) {
      input->push_waiting_for_room(stamp{sent}, [] { return false; });
    });
    input->close();
    g.wait();
  });
  add_latency_metrics(m, std::move(samples), latency_warmup_fraction);
  return m;
}

json farm_chain(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  const auto replicas = static_cast<std::size_t>(p.integer("replicas"));
  if (replicas == 0) throw usage_error("farm_chain needs --replicas >= 1");
  spate::runtime rt(spate_runtime_config(p));
  auto options = graph_options_of(p);
  options.fuse_farms = p.flag("fused");
  options.measure_busy_time = p.flag("busy");
  std::uint64_t checksum = 0;
  flow::graph g(flow::pipeline(flow::generate<tuple24>(n,
                                                       [](std::size_t i) {
                                                         return tuple24{i, i * 3, i};
                                                       }),
                               flow::farm(forwarder<tuple24>(), replicas),
                               flow::farm(forwarder<tuple24>(), replicas),
                               flow::farm(forwarder<tuple24>(), replicas),
                               flow::sink([&](tuple24& t) { checksum += t.value; })),
                options);
  json m;
  timed_run(m, [&] { g.run(rt); });
  if (checksum != tuple24_checksum(n)) throw std::runtime_error("farm_chain: wrong checksum");
  add_items_per_s(m, n);
  add_pool_metrics(m, rt.pool());
  const auto nodes = g.nodes();
  std::size_t routers = 0;
  for (const auto& node : nodes) routers += node.kind == "router" ? 1 : 0;
  m["routers"] = routers;
  if (options.measure_busy_time) {
    // Per node, in graph order, ms in activations (--busy=true): where the workers' time went.
    json busy = json::array();
    for (const auto& node : nodes) busy.push_back({node.name, double(node.busy.count()) / 1e6});
    m["busy_ms"] = busy;
  }
  return m;
}

template <std::size_t Nodes, class Forwarder>
json nodes_vs_cores_with(const bench_params& p, Forwarder forward) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  spate::runtime rt(spate_runtime_config(p));
  std::vector<std::int64_t> samples;
  samples.reserve(n / 16 + 1);
  std::uint64_t received = 0;
  const auto options = graph_options_of(p);
  flow::graph g(
      // Every 16th item is timed (reading the clock costs ~29 ns here, as much as the
      // whole chain per item); a pipeline keeps order, so the sink's 16th is the source's.
      forwarding_chain(flow::generate<stamp>(
                           n, [](std::size_t i) { return stamp{(i & 15) == 0 ? now_ns() : 0}; }),
                       flow::sink([&](stamp& s) {
                         if ((received++ & 15) == 0) {
                           if (s.sent_ns == 0)
                             throw std::runtime_error("nodes_vs_cores: reordered");
                           samples.push_back(now_ns() - s.sent_ns);
                         }
                       }),
                       std::make_index_sequence<Nodes - 2>{}, forward),
      options);
  json m;
  timed_run(m, [&] { g.run(rt); });
  if (received != n) throw std::runtime_error("nodes_vs_cores: lost items");
  add_items_per_s(m, n);
  add_latency_metrics(m, std::move(samples));
  add_pool_metrics(m, rt.pool());
  return m;
}

template <class Forwarder>
json nodes_vs_cores_of(const bench_params& p, Forwarder forward) {
  switch (p.integer("nodes")) {
    case 8:
      return nodes_vs_cores_with<8>(p, forward);
    case 16:
      return nodes_vs_cores_with<16>(p, forward);
    case 32:
      return nodes_vs_cores_with<32>(p, forward);
    case 64:
      return nodes_vs_cores_with<64>(p, forward);
    default:
      throw usage_error("nodes_vs_cores: --nodes must be 8, 16, 32 or 64");
  }
}

json nodes_vs_cores(const bench_params& p) {
  const std::string kind = p.text("forwarder");
  if (kind == "map") return nodes_vs_cores_of(p, forwarder<stamp>());
  if (kind == "node") {
    return nodes_vs_cores_of(p, flow::unchained(flow::make_stage<forwarding_node<stamp>>()));
  }
  throw usage_error("nodes_vs_cores: --forwarder must be map or node");
}

}  // namespace

void register_spate_flow_impls(bench_registry& r) {
  r.implement("pipeline3", "spate", pipeline3);
  r.implement("prodcons", "spate", prodcons);
  r.implement("latency_chain", "spate", latency_chain);
  r.implement("farm_chain", "spate", farm_chain);
  r.implement("nodes_vs_cores", "spate", nodes_vs_cores);
}

}  // namespace spate_bench
