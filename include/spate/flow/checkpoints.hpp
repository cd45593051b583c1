#pragma once
// Checkpoints of a flow graph: what a graph needs to take them, and what its nodes provide.
//
// A graph with graph_options::checkpoints set takes a consistent checkpoint every `interval`
// by aligned barriers (Carbone et al., "Lightweight Asynchronous Snapshots for Distributed
// Dataflows", Sect. 3.1; as Flink's aligned checkpoints):
//   1. The coordinator (one thread per graph) asks every source for checkpoint n. A source,
//      between two produce() calls, posts barrier n on all its output edges (a link marker,
//      exec/link.hpp M1) and records its position: everything it sent before the barrier.
//   2. A node stops reading an input once the barrier is next on it, and goes on reading the
//      others. When every input is at the barrier or has ended, it posts the barrier on its
//      outputs, takes a snapshot of its state (keyed state copy-on-write, so encoding and
//      writing happen on the coordinator's thread while the node goes on), then reads on.
//   3. Checkpoint n is complete once every node's part is written and fsynced and the
//      manifest renamed into place (state/checkpoint_store.hpp); older ones are retired.
// A graph started with the same directory resumes from the newest complete checkpoint that
// checks out: keyed state and node state restored, sources seeking to their positions.
// What a crash loses, and what it repeats, is in docs/state.md.
//
// Nodes take part as follows (checked when the graph starts; a node that cannot take part
// fails the start with its name):
//   - sources: `P checkpoint_position() const` and `void seek(const P&)`, P encodable
//     (state/codec.hpp); seek() runs before on_start(). io::line_source and flow::generate
//     have them.
//   - nodes with keyed state (state/keyed.hpp): nothing more to do.
//   - nodes with state of their own: `S snapshot_state() const` and `void restore_state(S)`,
//     S encodable; restore_state() runs before on_start().
//   - other nodes: nothing (they hold no state). A node with state it cannot snapshot yet
//     declares `refuses_checkpoints` (the window stages do).
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "spate/state/codec.hpp"

namespace spate::flow {

/// How a graph takes checkpoints (graph_options::checkpoints).
struct checkpoint_options {
  /// Where checkpoints are written (made if missing; one graph at a time: it is locked).
  std::filesystem::path directory{};
  /// Time from one checkpoint's start to the next one's (a checkpoint still running delays
  /// the next).
  std::chrono::milliseconds interval = std::chrono::seconds(10);
  /// Key groups keyed state is divided into in a checkpoint part.
  std::uint32_t key_groups = 128;
  /// Complete checkpoints kept (older ones are deleted).
  std::size_t retain = 2;
  /// Failed checkpoints (a write error, a node that ended before the barrier reached it is
  /// not one) tolerated in a row before the graph fails; 0: the first failure fails it.
  std::size_t tolerable_failures = 0;
  /// Runs on the coordinator's thread once checkpoint `id` is complete (durable), before the
  /// next one starts: where a sink's pending output may be committed. An exception fails the
  /// graph. A graph destroyed on a worker without waiting (a graph actor stopping) may still
  /// complete a checkpoint after its destructor returned: capture only what outlives it.
  std::function<void(std::uint64_t id)> on_complete{};
};

/// What a graph's checkpoints did so far (graph::checkpoints()).
struct checkpoint_stats {
  std::uint64_t completed = 0;                 ///< complete checkpoints written by this run
  std::uint64_t failed = 0;                    ///< checkpoints that failed (write errors)
  std::uint64_t abandoned = 0;                 ///< checkpoints a node ended before (end of input)
  std::uint64_t last_id = 0;                   ///< the newest complete checkpoint's id (0: none)
  std::uint64_t last_bytes = 0;                ///< bytes of its parts
  std::chrono::microseconds last_duration{0};  ///< from its start to its commit
  std::uint64_t restored_from = 0;             ///< the checkpoint this run started from (0: none)
};

/// A source that can go back to where a checkpoint found it (see the top of this file).
template <class N>
concept positioned_source = requires(N& n, const N& c) {
  { c.checkpoint_position() } -> state::encodable;
  n.seek(c.checkpoint_position());
};

/// A node whose state checkpoints cannot hold yet (the window layer's stages) says why, and
/// a graph with checkpoints refuses to start with it, naming it:
///   static constexpr const char* refuses_checkpoints = "keeps open windows ...";
template <class N>
concept refusing_checkpoints = requires {
  { N::refuses_checkpoints } -> std::convertible_to<const char*>;
};

/// A node with state of its own, outside keyed state (see the top of this file).
template <class N>
concept snapshotting_node = requires(N& n, const N& c) {
  { c.snapshot_state() } -> state::encodable;
  n.restore_state(c.snapshot_state());
};

}  // namespace spate::flow
