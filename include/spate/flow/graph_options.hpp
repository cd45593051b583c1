#pragma once
// How a graph runs: edge links, batching, fusion, measurements, stall reports, checkpoints
// and where keyed state lives.
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>

#include "spate/exec/link.hpp"
#include "spate/flow/checkpoints.hpp"
#include "spate/state/row_table.hpp"

namespace spate::flow {

/// How a graph runs (flow::graph's second argument).
struct graph_options {
  /// Every edge's link: capacity (items, rounded up to a power of two), the level at which a
  /// producer blocked on a full edge resumes, and the items per consumer wake-up. A stage's
  /// stage_options::input_links overrides it for the edges into that stage.
  link_options links{};
  /// Plain farms get no router stage: the stage in front applies the farm's policy (farm
  /// fusion, flow/detail/builder.hpp). false: every farm has a router (the paper's unfused
  /// skeleton, for comparisons).
  bool fuse_farms = true;
  /// Items a node handles per activation before it yields its worker; 0 uses the pool's
  /// task_budget (which is sized for actor messages). Stream items are cheap, and each
  /// activation costs scheduling and wake-ups, so nodes work in larger batches: with 64,
  /// a farm_chain spent most of its time activating tasks, 16 items at a time.
  std::size_t items_per_activation = 1024;
  /// Times every activation (two clock reads each) and reports it as node_info::busy: the
  /// node whose replicas are busy all the time is the one that limits the graph.
  bool measure_busy_time = false;
  /// A run() or wait() that sees no progress (no item in or out, no activation, anywhere in
  /// the graph) for this long logs every task's state (a warning, spate/log/log.hpp), once per
  /// stall, to diagnose a stuck job. Zero: never. Counters move when an activation ends, so one
  /// activation that runs longer than this (up to items_per_activation slow items) counts
  /// as a stall too; the report shows which task was running.
  std::chrono::milliseconds stall_report_after = std::chrono::seconds(30);
  /// Consistent checkpoints of every node's state and every source's position, and a
  /// restore from the newest one when the graph starts (flow/checkpoints.hpp). Empty: none,
  /// and no checkpoint code runs.
  std::optional<checkpoint_options> checkpoints{};
  /// Where keyed state (state/keyed.hpp) lives. Null: in memory, in a copy-on-write table
  /// (state/keyed_store.hpp). A backend, as state::rocksdb_backend() (spate::rocksdb), keeps
  /// each keyed replica's rows in a table of its own, encoded, for state larger than memory
  /// (state/backend_keyed_store.hpp). Checkpoints are the same either way: one taken with
  /// one backend restores into the other.
  std::shared_ptr<state::keyed_state_backend> keyed_state_backend{};
};

}  // namespace spate::flow
