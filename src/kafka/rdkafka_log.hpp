#pragma once
// librdkafka's own log lines (connection failures, broker state), which it prints to stderr
// by default, sent to spate's log instead (component "kafka"), for every handle spate makes;
// and the small helpers every librdkafka handle's code shares (settings, partition lists,
// timeouts).
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "spate/log/log.hpp"

namespace spate::kafka::detail {

// librdkafka's levels are syslog's: 0-3 emergency..error, 4 warning, 5-6 notice and info,
// 7 debug. Called on librdkafka's own threads (the log is thread-safe); noexcept because an
// exception must not unwind into C (a line that cannot be built for want of memory is lost).
inline void rdkafka_log(const rd_kafka_t*, int syslog_level, const char* facility,
                        const char* text) noexcept {
  const log::level severity = syslog_level <= 3   ? log::level::error
                              : syslog_level == 4 ? log::level::warn
                              : syslog_level <= 6 ? log::level::info
                                                  : log::level::debug;
  if (!log::enabled(severity)) return;
  try {
    log::write(severity, "kafka", std::string("librdkafka ") + facility + ": " + text);
  } catch (...) {
  }
}

// Sets one property, or destroys `conf` and throws naming the property, the value and
// librdkafka's reason (prefixed by `where`).
inline void set_or_throw(rd_kafka_conf_t* conf, const std::string& key, const std::string& value,
                         const std::string& where = "spate::kafka") {
  char error[512];
  if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), error, sizeof error) !=
      RD_KAFKA_CONF_OK) {
    rd_kafka_conf_destroy(conf);
    throw std::invalid_argument(where + ": setting " + key + "=" + value + ": " + error);
  }
}

// "[0, 2, 3]": a list's partitions, for the log.
inline std::string describe_partitions(const rd_kafka_topic_partition_list_t* partitions) {
  std::string text = "[";
  for (int i = 0; i < partitions->cnt; ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(partitions->elems[i].partition);
  }
  return text + "]";
}

// Milliseconds from now until `deadline`, clamped to 0..60,000 (a librdkafka timeout).
inline int millis_until(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::clamp<long long>(left.count(), 0, 60'000));
}

// Before rd_kafka_new(), which takes the configuration.
inline void log_through_spate(rd_kafka_conf_t* conf) {
  rd_kafka_conf_set_log_cb(conf, &rdkafka_log);
}

}  // namespace spate::kafka::detail
