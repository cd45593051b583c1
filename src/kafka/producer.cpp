#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>

#include "rdkafka_log.hpp"
#include "spate/kafka/sink.hpp"

namespace spate::kafka::detail {

struct producer::state {
  rd_kafka_t* handle = nullptr;
  std::string topic;
  std::string where;
  std::mutex failure_mutex;
  std::string first_failure;
  std::atomic<bool> failed{false};
  std::atomic<bool> interrupted{false};
  // Set by the destructor before it purges: the reports it serves then mark nothing (an
  // input's tracker belongs to a source that may already be destroyed).
  bool torn_down = false;

  // Delivery reports run inside rd_kafka_poll/flush on the sink's thread.
  static void delivered(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto& self = *static_cast<state*>(opaque);
    auto* from = static_cast<position*>(m->_private);
    if (self.torn_down) {
      // Dropped: the input is not done, so it is read again (at-least-once).
    } else if (m->err) {
      const std::lock_guard lock(self.failure_mutex);
      if (!self.failed.exchange(true)) self.first_failure = rd_kafka_err2str(m->err);
    } else if (from != nullptr) {
      from->done();
    }
    delete from;
  }
  void throw_if_failed() {
    if (!failed.load()) return;
    const std::lock_guard lock(failure_mutex);
    throw std::runtime_error(where + ": a message was not delivered: " + first_failure);
  }
};

producer::producer(const producer_options& options) : state_(std::make_unique<state>()) {
  state_->topic = options.topic;
  state_->where = "spate::kafka: topic '" + options.topic + "' at " + options.brokers;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  auto set = [&](const std::string& key, const std::string& value) {
    if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), error, sizeof error) !=
        RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::invalid_argument("spate::kafka: setting " + key + "=" + value + ": " + error);
    }
  };
  set("bootstrap.servers", options.brokers);
  set("linger.ms", "5");
  // Keeps each partition in send order and without duplicates when librdkafka retries (a
  // new topic's first requests often meet a leader not yet elected).
  set("enable.idempotence", "true");
  for (const auto& [key, value] : options.settings) set(key, value);
  rd_kafka_conf_set_opaque(conf, state_.get());
  rd_kafka_conf_set_dr_msg_cb(conf, &state::delivered);
  log_through_spate(conf);
  state_->handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
  if (state_->handle == nullptr) throw std::runtime_error(state_->where + ": " + error);
}

producer::~producer() {
  state_->torn_down = true;
  // Nothing waits for the broker: what is queued or in flight is purged, and its reports
  // (served by the flush, which then has nothing left to send) only free the positions.
  rd_kafka_purge(state_->handle, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  rd_kafka_poll(state_->handle, 0);  // the purge queued its reports before it returned
  rd_kafka_flush(state_->handle, 100);
  rd_kafka_destroy(state_->handle);
}

void producer::interrupt() noexcept {
  state_->interrupted.store(true);
  rd_kafka_yield(state_->handle);  // kept by librdkafka's queue until the next poll
}

bool producer::send(message m) {
  state_->throw_if_failed();
  auto* from = m.from ? new position(*m.from) : nullptr;
  while (true) {
    const rd_kafka_resp_err_t error = rd_kafka_producev(
        state_->handle, RD_KAFKA_V_TOPIC(state_->topic.c_str()),
        RD_KAFKA_V_KEY(m.key.data(), m.key.size()),
        RD_KAFKA_V_VALUE(m.value.data(), m.value.size()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_OPAQUE(from), RD_KAFKA_V_END);
    if (error == RD_KAFKA_RESP_ERR_NO_ERROR) return true;
    if (error == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      if (state_->interrupted.load()) {
        delete from;
        return false;
      }
      // Waits for a delivery to make room; interrupt() ends the wait (rd_kafka_yield), so
      // the timeout only bounds how long one poll call lasts.
      rd_kafka_poll(state_->handle, 1000);
      continue;
    }
    delete from;
    throw std::runtime_error(state_->where + ": " + rd_kafka_err2str(error));
  }
}

void producer::poll() {
  rd_kafka_poll(state_->handle, 0);
  state_->throw_if_failed();
}

void producer::flush() {
  // rd_kafka_flush cannot be interrupted; its loop is done here with rd_kafka_poll, which
  // rd_kafka_yield ends.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (rd_kafka_outq_len(state_->handle) > 0) {
    if (state_->interrupted.load()) return;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      throw std::runtime_error(state_->where + ": messages still undelivered after 60 s");
    }
    rd_kafka_poll(state_->handle, static_cast<int>(std::min<long long>(left.count(), 1000)));
  }
  state_->throw_if_failed();
}

}  // namespace spate::kafka::detail
