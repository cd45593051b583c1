#pragma once
// Collectors for spate's own models: each watch() registers one with a metrics registry
// and returns its registration (keep it alive while the subject lives; destroy it first).
//
// Metric names (Prometheus conventions: counters end in _total, times in seconds):
//   worker pool  spate_worker_{busy,idle}_seconds_total, spate_worker_{tasks,steals,parks,
//                wakeups}_total                               {pool, worker}
//   flow graph   spate_node_items_{in,out}_total, spate_node_activations_total,
//                spate_node_output_blocked_total, spate_node_queued_items,
//                spate_edge_queued_items {graph, node, kind}; spate_node_busy_seconds_total
//                only with graph_options::measure_busy_time (without it, it is not measured
//                and would read 0)
//   actors       spate_actor_messages_handled_total, spate_actor_mailbox_length {actor, id};
//                spate_actor_dead_letters_total, spate_actors_live
//   reactors     spate_reactor_tags_total, spate_reactor_reactions_executed_total,
//                spate_reactor_sparse_tags_total {program}
//   histogram    any latency_histogram the user records into, under its own name
//   io source    spate_input_malformed_records_total {source}: records an io::input_errors
//                counted and skipped
//   window       spate_window_late_tuples_total, spate_window_dropped_tuples_total,
//                spate_window_slab_pool_slabs, spate_window_slab_pool_bytes {pattern}: a
//                window::window_report given to a pattern in pattern_options
//
// Counters move when an activation ends (a batch of items or messages), so a snapshot may
// trail the work done by up to one batch per node replica or actor.
#include <memory>
#include <string>

#include "spate/observe/latency_histogram.hpp"
#include "spate/observe/metrics_registry.hpp"
#include "spate/platform/export.hpp"

namespace spate {
class worker_pool;
class actor_system;
namespace flow {
class graph;
}
namespace reactor {
class environment;
}
namespace io {
class input_errors;
}
namespace window {
struct window_report;
}
}  // namespace spate

namespace spate::observe {

/// A worker pool's workers: time busy and idle, tasks, steals, parks, wake-ups.
[[nodiscard]] SPATE_API metrics_registry::registration watch(metrics_registry& registry,
                                                             const worker_pool& pool,
                                                             std::string name = "default");
/// The graph's current (or last) run: restarting it is fine, destroying it is not.
[[nodiscard]] SPATE_API metrics_registry::registration watch(metrics_registry& registry,
                                                             const flow::graph& graph,
                                                             std::string name);
/// An actor system's live actors, their messages and mailboxes, and its dead letters.
[[nodiscard]] SPATE_API metrics_registry::registration watch(metrics_registry& registry,
                                                             const actor_system& system);
/// Assembles the program if it is not yet (call it from the thread that owns it).
[[nodiscard]] SPATE_API metrics_registry::registration watch(metrics_registry& registry,
                                                             reactor::environment& program,
                                                             std::string name);
/// A latency histogram of the user's (for instance source-to-sink time, recorded in a sink).
[[nodiscard]] SPATE_API metrics_registry::registration watch(metrics_registry& registry,
                                                             const latency_histogram& histogram,
                                                             std::string metric_name,
                                                             std::string help,
                                                             label_set labels = {});
/// The malformed records an io source counted and skipped (csv_source, the file and TCP
/// sources), labelled source="name". Keeps the count alive; throws std::invalid_argument
/// when it is null.
[[nodiscard]] SPATE_API metrics_registry::registration watch(
    metrics_registry& registry, std::shared_ptr<const io::input_errors> errors, std::string source);
/// A window pattern's report (window::pattern_options::report): its late and dropped
/// tuples, and the size of its emitters' slab pools, labelled pattern="name". Keeps the report
/// alive; throws std::invalid_argument when it is null.
[[nodiscard]] SPATE_API metrics_registry::registration watch(
    metrics_registry& registry, std::shared_ptr<const window::window_report> report,
    std::string pattern);

}  // namespace spate::observe
