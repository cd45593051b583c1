#pragma once
// Stateful scale-out across processes: a job that runs one graph per partition of its input
// topic, in as many processes as share a consumer group. The group says which partitions
// each process holds; each partition's graph reads only that partition
// (consumer_options::partitions), checkpoints into a directory of its own under a root the
// processes share, and writes in transactions of its own (one transactional id per
// partition). When a partition moves (a process joins, leaves or is killed), its new
// holder starts its graph from the partition's last committed checkpoint: its state moves
// with it.
//
//   kafka::partitioned_job job(rt, {.brokers = b, .group = "wc", .topic = "words",
//                                   .checkpoint_root = "/shared/wc"},
//       [&](const kafka::partition_context& p) {
//         kafka::consumer_options in{.brokers = b, .group = "wc", .topic = "words",
//                                    .partitions = {p.partition}};
//         kafka::producer_options out{.brokers = b, .topic = "counts",
//                                     .transactional_id = p.transactional_id};
//         return flow::graph(flow::pipeline(kafka::source(in), count_words,
//                                           kafka::exactly_once_sink<update>(out, to_message)),
//                            p.graph_options(std::chrono::seconds(1)));
//       });
//   job.wait();  // until stop(), or rethrows the failure of a partition's graph
//
// Why a checkpoint store the processes share, and not a changelog topic (Kafka Streams'
// choice): state reaches the store only at checkpoints, in the background, so the hot path
// writes nothing per update; a changelog writes every update to Kafka. The price: the
// processes need a directory they all see (one machine, or a shared file system), and a
// partition's new holder reads its whole last checkpoint before it starts.
//
// Why one graph per partition: a partition's state, position and transactions then form
// one checkpoint series that any process can pick up, and the existing restore rule holds
// per partition (the checkpoint whose transaction committed last, kafka/sink.hpp T5). A
// partition's graph is a whole pipeline, so its replicas cost threads' worth of work only
// while it has records; a process holding many partitions runs many small graphs on one
// runtime. The group that assigns partitions is `group` + "-members", not `group`: offsets
// are committed to `group` by the partitions' transactions, outside any member's generation.
//
// # Protocol (the member thread runs librdkafka's rebalance callbacks; eager rebalancing)
//
//   P1. Assigned partitions: for each, the factory builds its graph and the graph starts
//       (restoring its checkpoint, fencing the previous holder's producer: kafka/sink.hpp).
//       A partition whose directory holds no complete checkpoint, while the group's
//       committed offset for it carries a checkpoint's tag, is refused: its checkpoints are
//       out of view (reading the committed offset takes up to connect_timeout).
//       A factory or start that throws fails the job (P4) and starts no further partition.
//   P2. Revoked partitions: each one's graph is cancelled, then waited for, before the
//       callback returns: the group gives the partition to its next holder only after this
//       process has let go of it (its open transaction aborted, its store unlocked).
//   P3. stop(): the member thread leaves the group (revoking everything, P2) and ends.
//       Graphs still running when the leave times out (shutdown_timeout) are cancelled and
//       waited for all the same.
//   P4. A partition's graph that ends by itself (a node failed, or its input ended) fails
//       the job: wait() rethrows its error, naming the partition, and the member thread
//       leaves the group as in P3 (woken by the same yield as stop()), so the partitions go
//       to other processes. The graph's finish hook records this under the job's mutex; a
//       graph that P2 or P3 cancelled is marked as revoked first, under the same mutex, so
//       its end is not taken for a failure.
//
// P2 holds while this process stays in the group. A member that loses its session (a
// stall longer than session.timeout.ms) learns of it only when librdkafka notices, so the
// group may give a partition away while its graph still runs here; the next holder's
// producer fences this one's transactions (output stays exactly once), and the partition's
// checkpoint store is locked (flock) while a graph has it open, so the next holder's start
// fails until it is let go: the shared directory must honour flock across the processes.
// A group.instance.id (static membership) does not leave the group on stop(): its
// partitions move only after session.timeout.ms.
//
// P1 runs inside librdkafka's rebalance callback, one partition after another: each start
// takes its restore (the sink's fence and committed-offset read, up to twice its
// commit_timeout, and reading the partition's checkpoint; for a partition without a
// complete checkpoint here, the out-of-view read, up to connect_timeout), and librdkafka counts the
// callback's time against max.poll.interval.ms (300 s by default), past which the member
// leaves the group. Raise it for a process that takes over many partitions of large state.
// With static membership, connect_timeout also covers the wait for the other members'
// rejoin, which a killed member's session can prolong.
//
// Time bounds: after stop(), wait() and the destructor return within shutdown_timeout
// plus, per graph being cancelled, its own cancel bound (kafka/sink.hpp: commit_timeout
// and the abort; the source's shutdown_timeout), plus a start in progress (above). A process killed
// outright lets go of nothing: the group moves its partitions after session.timeout.ms, and their
// next holder's producers fence its open transactions.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "spate/exec/runtime.hpp"
#include "spate/flow/graph.hpp"
#include "spate/flow/graph_options.hpp"
#include "spate/platform/export.hpp"

