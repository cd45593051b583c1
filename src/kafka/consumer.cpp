#include <librdkafka/rdkafka.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "spate/kafka/source.hpp"

namespace spate::kafka::detail {

namespace {

void set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value) {
  char error[512];
  if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), error, sizeof error) !=
      RD_KAFKA_CONF_OK) {
    rd_kafka_conf_destroy(conf);
    throw std::invalid_argument("spate::kafka: setting " + key + "=" + value + ": " + error);
  }
}

// Errors after which reading cannot go on; librdkafka retries the others by itself.
bool is_fatal(rd_kafka_resp_err_t error) {
  return error == RD_KAFKA_RESP_ERR__FATAL || error == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
         error == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
         error == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
         error == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED;
}

}  // namespace

struct consumer_callbacks {
  // Runs inside rd_kafka_consumer_poll, on the reader thread. Before partitions go, what
  // is done there is committed (synchronously), so their next owner starts after it.
  static void rebalance(rd_kafka_t* consumer, rd_kafka_resp_err_t error,
                        rd_kafka_topic_partition_list_t* partitions, void* opaque) {
    auto& self = *static_cast<consumer_reader*>(opaque);
    if (error == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      for (int i = 0; i < partitions->cnt; ++i) {
        self.tracker_.assign(partitions->elems[i].partition);
        self.assigned_.insert(partitions->elems[i].partition);
      }
      rd_kafka_assign(consumer, partitions);
    } else {
      self.commit(consumer, true);
      for (int i = 0; i < partitions->cnt; ++i) {
        self.tracker_.revoke(partitions->elems[i].partition);
        self.assigned_.erase(partitions->elems[i].partition);
        self.at_end_.erase(partitions->elems[i].partition);
      }
      rd_kafka_assign(consumer, nullptr);
    }
  }
};

void consumer_reader::commit(void* consumer, bool synchronous) {
  const auto offsets = tracker_.committable();
  if (offsets.empty()) return;
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size()));
  for (const auto& [partition, offset] : offsets) {
    rd_kafka_topic_partition_list_add(list, options_.topic.c_str(), partition)->offset = offset;
  }
  rd_kafka_commit(static_cast<rd_kafka_t*>(consumer), list, synchronous ? 0 : 1);
  rd_kafka_topic_partition_list_destroy(list);
}

// The reader thread: polls the consumer, hands records to the graph, commits what is done.
void consumer_reader::consume(io::detail::thread_feed<record>& feed) {
  rd_kafka_t* consumer = nullptr;
  const std::string where = "spate::kafka: topic '" + options_.topic + "' at " + options_.brokers;
  try {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    set(conf, "bootstrap.servers", options_.brokers);
    set(conf, "group.id", options_.group);
    set(conf, "enable.auto.commit", "false");
    set(conf, "auto.offset.reset", "earliest");
    set(conf, "enable.partition.eof", options_.stop_at_end ? "true" : "false");
    for (const auto& [key, value] : options_.settings) set(conf, key, value);
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_rebalance_cb(conf, &consumer_callbacks::rebalance);
    char error[512];
    consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
    if (consumer == nullptr) throw std::runtime_error(where + ": " + error);
    rd_kafka_poll_set_consumer(consumer);
    rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, options_.topic.c_str(), RD_KAFKA_PARTITION_UA);
    const rd_kafka_resp_err_t subscribed = rd_kafka_subscribe(consumer, topics);
    rd_kafka_topic_partition_list_destroy(topics);
    if (subscribed) throw std::runtime_error(where + ": " + rd_kafka_err2str(subscribed));

    auto last_commit = std::chrono::steady_clock::now();
    while (!feed.stopping()) {
      if (rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 50)) {
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
          at_end_.insert(m->partition);
          rd_kafka_message_destroy(m);  // rd_kafka_destroy waits for every message
        } else if (m->err) {
          const std::string text = rd_kafka_message_errstr(m);
          const bool fatal = is_fatal(m->err);
          rd_kafka_message_destroy(m);
          if (fatal) throw std::runtime_error(where + ": " + text);
        } else {
          at_end_.erase(m->partition);
          record r{m->key ? std::string(static_cast<const char*>(m->key), m->key_len) : "",
                   std::string(static_cast<const char*>(m->payload), m->len),
                   tracker_.emitted(m->partition, m->offset)};
          rd_kafka_message_destroy(m);
          if (!feed.push(std::move(r))) break;
        }
      }
      const auto now = std::chrono::steady_clock::now();
      if (now - last_commit >= options_.commit_interval) {
        commit(consumer, false);
        last_commit = now;
      }
      if (options_.stop_at_end && !assigned_.empty() && at_end_.size() == assigned_.size()) break;
    }
    feed.close();
    // The end of the stream: commit once the graph has processed what was read (or, when
    // the graph is going away, what it did process).
    while (!feed.stopping() && tracker_.in_flight() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    commit(consumer, true);
    rd_kafka_consumer_close(consumer);
    rd_kafka_destroy(consumer);
  } catch (const std::exception& e) {
    fail(e.what());
    if (consumer != nullptr) {
      commit(consumer, true);
      rd_kafka_consumer_close(consumer);
      rd_kafka_destroy(consumer);
    }
    feed.close();
  }
}

}  // namespace spate::kafka::detail
