#pragma once
// librdkafka's in-process mock cluster for the Kafka fault tests (no JVM), and what they
// share: writing records, reading options.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "../test_runtime.hpp"
#include "spate/flow.hpp"
#include "spate/kafka/sink.hpp"
#include "spate/kafka/source.hpp"

namespace spate::test::kafka_mock {

namespace flow = spate::flow;
namespace kafka = spate::kafka;
using namespace std::chrono_literals;

inline spate::runtime& rt() {
  return spate::test::shared_runtime();
}

// One mock broker in this process (librdkafka's test cluster).
class mock_cluster {
 public:
  mock_cluster() {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "0", error, sizeof error);
    handle_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
    cluster_ = rd_kafka_mock_cluster_new(handle_, 1);
    brokers_ = rd_kafka_mock_cluster_bootstraps(cluster_);
  }
  ~mock_cluster() {
    rd_kafka_mock_cluster_destroy(cluster_);
    rd_kafka_destroy(handle_);
  }
  mock_cluster(const mock_cluster&) = delete;
  mock_cluster& operator=(const mock_cluster&) = delete;

  const std::string& brokers() const { return brokers_; }
  void create_topic(const std::string& topic, int partitions) {
    rd_kafka_mock_topic_create(cluster_, topic.c_str(), partitions, 1);
  }
  void down() { rd_kafka_mock_broker_set_down(cluster_, 1); }
  void up() { rd_kafka_mock_broker_set_up(cluster_, 1); }
  void delay(int rtt_ms) { rd_kafka_mock_broker_set_rtt(cluster_, 1, rtt_ms); }

 private:
  rd_kafka_t* handle_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  std::string brokers_;
};

// n records "<i>" through spate's own sink.
inline void produce(const std::string& brokers, const std::string& topic, int n) {
  flow::graph job(flow::pipeline(
      flow::generate<int>(n, [](std::size_t i) { return int(i); }),
      kafka::sink<int>({.brokers = brokers, .topic = topic, .settings = {}}, [](int& i) {
        return kafka::message{"k" + std::to_string(i % 7), std::to_string(i), std::nullopt};
      })));
  job.run(rt());
}

inline kafka::consumer_options reading(const std::string& brokers, const std::string& topic,
                                       const std::string& group) {
  kafka::consumer_options o;
  o.brokers = brokers;
  o.group = group;
  o.topic = topic;
  o.stop_at_end = true;
  o.shutdown_timeout = 2s;
  return o;
}

// A loopback address nobody listens on (a port the kernel gave, then closed).
inline std::string closed_port() {
  const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  if (probe < 0) throw std::runtime_error("socket: " + std::string(std::strerror(errno)));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof a;
  if (::bind(probe, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(probe, reinterpret_cast<sockaddr*>(&a), &length) != 0) {
    const int error = errno;
    ::close(probe);
    throw std::runtime_error("bind/getsockname: " + std::string(std::strerror(error)));
  }
  ::close(probe);
  return "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
}

}  // namespace spate::test::kafka_mock
