#pragma once
// A Kafka topic as a stream (librdkafka): a consumer in a consumer group reads the
// partitions the group gives it and emits their records; offsets are committed only for
// records the job has marked done (record::at.done()), so after a crash or a rebalance the
// partition's next reader starts at the first record not done: at-least-once, nothing lost.
//
//   kafka::consumer_options in{.brokers = "127.0.0.1:9092", .group = "wc", .topic = "lines"};
//   flow::graph job(flow::pipeline(
//       kafka::source(in),
//       flow::farm(work, 4, kafka::by_partition()),   // a partition's records stay in order
//       flow::sink([](kafka::record& r) { ...; r.at.done(); })));
//
// Partitions map onto farm replicas with kafka::by_partition(): every record of a
// partition goes to one replica, in order. Several processes with the same group split
// the topic's partitions between them (scale-out); when one goes, Kafka moves its
// partitions to the others, which resume at its last commit.
//
// The consumer runs on a reader thread of its own (io/thread_feed.hpp) and stops
// reading while the graph's input ring is full, or while max_in_flight records are read and
// not yet marked. Every record must be marked once, done() or dropped() (a filter marks what
// it leaves out): a record never marked holds its partition's commits back.
//
// Commits: done offsets are committed every commit_interval (asynchronously); at the end of
// a stop_at_end stream the reader waits until the graph has marked every record it emitted
// and commits that. The final commit lands before the source is destroyed (the graph's
// destruction or next run waits for it), not necessarily before graph::run() returns.
//
// With checkpoints (flow/checkpoints.hpp) the source takes part in them instead: each
// checkpoint records, per partition, the offset after the last record the source sent
// before the barrier (source_position), and a restart seeks there. The source then commits
// no offsets itself and marking records is not needed (records carry no tracker):
// exactly-once state, and exactly-once output with a transactional kafka::sink, which
// commits these offsets in its transactions. A subscribed source's graph holds the state
// of every partition it reads, so a partition that moves to another process takes no state
// with it: for stateful scale-out, kafka/partitioned_job.hpp runs one graph per partition
// (consumer_options::partitions), and a partition's graph moves with its state.
//
// Failing and cancelling: a source that reaches no broker within connect_timeout fails the
// graph with an error naming the brokers and librdkafka's reason. graph::cancel() asks the
// reader to stop and does not wait for it: the reader commits what is done and leaves the
// group within shutdown_timeout (asynchronous commit and close, then rd_kafka_destroy
// without a blocking close), so a dead broker delays nothing but the source's destruction,
// by at most shutdown_timeout.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spate/exec/link.hpp"
#include "spate/flow/link_source.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
#include "spate/io/thread_feed.hpp"
#include "spate/kafka/offset_tracker.hpp"
#include "spate/platform/export.hpp"
#include "spate/state/codec.hpp"

