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
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "spate/flow/node.hpp"
#include "spate/flow/stages.hpp"
#include "spate/kafka/offset_tracker.hpp"
#include "spate/platform/export.hpp"

namespace spate::kafka {

/// Where kafka::sink writes.
struct producer_options {
  std::string brokers;                          ///< bootstrap.servers
  std::string topic;                            ///< the topic to write
  std::map<std::string, std::string> settings;  ///< further librdkafka settings
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
  explicit producer(const producer_options& options);
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
  void flush();
  /// Any thread, never blocks: ends the current and every later wait of send() and flush().
  void interrupt() noexcept;

 private:
  struct state;
  std::unique_ptr<state> state_;
};

template <class T, class ToMessage>
class producer_writer : public flow::node<T, void> {
 public:
  producer_writer(producer_options options, ToMessage to_message)
      : options_(std::move(options)), to_message_(std::move(to_message)) {}
  producer_writer(const producer_writer& other)
      : producer_writer(other.options_, other.to_message_) {}
  producer_writer(producer_writer&&) = default;
  ~producer_writer() { discard(); }

  void on_start() {
    auto created = std::make_unique<producer>(options_);
    const std::lock_guard lock(shared_->mutex);
    shared_->live = std::move(created);
    if (shared_->interrupted.load()) shared_->live->interrupt();
  }
  void consume(T& item) {
    producer* p = shared_->live.get();  // only this thread changes it
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

 private:
  // What interrupt() shares with the sink's thread; on the heap, so the node stays movable.
  struct shared_state {
    std::mutex mutex;  ///< held while `producer` changes (sink thread) or is interrupted
    std::atomic<bool> interrupted{false};
    std::unique_ptr<detail::producer> live;
  };
  void discard() {
    if (!shared_) return;  // moved from
    std::unique_ptr<producer> gone;
    {
      const std::lock_guard lock(shared_->mutex);
      gone = std::move(shared_->live);
    }
  }

  producer_options options_;
  ToMessage to_message_;
  std::unique_ptr<shared_state> shared_ = std::make_unique<shared_state>();
  std::uint64_t sent_ = 0;
};

}  // namespace detail

template <class T, class ToMessage>
requires std::is_invocable_r_v<message, ToMessage&, T&>
auto sink(producer_options options, ToMessage to_message) {
  const std::string name = "kafka(" + options.topic + ")";
  return flow::make_stage<detail::producer_writer<T, ToMessage>>(std::move(options),
                                                                 std::move(to_message))
      .named(name)
      .on_dedicated_thread();
}

}  // namespace spate::kafka
