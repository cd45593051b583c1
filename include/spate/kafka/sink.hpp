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
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "spate/flow/node.hpp"
#include "spate/flow/stages.hpp"
#include "spate/kafka/offset_tracker.hpp"

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
class producer {
 public:
  explicit producer(const producer_options& options);
  ~producer();
  producer(const producer&) = delete;
  producer& operator=(const producer&) = delete;
  /// Queues a message; waits for deliveries while librdkafka's queue is full.
  void send(message m);
  /// Serves delivery reports without waiting.
  void poll();
  /// Waits until every message is delivered; throws naming the first failure.
  void flush();

 private:
  struct state;
  std::unique_ptr<state> state_;
};

template <class T, class ToMessage>
class producer_writer : public flow::node<T, void> {
 public:
  producer_writer(producer_options options, ToMessage to_message)
      : options_(std::move(options)), to_message_(std::move(to_message)) {}
  void on_start() { producer_ = std::make_unique<producer>(options_); }
  void consume(T& item) {
    producer_->send(to_message_(item));
    if ((++sent_ & 1023) == 0) producer_->poll();
  }
  void on_stop() { producer_->flush(); }

 private:
  producer_options options_;
  ToMessage to_message_;
  std::unique_ptr<producer> producer_;
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
