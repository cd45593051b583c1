#pragma once
// The checkpoint coordinator of one running graph (flow/checkpoints.hpp): triggers
// checkpoints, collects every task's acknowledgement, writes the parts and commits.
//
// # Protocol (one checkpoint at a time)
//
//   C1. Trigger (coordinator thread, `interval` after the last trigger, when no checkpoint is
//       pending and no task has ended): id = store.next_id(); pending = {id, every task
//       unacknowledged}; each source task gets request_checkpoint(id) (an atomic store, then
//       notify(): the task's idle re-check reads it).
//   C2. A task acknowledges once barrier `id` has passed it (sources: after posting it;
//       others: once aligned, or at U5 when unaligned, after posting it downstream). The ack
//       carries its part (the keyed snapshot, encoded here, not on the task) and a source's
//       position. It goes into a queue under the mutex; the coordinator thread encodes and writes
//       each part.
//   C3. Every task acknowledged and every part written: the manifest is committed (the
//       checkpoint is complete), older ones retired, the next trigger timed.
//   C4. A write that fails, or a task that ends before acknowledging (its input ended),
//       fails the checkpoint: its directory is removed once every task has acknowledged or
//       ended, so no barrier of it is still travelling when the next one starts. A write
//       failure past checkpoint_options::tolerable_failures fails the graph.
//   C5. A committing task (flow/checkpoints.hpp T1..T5) hears of each outcome after C3
//       (commit, then older checkpoints retired) or C4 (abort_commit), on this thread,
//       before the next trigger: so its commit of n happens before barrier n+1 reaches it.
//
// Why a link's marker queue (4 slots) never fills, so post_marker() cannot fail: C1 waits
// for C3/C4, which wait for every task's answer. A task answers just before it pops the
// barrier's markers from its inputs, so barrier n+1 may be posted while n is still queued:
// at most two per link.
//
// # Threading
//
// restore() before the graph starts; acknowledge() and task_ended(): any task, any time
// while the graph runs; stats(): any thread. The thread ends by itself once every task has
// ended and every answer is handled (the graph's last checkpoint is not lost); stop(), from
// the graph's owner or ~graph_state, then joins it (or detaches it, when ~graph_state runs
// on that very thread: see start()).
// The graph_state owns the coordinator and outlives it (~graph_state destroys it first),
// so the tasks the thread requests checkpoints from are alive.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "spate/flow/checkpoints.hpp"
#include "spate/platform/export.hpp"
#include "spate/state/checkpoint_store.hpp"
#include "spate/state/codec.hpp"

namespace spate::flow::detail {

class graph_state;

// A task's state at a barrier, encoded on the coordinator's thread (C2).
struct snapshot_part {
  virtual ~snapshot_part() = default;
  virtual std::string encode(std::uint32_t key_groups) = 0;
};

// A part's bytes: the keyed rows (state/keyed_store.hpp encode, empty: none), the node's
// own state (empty: none), then, from unaligned barriers, its buffered outputs and recorded
// inputs (flow/detail/unaligned_barrier.hpp stored_items; empty: none).
// A part without items in flight is written as the first two alone, as before unaligned
// barriers existed, so checkpoints of either kind read back the same way.
using part_contents = std::tuple<std::string, std::string, std::string, std::string>;
inline std::string encode_part(const part_contents& p) {
  std::string out;
  state::byte_writer w(out);
  state::encode(std::get<0>(p), w);
  state::encode(std::get<1>(p), w);
  if (!std::get<2>(p).empty() || !std::get<3>(p).empty()) {
    state::encode(std::get<2>(p), w);
    state::encode(std::get<3>(p), w);
  }
  return out;
}
inline part_contents decode_part(std::string_view bytes) {
  state::byte_reader in(bytes);
  part_contents p;
  std::get<0>(p) = state::decode<std::string>(in);
  std::get<1>(p) = state::decode<std::string>(in);
  if (!in.at_end()) {
    std::get<2>(p) = state::decode<std::string>(in);
    std::get<3>(p) = state::decode<std::string>(in);
  }
  if (!in.at_end()) in.fail("a part", std::to_string(in.left()) + " bytes left over after it");
  return p;
}

struct checkpoint_ack {
  std::uint64_t id = 0;
  std::size_t task = 0;                   // index in graph_state::tasks()
  std::optional<std::string> position{};  // a source's, encoded
  std::unique_ptr<snapshot_part> part{};  // a stateful task's (every task's, unaligned)
  std::uint64_t in_flight = 0;            // items stored in flight (unaligned)
};

class SPATE_API checkpoint_coordinator {
 public:
  checkpoint_coordinator(checkpoint_options options, graph_state& graph);
  checkpoint_coordinator(const checkpoint_coordinator&) = delete;
  checkpoint_coordinator& operator=(const checkpoint_coordinator&) = delete;
  ~checkpoint_coordinator();

