#include "spate/kafka/admin.hpp"

#include <librdkafka/rdkafka.h>

#include <memory>
#include <stdexcept>

#include "rdkafka_log.hpp"

namespace spate::kafka {

void create_topic(const std::string& brokers, const std::string& topic, int partitions) {
  char error[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", brokers.c_str(), error, sizeof error) !=
      RD_KAFKA_CONF_OK) {
    rd_kafka_conf_destroy(conf);
    throw std::invalid_argument("spate::kafka::create_topic: topic '" + topic + "': brokers '" +
                                brokers + "': " + std::string(error));
  }
  detail::log_through_spate(conf);
  std::unique_ptr<rd_kafka_t, void (*)(rd_kafka_t*)> admin(
      rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error), rd_kafka_destroy);
  if (!admin) {
    throw std::runtime_error("spate::kafka::create_topic: topic '" + topic + "' at " + brokers +
                             ": " + std::string(error));
  }
  std::unique_ptr<rd_kafka_NewTopic_t, void (*)(rd_kafka_NewTopic_t*)> request(
      rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, error, sizeof error),
      rd_kafka_NewTopic_destroy);
  if (!request) {
    throw std::invalid_argument("spate::kafka::create_topic: topic '" + topic + "': " + error);
  }
  std::unique_ptr<rd_kafka_queue_t, void (*)(rd_kafka_queue_t*)> queue(
      rd_kafka_queue_new(admin.get()), rd_kafka_queue_destroy);
  rd_kafka_NewTopic_t* topics[] = {request.get()};
  rd_kafka_CreateTopics(admin.get(), topics, 1, nullptr, queue.get());
  std::unique_ptr<rd_kafka_event_t, void (*)(rd_kafka_event_t*)> result(
      rd_kafka_queue_poll(queue.get(), 30'000), rd_kafka_event_destroy);
  const std::string where = "spate::kafka::create_topic: topic '" + topic + "' at " + brokers;
  if (!result) throw std::runtime_error(where + ": no answer within 30 s");
  size_t n = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(result.get()), &n);
  if (n != 1) throw std::runtime_error(where + ": no result");
  const rd_kafka_resp_err_t code = rd_kafka_topic_result_error(results[0]);
  if (code != RD_KAFKA_RESP_ERR_NO_ERROR && code != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
    throw std::runtime_error(where + ": " + rd_kafka_topic_result_error_string(results[0]));
  }
}

}  // namespace spate::kafka