namespace spate::kafka {

/// Where and how a partitioned job runs.
struct partitioned_options {
  std::string brokers;  ///< bootstrap.servers
  /// The job's consumer group: its partitions' offsets are committed there; membership is
  /// in `group` + "-members".
  std::string group;
  std::string topic;  ///< the input topic, whose partitions are shared out
  /// Each partition's checkpoints go to checkpoint_root / "partition-<n>"; every process of
  /// the job must see the same directory.
  std::filesystem::path checkpoint_root;
  /// Fail the job when no group coordinator has answered (given this member an id) within
  /// this time. 0: forever.
  std::chrono::milliseconds connect_timeout{30'000};
  /// How long leaving the group may take (stop(), the destructor).
  std::chrono::milliseconds shutdown_timeout{5'000};
  /// Further librdkafka settings of the group member (session.timeout.ms,
  /// group.instance.id for static membership, ...).
  std::map<std::string, std::string> settings;
  /// Called on the member thread once a partition's graph has started (restored_from
  /// says from which checkpoint); for logs and tests. Must not block.
  std::function<void(std::int32_t partition, const flow::graph&)> on_started;
  /// Called on the member thread once a partition's graph has been cancelled and has ended
  /// (P2, P3). Must not block.
  std::function<void(std::int32_t partition)> on_stopped;
};

/// What a partition's graph is built for (the factory's argument).
struct partition_context {
  std::int32_t partition = 0;                  ///< the partition of the input topic
  std::filesystem::path checkpoint_directory;  ///< this partition's, under checkpoint_root
  std::string transactional_id;                ///< group + "-partition-<n>": one per partition
  /// Graph options with checkpoints every `interval` into checkpoint_directory.
  flow::graph_options graph_options(std::chrono::milliseconds interval) const {
    flow::graph_options options;
    flow::checkpoint_options checkpoints;
    checkpoints.directory = checkpoint_directory;
    checkpoints.interval = interval;
    options.checkpoints = checkpoints;
    return options;
  }
};

/// A job of one graph per input partition held by this process (see the top of the file).
class SPATE_API partitioned_job {
 public:
  /// Joins the group on a thread of its own and runs graphs on `rt`, which must outlive
  /// the job. `make_graph(context)` returns the partition's graph (flow::graph, built with
  /// context.graph_options(...)); it runs on the member thread.
  template <class MakeGraph>
  partitioned_job(runtime& rt, partitioned_options options, MakeGraph make_graph)
      : partitioned_job(rt, std::move(options),
                        graph_factory([make = std::move(make_graph)](const partition_context& c) {
                          // new, not make_unique: a graph is not movable, and the prvalue is
                          // built in place.
                          return std::unique_ptr<flow::graph>(new flow::graph(make(c)));
                        })) {}
  partitioned_job(const partitioned_job&) = delete;
  partitioned_job& operator=(const partitioned_job&) = delete;
  /// stop(), then joins the member thread (P3).
  ~partitioned_job();

  /// Blocks until stop() has finished (returns) or a partition's graph ended by itself or
  /// failed to start (throws std::runtime_error naming the partition; P4). Any thread but
  /// the member's and the runtime's workers.
  void wait();
  /// Asks the member thread to leave the group, cancelling every partition's graph (P3).
  /// Any thread; returns at once (wait() or the destructor waits, within the bound above,
  /// plus a partition's start in progress: its restore, up to twice the sink's
  /// commit_timeout).
  void stop();
  /// The partitions held now: their graphs run, or are being started. Any thread.
  std::vector<std::int32_t> partitions() const;

 private:
  using graph_factory = std::function<std::unique_ptr<flow::graph>(const partition_context&)>;
  partitioned_job(runtime& rt, partitioned_options options, graph_factory make_graph);

  friend struct membership_callbacks;
  void member_thread();
  void start_partitions(const std::vector<std::int32_t>& partitions);  // P1 (member thread)
  void stop_partitions(const std::vector<std::int32_t>& partitions);   // P2 (member thread)
  void stop_all_partitions() noexcept;                                 // P2, P3 (member thread)
  // P4 (any thread); no partition: the job's own failure, `error` names the job.
  void fail(std::optional<std::int32_t> partition, const std::string& error);
  // P1: throws when the group committed a checkpoint of the partition that its directory
  // does not hold.
  void refuse_checkpoints_out_of_view(const partition_context& context) const;

  runtime* runtime_;
  partitioned_options options_;
  graph_factory make_graph_;
  std::map<std::int32_t, std::unique_ptr<flow::graph>> graphs_;  ///< the member thread only
  bool answered_ = false;   ///< the group coordinator answered (member thread)
  bool fatal_ = false;      ///< librdkafka reported a fatal error (member thread)
  std::string last_error_;  ///< librdkafka's last error (member thread)

  mutable std::mutex mutex_;  // guards what follows
  std::condition_variable changed_;
  std::map<std::int32_t, bool> running_;  ///< partition -> being revoked (P2, P4)
  std::optional<std::string> failure_;    ///< the first failure (P4)
  bool stop_requested_ = false;
  bool member_done_ = false;
  void* wake_queue_ = nullptr;  ///< the member consumer's queue, to yield its poll (stop())

  std::thread member_;  // last: started once everything above is set
};

}  // namespace spate::kafka