  // Before start(): refuses tasks that cannot take part (std::invalid_argument naming
  // them), then restores every task from the newest complete checkpoint of this graph.
  void restore();
  // Starts the thread; the first checkpoint is triggered one interval later.
  void start();
  // Stops triggering and joins the thread; a pending checkpoint is removed, and the
  // directory unlocked (a new run may open it). Idempotent.
  void stop() noexcept;

  void acknowledge(checkpoint_ack ack);
  // checkpoint_alignment::unaligned (flow/detail/unaligned_barrier.hpp).
  bool unaligned() const noexcept { return options_.alignment == checkpoint_alignment::unaligned; }
  void task_ended(std::size_t task);
  // A source's task, at the end of its input and before its outputs close: its last
  // position, for commit_at_end().
  void source_ended(std::size_t task, std::string position);
  // A committing task whose inputs ended (T4): the last complete checkpoint's id and the
  // last positions of the sources that ended.
  checkpoint_commit commit_at_end() const;
  checkpoint_stats stats() const;

 private:
  struct pending_checkpoint {
    std::uint64_t id = 0;
    std::chrono::steady_clock::time_point started{};
    std::vector<bool> answered;      // acknowledged or ended, per task
    std::vector<bool> acknowledged;  // acknowledged, per task
    std::size_t unanswered = 0;
    state::checkpoint_manifest manifest{};
    std::uint64_t bytes = 0;
    std::uint64_t in_flight = 0;
    std::string failure{};  // empty: may still complete
    bool abandoned = false;
  };

  void run();
  void loop();
  void trigger(std::unique_lock<std::mutex>& lock);
  void handle(checkpoint_ack ack);
  void answered(std::size_t task);
  void finish_pending(std::unique_lock<std::mutex>& lock);
  bool commit_to_committers(const pending_checkpoint& p);
  std::optional<state::checkpoint_manifest> committed_checkpoint(state::checkpoint_manifest newest);
  static checkpoint_commit commit_of(const state::checkpoint_manifest& m);
  std::string fingerprint() const;

  checkpoint_options options_;
  graph_state& graph_;
  std::optional<state::checkpoint_store> store_;  // closed (unlocked) by stop()
  std::string fingerprint_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<checkpoint_ack> acks_;  // C2's queue
  std::vector<bool> ended_;          // per task
  std::size_t ended_count_ = 0;
  std::map<std::string, std::string> final_positions_;  // source_ended()
  std::vector<std::size_t> committers_;  // committing tasks (one at most); set by restore()
  bool any_ended_ = false;
  bool stopping_ = false;
  bool graph_failed_ = false;  // no more checkpoints
  // The coordinator thread's alone (handle() reads it without the lock); changed under it.
  std::optional<pending_checkpoint> pending_;
  std::chrono::steady_clock::time_point next_trigger_{};
  std::size_t failures_in_a_row_ = 0;
  checkpoint_stats stats_{};
  std::thread thread_;
};

}  // namespace spate::flow::detail
