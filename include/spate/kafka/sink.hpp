#pragma once
// Items to a Kafka topic, keyed: `to_message(item)` gives the key, the value and, for an
// item that came from a Kafka source, the input record's position, which is marked done
// only once the broker has acknowledged the output. With a source, that makes the whole
// job at-least-once: an input offset is committed only after its output is stored.
//
//   kafka::sink<word_count>(out, [](word_count& w) {
//     return kafka::message{w.word, std::to_string(w.count), w.from};
//   })
//
// The sink runs on a thread of its own: when librdkafka's queue is full it waits there for
// deliveries, which holds back the stages in front through their full edges. A message the
// broker rejects fails the graph, naming the topic and the broker's error.
//
// Cancelling (or another node failing): graph::cancel() interrupts a wait for room or for
// the final flush at once (librdkafka's rd_kafka_yield), and the producer is purged and
// destroyed on the sink's own thread, without waiting for the broker. Messages not yet
// acknowledged are dropped and their inputs are not marked done (they are read again).
// Delivery reports that arrive once the producer is being torn down never touch an input's
// offset_tracker (the source that owns it may be gone by then).
//
// Exactly-once: kafka::exactly_once_sink writes in Kafka transactions, one per checkpoint
// (a graph with checkpoints, and a kafka::source, which then takes its positions from the
// checkpoints), as the two-phase commit of flow/checkpoints.hpp:
//   - at barrier n the transaction is flushed (T1); new messages wait until it is
//     committed;
//   - once checkpoint n is durable, the source offsets it holds go into the transaction
//     (send_offsets_to_transaction, tagged "spate checkpoint n") and it is committed (T2); a
//     new transaction begins. A checkpoint that fails leaves the transaction open, to be
//     committed with the next one (T3); the end of the input commits what is left (T4);
//   - at a restart the killed run's producer is fenced first (init_transactions() under the
//     same transactional id aborts its open transaction), then the group's committed
//     offsets say which checkpoint's transaction was committed last, and the graph
//     restores that one (T5).
// Consumers reading with isolation.level=read_committed see each message once. Output
// becomes visible once per checkpoint interval, which must stay well below the broker's
// transaction timeout (transaction.timeout.ms, 60 s here).
//
// Every source of the graph must be a kafka::source (a transaction carries only Kafka
// offsets); another source is refused at the first commit or restore.
//
// Time bounds: the flush at a barrier, and a commit (the offsets, then the commit itself,
// which is retried while librdkafka calls its error retriable), each take at most
// commit_timeout; past it, or on any other error, the graph fails (a restart redoes the
// output since the last commit). A restore first fences the killed run's producer and
// reads the group's offsets, each within commit_timeout, inside graph::start(), which a
// cancel does not shorten.
// A cancel stops a commit between its broker calls, but waits for the call in progress:
// graph::wait() returns within commit_timeout, plus the abort of the open transaction
// (commit_timeout, 5 s at most), plus the Kafka source's shutdown_timeout.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "spate/flow/checkpoints.hpp"
#include "spate/flow/node.hpp"
#include "spate/flow/stages.hpp"
#include "spate/kafka/offset_tracker.hpp"
#include "spate/platform/export.hpp"

struct rd_kafka_error_s;  // librdkafka's error type (rdkafka.h), for producer::check

namespace spate::kafka {

/// Where kafka::sink writes.
struct producer_options {
  std::string brokers;                          ///< bootstrap.servers
  std::string topic;                            ///< the topic to write
  std::map<std::string, std::string> settings;  ///< further librdkafka settings
  /// exactly_once_sink only: the producer's transactional.id, the same in every run of the
  /// job (a restarted process fences the killed one's producer by it), and unique to it.
  std::string transactional_id{};
  /// exactly_once_sink only: how long starting, committing a transaction, or reading the
  /// committed offsets at a restore may take before the graph fails.
  std::chrono::milliseconds commit_timeout{30'000};
};

/// One message for kafka::sink.
struct message {
  std::string key;               ///< decides the partition (librdkafka's default partitioner)
  std::string value;             ///< the payload
  std::optional<position> from;  ///< marked done when the broker has stored the message
};

namespace detail {

/// librdkafka's producer behind a small interface (src/kafka/producer.cpp).
class SPATE_API producer {
 public:
  /// A transactional producer when `transactional` (start_transactions() starts it).
  explicit producer(const producer_options& options, bool transactional = false);
  /// Transactional only, once, before anything is sent: init_transactions (fencing an earlier
  /// run's producer with this transactional.id), then a transaction begun. Throws after
  /// commit_timeout; false when interrupted first.
  bool start_transactions();
  /// Purges what is not delivered and ignores its reports (no input is marked done), so it
  /// does not wait for the broker and never calls into a source's offset_tracker.
  ~producer();
  producer(const producer&) = delete;
  producer& operator=(const producer&) = delete;
  /// Queues a message; waits for deliveries while librdkafka's queue is full. False (the
  /// message dropped) when interrupted.
  bool send(message m);
  /// Serves delivery reports without waiting.
  void poll();
  /// Waits until every message is delivered; throws naming the first failure. Returns at
  /// once when interrupted (the rest is purged by the destructor).
  void flush(std::chrono::milliseconds limit = std::chrono::seconds(60));
  /// Any thread, never blocks: ends the current and every later wait of send() and flush().
  void interrupt() noexcept;