namespace spate::kafka {

/// One record of the topic.
struct record {
  std::string key;    ///< empty when the record has none
  std::string value;  ///< the payload
  position at;        ///< partition, offset; at.done() when processed
};

/// Where and how kafka::source reads.
struct consumer_options {
  std::string brokers;  ///< bootstrap.servers
  std::string group;    ///< group.id
  std::string topic;    ///< the topic to read
  /// Empty: the group assigns partitions (subscribe; scale-out by group membership). Else
  /// exactly these partitions are read, assigned by hand: the source joins no group, and
  /// `group` names only where offsets are read from and committed to (a partitioned job,
  /// kafka/partitioned_job.hpp, runs one graph per partition this way).
  std::vector<std::int32_t> partitions;
  /// End the stream once every assigned partition has been read to its end (batch jobs,
  /// tests); otherwise the source runs until the graph is cancelled.
  bool stop_at_end = false;
  std::chrono::milliseconds commit_interval{200};  ///< how often done offsets are committed
  /// The link between the reader thread and the graph (records; woken per notify_batch
  /// records and whenever the reader is about to wait for the broker).
  link_options link{.capacity = 4096};
  /// Records read and not yet marked (done or dropped) after which the reader waits: bounds
  /// the offset bookkeeping when a record is never marked.
  std::size_t max_in_flight = 1u << 16;
  /// Fail the graph when no broker has answered (no group assignment, no record) within
  /// this time; the error names the brokers and librdkafka's last reason. 0: wait forever.
  std::chrono::milliseconds connect_timeout{30'000};
  /// At the end (or on cancel, or failure): how long the final commit and leaving the group
  /// may take before the consumer is destroyed anyway.
  std::chrono::milliseconds shutdown_timeout{5'000};
  std::map<std::string, std::string> settings;  ///< further librdkafka settings
};

/// Where a Kafka source stood at a checkpoint: the next offset to read, per partition it
/// read (flow/checkpoints.hpp positioned_source).
struct source_position {
  std::string group;                                  ///< the consumer group
  std::string topic;                                  ///< the topic
  std::map<std::int32_t, std::int64_t> next_offsets;  ///< partition -> first offset not sent
  /// Equal when group, topic and every offset are.
  friend bool operator==(const source_position&, const source_position&) = default;
};

/// Routes a partition's records to one replica (farm policy).
inline auto by_partition() {
  return flow::custom_policy{[](const record& r, std::size_t replicas) {
    return static_cast<std::size_t>(r.at.partition) % replicas;
  }};
}

namespace detail {

class SPATE_API consumer_reader : public io::thread_fed_source<record> {
 public:
  explicit consumer_reader(consumer_options options)
      : thread_fed_source(options.link), options_(std::move(options)) {}
  consumer_reader(const consumer_reader& other) : consumer_reader(other.options_) {}
  ~consumer_reader() { stop_reader(); }  // the reader uses the tracker: stop it first

  void on_start() {
    start_reader("spate-kafka-in", [this](io::thread_feed<record>& feed) { consume(feed); });
  }

  /// The graph takes checkpoints (before on_start): positions go into them, not commits.
  void enable_checkpoints() noexcept { checkpointed_ = true; }
  /// The offsets after the records sent so far (the graph's thread, between produce calls).
  source_position checkpoint_position() const {
    return {options_.group, options_.topic, sent_until_};
  }
  /// Before on_start: where to resume; throws for another group's or topic's position.
  void seek(const source_position& at);
  /// Sends one record on, noting its partition's next offset for checkpoint_position().
  /// The record noted is the record sent (one read of the link: a record the reader pushes
  /// between two reads would be sent unnoted, and a checkpoint's position would then be
  /// behind its state, which a restore would count twice).
  flow::produce_status produce() {
    if (!checkpointed_) return thread_fed_source::produce();
    return thread_fed_source::produce(
        [this](const record& next) { sent_until_[next.at.partition] = next.at.offset + 1; });
  }

 private:
  void consume(io::thread_feed<record>& feed);
  /// consumer_options::partitions: assigns them (reader thread, before the first poll).
  void assign_by_hand(void* consumer);
  /// Reader thread only (librdkafka calls these back from inside its poll).
  friend struct consumer_callbacks;
  /// Commits what is done: asynchronously, or waiting until `deadline` at most.
  void commit(void* consumer, bool wait, std::chrono::steady_clock::time_point deadline = {});
  /// The final commit and leaving the group, bounded by shutdown_timeout.
  void shut_down(void* consumer);
  /// The position a record read is sent with; none when its partition is not assigned here.
  std::optional<position> emitted(std::int32_t partition, std::int64_t offset);

  consumer_options options_;
  std::set<std::int32_t> assigned_, at_end_;  ///< reader thread only
  std::set<std::int32_t> skipped_;  ///< partitions whose stray records were logged (reader)
  bool answered_ = false;           ///< a broker answered (reader thread)
  std::string last_error_;          ///< librdkafka's last error (reader thread)
  std::chrono::steady_clock::time_point shutdown_deadline_ =
      std::chrono::steady_clock::time_point::max();
  offset_tracker tracker_;
  bool checkpointed_ = false;  ///< set before on_start
  // Checkpoints: per partition, the next offset to send (the graph's thread), and where the
  // reader resumes a partition it is assigned (seek(), then the reader's own).
  std::map<std::int32_t, std::int64_t> sent_until_;
  std::map<std::int32_t, std::int64_t> resume_at_;
};

}  // namespace detail

/// One replica: a process's share of the topic is read by one consumer.
inline auto source(consumer_options options) {
  const std::string name = "kafka(" + options.topic + ")";
  return flow::make_stage<detail::consumer_reader>(std::move(options)).named(name);
}

}  // namespace spate::kafka

namespace spate::state {

/// Kafka source positions in checkpoints, tagged so a sink can tell them from other
/// sources' positions.
template <>
struct codec<kafka::source_position> {
  /// Written first: a sink tells a Kafka source's position from other sources' by it.
  static constexpr std::string_view tag = "spate::kafka::source_position/1";
  /// The tag, the group, the topic, then the offsets.
  static void encode(const kafka::source_position& p, byte_writer& out) {
    state::encode(std::string(tag), out);
    state::encode(p.group, out);
    state::encode(p.topic, out);
    state::encode(p.next_offsets, out);
  }
  /// Throws decode_error for bytes without the tag (another source's position).
  static kafka::source_position decode(byte_reader& in) {
    if (state::decode<std::string>(in) != tag) {
      in.fail_at(0, "a Kafka source position", "it is not tagged as one");
    }
    kafka::source_position p;
    p.group = state::decode<std::string>(in);
    p.topic = state::decode<std::string>(in);
    p.next_offsets = state::decode<std::map<std::int32_t, std::int64_t>>(in);
    return p;
  }
};

}  // namespace spate::state
