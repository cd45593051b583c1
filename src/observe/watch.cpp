#include "spate/observe/watch.hpp"

#include <chrono>
#include <stdexcept>

#include "spate/actor/actor_system.hpp"
#include "spate/exec/worker_pool.hpp"
#include "spate/flow/graph.hpp"
#include "spate/io/input_errors.hpp"
#include "spate/reactor/environment.hpp"
#include "spate/window/pattern_options.hpp"

namespace spate::observe {

namespace {
double seconds(std::chrono::nanoseconds t) {
  return std::chrono::duration<double>(t).count();
}
}  // namespace

metrics_registry::registration watch(metrics_registry& registry, const worker_pool& pool,
                                     std::string name) {
  return registry.add([&pool, name = std::move(name)](metric_writer& out) {
    const auto stats = pool.stats();
    for (std::size_t i = 0; i < stats.size(); ++i) {
      const label_set labels{{"pool", name}, {"worker", std::to_string(i)}};
      const auto& s = stats[i];
      out.counter("spate_worker_busy_seconds_total", "Time a worker spent running tasks", labels,
                  seconds(s.busy));
      out.counter("spate_worker_idle_seconds_total",
                  "Time a worker spent searching for work or parked", labels, seconds(s.idle));
      out.counter("spate_worker_tasks_total", "Task activations a worker ran", labels,
                  static_cast<double>(s.tasks_run));
      out.counter("spate_worker_steals_total", "Tasks a worker took from another worker", labels,
                  static_cast<double>(s.steals));
      out.counter("spate_worker_parks_total", "Times a worker parked on its event", labels,
                  static_cast<double>(s.parks));
      out.counter("spate_worker_wakeups_total", "Parks ended by a notification", labels,
                  static_cast<double>(s.wakeups));
    }
  });
}

metrics_registry::registration watch(metrics_registry& registry, const flow::graph& graph,
                                     std::string name) {
  return registry.add([&graph, name = std::move(name)](metric_writer& out) {
    // Unmeasured busy time reads 0, which looks like an idle node: leave it out instead.
    const bool busy_measured = graph.options().measure_busy_time;
    const flow::topology t = graph.topology();
    for (const auto& n : t.nodes) {
      const label_set labels{{"graph", name}, {"node", n.name}, {"kind", n.kind}};
      out.counter("spate_node_items_in_total", "Items a node replica consumed", labels,
                  static_cast<double>(n.items_in));
      out.counter("spate_node_items_out_total", "Items a node replica sent", labels,
                  static_cast<double>(n.items_out));
      out.counter("spate_node_activations_total", "Activations of a node replica", labels,
                  static_cast<double>(n.activations));
      out.counter("spate_node_output_blocked_total",
                  "Times a node replica suspended on a full output edge", labels,
                  static_cast<double>(n.output_blocked));
      if (busy_measured) {
        out.counter("spate_node_busy_seconds_total",
                    "Time a node replica spent in activations (graph_options::measure_busy_time)",
                    labels, seconds(n.busy));
      }
      out.gauge("spate_node_queued_items", "Items waiting in a node replica's input edges", labels,
                static_cast<double>(n.queued));
    }
    for (const auto& e : t.edges) {
      if (e.capacity == 0) continue;  // chained nodes: a call, no queue
      out.gauge("spate_edge_queued_items", "Items waiting in one edge",
                {{"graph", name}, {"from", t.nodes[e.from].name}, {"to", t.nodes[e.to].name}},
                static_cast<double>(e.queued));
    }
  });
}

metrics_registry::registration watch(metrics_registry& registry, const actor_system& system) {
  return registry.add([&system](metric_writer& out) {
    const auto actors = system.live_actors();
    out.gauge("spate_actors_live", "Live actors (the system's own hidden ones excepted)", {},
              static_cast<double>(actors.size()));
    out.counter("spate_actor_dead_letters_total", "Messages sent to terminated actors", {},
                static_cast<double>(system.dead_letters()));
    for (const auto& a : actors) {
      const label_set labels{{"actor", a.get()->name()}, {"id", std::to_string(a.get()->id())}};
      out.counter("spate_actor_messages_handled_total", "Mailbox messages an actor handled", labels,
                  static_cast<double>(a.get()->messages_handled()));
      out.gauge("spate_actor_mailbox_length", "Messages waiting in an actor's mailbox", labels,
                static_cast<double>(a.get()->mailbox_size()));
    }
  });
}

metrics_registry::registration watch(metrics_registry& registry, reactor::environment& program,
                                     std::string name) {
  program.assemble();
  return registry.add([&program, name = std::move(name)](metric_writer& out) {
    const label_set labels{{"program", name}};
    out.counter("spate_reactor_tags_total", "Tags whose reactions have all run", labels,
                static_cast<double>(program.tags_completed()));
    out.counter("spate_reactor_reactions_executed_total", "Reactions run", labels,
                static_cast<double>(program.reactions_executed()));
    out.counter("spate_reactor_sparse_tags_total",
                "Tags that looked only at their triggered reactions", labels,
                static_cast<double>(program.sparse_tags_completed()));
  });
}

metrics_registry::registration watch(metrics_registry& registry, const latency_histogram& histogram,
                                     std::string metric_name, std::string help, label_set labels) {
  return registry.add([&histogram, metric_name = std::move(metric_name), help = std::move(help),
                       labels = std::move(labels)](metric_writer& out) {
    out.histogram(metric_name, help, labels, histogram);
  });
}

metrics_registry::registration watch(metrics_registry& registry,
                                     std::shared_ptr<const io::input_errors> errors,
                                     std::string source) {
  if (!errors) throw std::invalid_argument("spate::observe::watch: input_errors must not be null");
  return registry.add([errors = std::move(errors), source = std::move(source)](metric_writer& out) {
    out.counter("spate_input_malformed_records_total",
                "Malformed input records counted and skipped by an io source", {{"source", source}},
                static_cast<double>(errors->count()));
  });
}

metrics_registry::registration watch(metrics_registry& registry,
                                     std::shared_ptr<const window::window_report> report,
                                     std::string pattern) {
  if (!report) throw std::invalid_argument("spate::observe::watch: window_report must not be null");
  return registry.add(
      [report = std::move(report), pattern = std::move(pattern)](metric_writer& out) {
        const label_set labels{{"pattern", pattern}};
        out.counter("spate_window_late_tuples_total",
                    "Tuples that arrived after at least one of their windows fired", labels,
                    static_cast<double>(report->late_tuples.load(std::memory_order_relaxed)));
        out.counter("spate_window_dropped_tuples_total",
                    "Late tuples that arrived after all of their windows fired, so in no window",
                    labels,
                    static_cast<double>(report->dropped_tuples.load(std::memory_order_relaxed)));
        out.gauge("spate_window_slab_pool_slabs",
                  "Slabs the window emitters' slab pools hold (tuple_memory::slab)", labels,
                  static_cast<double>(report->pool_slabs.load(std::memory_order_relaxed)));
        out.gauge("spate_window_slab_pool_bytes", "Bytes the window emitters' slab pools hold",
                  labels, static_cast<double>(report->pool_bytes.load(std::memory_order_relaxed)));
      });
}

}  // namespace spate::observe