  // Transactions (exactly_once_sink; the header's T1..T5). send() waits while a flushed
  // transaction waits for its commit.
  /// The sink's thread, at barrier `id`: flushes the transaction, at most commit_timeout (T1).
  void prepare_commit(std::uint64_t id);
  /// The coordinator's thread (T2), or the sink's at the end (T4, after waiting for a
  /// prepared transaction's outcome): the offsets in `done`, then the commit. False when
  /// interrupted before it committed.
  bool commit(const flow::checkpoint_commit& done);
  /// The coordinator's thread: checkpoint `id` failed; its transaction goes on (T3).
  void abort_commit(std::uint64_t id);
  /// T5: the newest checkpoint whose transaction the group's offsets say was committed.
  static std::optional<std::uint64_t> last_committed(const producer_options& options,
                                                     const flow::checkpoint_commit& newest);

 private:
  struct state;
  // Waits while a flushed transaction waits for its outcome; false when interrupted.
  bool await_outcome();
  // Throws naming `what` and librdkafka's error, if any (and frees it).
  void check(::rd_kafka_error_s* error, const std::string& what) const;
  static int timeout_ms(std::chrono::milliseconds t);
  static int millis_left(std::chrono::steady_clock::time_point deadline);
  std::unique_ptr<state> state_;
};

template <class T, class ToMessage, bool Transactional>
class producer_writer : public flow::node<T, void> {
 public:
  producer_writer(producer_options options, ToMessage to_message)
      : options_(std::move(options)), to_message_(std::move(to_message)) {}
  producer_writer(const producer_writer& other)
      : producer_writer(other.options_, other.to_message_) {}
  producer_writer(producer_writer&&) = default;
  ~producer_writer() { discard(); }

  void on_start() {
    if (Transactional && !checkpointed_) {
      throw std::invalid_argument(
          "spate::kafka: exactly_once_sink needs a graph with checkpoints "
          "(graph_options::checkpoints): its transactions commit at each checkpoint");
    }
    auto created = std::make_shared<producer>(options_, Transactional);
    producer* p = created.get();
    {
      const std::lock_guard lock(shared_->mutex);
      shared_->live = std::move(created);
      if (shared_->interrupted.load()) shared_->live->interrupt();
    }
    // Published first, so that interrupt() ends the wait for the broker here too.
    if (Transactional) p->start_transactions();
  }
  void consume(T& item) {
    producer* p = shared_->live.get();                        // only this thread changes it
    if (p == nullptr || !p->send(to_message_(item))) return;  // cancelled: dropped
    if ((++sent_ & 1023) == 0) p->poll();
  }
  void on_stop() {
    if (shared_->live) shared_->live->flush();
  }
  void on_cancel() { discard(); }
  /// graph::cancel(), any thread.
  void interrupt() noexcept {
    shared_->interrupted.store(true);
    const std::lock_guard lock(shared_->mutex);
    if (shared_->live) shared_->live->interrupt();
  }

  // flow/checkpoints.hpp: committing_node, for the transactional sink only.
  void enable_checkpoints() noexcept { checkpointed_ = true; }
  void prepare_commit(std::uint64_t id)
    requires Transactional
  {
    if (shared_->live) shared_->live->prepare_commit(id);
  }
  bool commit(const flow::checkpoint_commit& done)
    requires Transactional
  {
    const std::shared_ptr<producer> p = live();
    return p != nullptr && p->commit(done);
  }
  void abort_commit(std::uint64_t id)
    requires Transactional
  {
    if (auto p = live()) p->abort_commit(id);
  }
  std::optional<std::uint64_t> last_committed(const flow::checkpoint_commit& newest) const
    requires Transactional
  {
    return producer::last_committed(options_, newest);
  }

 private:
  // What interrupt() and the coordinator's commits share with the sink's thread; on the
  // heap, so the node stays movable.
  struct shared_state {
    std::mutex mutex;  ///< held while `live` changes (sink thread) or is read elsewhere
    std::atomic<bool> interrupted{false};
    std::shared_ptr<detail::producer> live;  ///< shared: a commit may hold it past on_cancel
  };
  std::shared_ptr<producer> live() {
    const std::lock_guard lock(shared_->mutex);
    return shared_->live;
  }
  void discard() {
    if (!shared_) return;  // moved from
    std::shared_ptr<producer> gone;
    {
      const std::lock_guard lock(shared_->mutex);
      gone = std::move(shared_->live);
    }
  }

  producer_options options_;
  ToMessage to_message_;
  std::unique_ptr<shared_state> shared_ = std::make_unique<shared_state>();
  std::uint64_t sent_ = 0;
  bool checkpointed_ = false;
};

}  // namespace detail

/// Items to a Kafka topic, at least once (see the top of this file).
template <class T, class ToMessage>
  requires std::is_invocable_r_v<message, ToMessage&, T&>
auto sink(producer_options options, ToMessage to_message) {
  const std::string name = "kafka(" + options.topic + ")";
  return flow::make_stage<detail::producer_writer<T, ToMessage, false>>(std::move(options),
                                                                        std::move(to_message))
      .named(name)
      .on_dedicated_thread();
}

/// Items to a Kafka topic exactly once, in transactions committed with the graph's
/// checkpoints (see the top of this file). `options.transactional_id` must be set.
template <class T, class ToMessage>
  requires std::is_invocable_r_v<message, ToMessage&, T&>
auto exactly_once_sink(producer_options options, ToMessage to_message) {
  if (options.transactional_id.empty()) {
    throw std::invalid_argument("spate::kafka: exactly_once_sink to topic '" + options.topic +
                                "' needs producer_options::transactional_id");
  }
  const std::string name = "kafka(" + options.topic + ")";
  return flow::make_stage<detail::producer_writer<T, ToMessage, true>>(std::move(options),
                                                                       std::move(to_message))
      .named(name)
      .on_dedicated_thread();
}

}  // namespace spate::kafka
