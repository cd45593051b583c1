#pragma once
// A flow graph's topology (flow::graph::topology()) as a picture: Graphviz DOT or Mermaid.
//
// Farm replicas ("splitter#0", "splitter#1") are drawn inside one box per farm; a fused
// farm shows as edges from every upstream replica straight into every replica, labelled
// with the routing policy and "(fused)"; routers and ordered farms' collectors appear as
// the nodes they are. With `collapse_replicas`, each farm is one node ("splitter ×2") and
// parallel edges between two farms one edge, for graphs too wide to read.
//
//   std::ofstream("wordcount.dot") << spate::observe::to_dot(job.topology(), "wordcount");
//   // dot -Tsvg wordcount.dot > wordcount.svg
#include <string>

#include "spate/flow/graph.hpp"
#include "spate/platform/export.hpp"

namespace spate::observe {

/// How a topology is drawn.
struct topology_picture_options {
  bool collapse_replicas = false;  ///< one node per farm, parallel edges merged
  bool show_counters = true;       ///< items in/out per node, queued items per edge
};

/// The topology as a Graphviz digraph titled `title`.
SPATE_API std::string to_dot(const flow::topology& topology, const std::string& title,
                   topology_picture_options options = {});
/// The topology as a Mermaid flowchart (GitHub renders it in Markdown).
SPATE_API std::string to_mermaid(const flow::topology& topology, topology_picture_options options = {});

}  // namespace spate::observe
