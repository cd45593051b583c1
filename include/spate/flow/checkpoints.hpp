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
// Under backpressure an aligned barrier waits behind every queued item, so a checkpoint
// takes as long as the queues take to drain. checkpoint_alignment::unaligned lets barriers
// overtake queued items instead (as Flink's unaligned checkpoints; the items in flight are
// stored with the snapshot): protocol U1..U5 in flow/detail/unaligned_barrier.hpp.
//
// Nodes take part as follows (checked when the graph starts; a node that cannot take part
// fails the start with its name):
//   - sources: `P checkpoint_position() const` and `void seek(const P&)`, P encodable
//     (state/codec.hpp); seek() runs before on_start(). io::line_source and flow::generate
//     have them.
//   - nodes with keyed state (state/keyed.hpp): nothing more to do.
//   - nodes with state of their own: `S snapshot_state() const` and `void restore_state(S)`,
//     S encodable; restore_state() runs before on_start().
//   - other nodes: nothing (they hold no state). A node with state it cannot snapshot
//     declares `refuses_checkpoints` (the window stages do for processing time, or for types
//     without a codec: window/detail/window_checkpoints.hpp).
//   - any node may have `void enable_checkpoints()`: called before seek(), restore_state() and
//     on_start() when the graph takes checkpoints (a Kafka source then leaves its offsets to
//     them, a transactional sink may start).
//   - sinks whose output becomes visible only when a checkpoint completes (kafka::sink with
//     a transactional id, Flink's two-phase-commit sinks) are committing_node (below).
//
// # Two-phase commit (committing_node)
//
// Output written between barriers n-1 and n is committed only once checkpoint n is
// durable, so a crash never leaves output whose input a restart would read again:
//   T1. At barrier n, on the node's thread, after the barrier went downstream and before the
//       node's acknowledgement: prepare_commit(n) makes everything written so far durable but
//       invisible (a Kafka transaction flushed, not committed).
//   T3 comes only to a node that prepared n; T2 to every committing node.
//   T2. Once checkpoint n is durable (its manifest renamed into place), on the coordinator's
//       thread: commit({n, positions}) makes it visible, together with the sources' positions
//       at barrier n when the outside world can hold them (a Kafka transaction's offsets),
//       and returns true; false only when it did not commit because the graph is being
//       cancelled (false otherwise fails the graph). Older checkpoints are retired, and
//       on_complete runs, only after a commit returned true. A commit that throws fails the
//       graph, unless it was cancelled (the restart redoes the output from the last
//       committed checkpoint).
//   T3. A checkpoint that fails or is abandoned: abort_commit(n). What was prepared stays
//       pending and goes with the next checkpoint's commit.
//   T4. A committing node's inputs end (the input is finished, not cancelled): on its thread,
//       commit({last complete id, the ended sources' last positions, at_end = true}) commits
//       what is left, before on_stop() (false: not committed, the graph is being cancelled;
//       the node then ends with on_cancel). The id is the last checkpoint complete when the
//       input ended: one the node commits while it waits (below) may be newer, so it is a
//       label, not what the node committed last. A node that prepared a checkpoint whose outcome
//       has not come yet waits for it first (it comes: every task has answered that checkpoint or
//       ended), so a committing node runs on a dedicated thread (kafka's does; refused at start
//       otherwise).
//   T5. Restore: before anything starts, last_committed(newest) asks the node which
//       checkpoint its outside world saw committed last (`newest` names the newest complete
//       checkpoint, its positions telling it where to look). The graph restores exactly that
//       one; none when nothing was committed yet. A checkpoint newer than it was never
//       committed: its output was thrown away (an aborted transaction), so its state must
//       go too.
// Between T1 and T2/T3 a node may hold back new output (kafka::sink waits): the coordinator
// never waits for a node's next item, so that cannot deadlock. One committing node per graph.
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "spate/state/codec.hpp"

namespace spate::flow {

/// How a barrier passes a node (checkpoint_options::alignment).
enum class checkpoint_alignment {
  /// A node takes the barrier once it has read everything before it on every input (step
  /// 2 above): nothing in flight is stored, but under backpressure the barrier waits for the
  /// queues ahead of it to drain.
  aligned,
  /// A node takes the barrier as soon as it is posted on any input, before the items queued
  /// ahead of it; those items, and the ones still buffered for its full outputs, are stored
  /// with the snapshot and sent again first on restore (flow/detail/unaligned_barrier.hpp).
  /// A checkpoint then completes without waiting for the queues to drain. Every item type
  /// on the graph's edges must have a codec; ordered farms, broadcast farms, the window
  /// patterns and committing sinks are refused at start, by name; and a checkpoint holding
  /// items in flight restores only onto the same replica counts.
  unaligned,
};

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
  /// Aligned (the default) or unaligned barriers.
  checkpoint_alignment alignment = checkpoint_alignment::aligned;
};

/// What a graph's checkpoints did so far (graph::checkpoints()).
struct checkpoint_stats {
  std::uint64_t completed = 0;                 ///< complete checkpoints written by this run
  std::uint64_t failed = 0;                    ///< checkpoints that failed (write errors)
  std::uint64_t abandoned = 0;                 ///< checkpoints a node ended before (end of input)
  std::uint64_t last_id = 0;                   ///< the newest complete checkpoint's id (0: none)
  std::uint64_t last_bytes = 0;                ///< bytes of its parts
  std::uint64_t last_in_flight = 0;            ///< items in flight it stores (unaligned)
  std::chrono::microseconds last_duration{0};  ///< from its start to its commit
  std::uint64_t restored_from = 0;             ///< the checkpoint this run started from (0: none)
};

/// A source that can go back to where a checkpoint found it (see the top of this file).
template <class N>
concept positioned_source = requires(N& n, const N& c) {
  { c.checkpoint_position() } -> state::encodable;
  n.seek(c.checkpoint_position());
};

/// A node whose state checkpoints cannot hold says why (a window stage over processing time,
/// or over a type without a codec), and a graph with checkpoints refuses to start with it,
/// naming it:
///   static constexpr const char* refuses_checkpoints = "keeps open windows ...";
template <class N>
concept refusing_checkpoints = requires {
  { N::refuses_checkpoints } -> std::convertible_to<const char*>;
};

/// What a committing node commits (T2, T4): a checkpoint and every source's position in it,
/// as each source encoded it (state/codec.hpp), by source name.
struct checkpoint_commit {
  std::uint64_t id = 0;                          ///< the checkpoint (T4: the last complete one)
  std::map<std::string, std::string> positions;  ///< source name -> encoded position
  bool at_end = false;                           ///< T4: the input ended; not a checkpoint
};

/// A sink whose output becomes visible when a checkpoint completes (two-phase commit, see
/// the top of this file).
template <class N>
concept committing_node =
    requires(N& n, const N& c, std::uint64_t id, const checkpoint_commit& done) {
      n.prepare_commit(id);                      // T1, the node's thread
      { n.commit(done) } -> std::same_as<bool>;  // T2, T4
      n.abort_commit(id);                        // T3, coordinator thread
      { c.last_committed(done) } -> std::same_as<std::optional<std::uint64_t>>;  // T5
    };

/// A node with state of its own, outside keyed state (see the top of this file).
template <class N>
concept snapshotting_node = requires(N& n, const N& c) {
  { c.snapshot_state() } -> state::encodable;
  n.restore_state(c.snapshot_state());
};

}  // namespace spate::flow
