#include "committed_offsets.hpp"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <stdexcept>

#include "rdkafka_log.hpp"

namespace spate::kafka::detail {

std::map<std::int32_t, committed_offset> read_committed_offsets(
    const std::string& brokers, const std::map<std::string, std::string>& settings,
    const std::string& group, const std::string& topic, const std::vector<std::int32_t>& partitions,
    std::chrono::milliseconds timeout, const std::string& where) {
  // A consumer handle that joins nothing: it only asks the group coordinator, through the
  // caller's connection settings (security and the like), minus what only a producer takes
  // (librdkafka would warn of each).
  static constexpr std::string_view producer_only[] = {"transactional.id",
                                                       "transaction.timeout.ms",
                                                       "enable.idempotence",
                                                       "acks",
                                                       "linger.ms",
                                                       "batch.size",
                                                       "batch.num.messages",
                                                       "compression.type",
                                                       "compression.codec",
                                                       "queue.buffering.max.messages",
                                                       "queue.buffering.max.kbytes",
                                                       "queue.buffering.max.ms",
                                                       "message.timeout.ms",
                                                       "delivery.timeout.ms",
                                                       "retries",
                                                       "partitioner",
                                                       "request.required.acks",
                                                       "enable.gapless.guarantee"};
  std::map<std::string, std::string> consumer_settings;
  for (const auto& [key, value] : settings) {
    if (std::find(std::begin(producer_only), std::end(producer_only), key) ==
        std::end(producer_only)) {
      consumer_settings[key] = value;
    }
  }
  consumer_settings["bootstrap.servers"] = brokers;
  consumer_settings["group.id"] = group;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [key, value] : consumer_settings) set_or_throw(conf, key, value, where);
  char error[512];
  log_through_spate(conf);
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
  if (consumer == nullptr) {
    rd_kafka_conf_destroy(conf);  // still ours when rd_kafka_new fails
    throw std::runtime_error(where + ": " + error);
  }
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size()));
  for (const std::int32_t partition : partitions) {
    rd_kafka_topic_partition_list_add(list, topic.c_str(), partition);
  }
  const auto millis = static_cast<int>(std::clamp<long long>(timeout.count(), 1, 3'600'000));
  const rd_kafka_resp_err_t failed = rd_kafka_committed(consumer, list, millis);
  std::string problem;
  if (failed) {
    problem = "reading the offsets group '" + group + "' committed: " + rd_kafka_err2str(failed);
  }
  std::map<std::int32_t, committed_offset> found;
  for (int i = 0; problem.empty() && i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& p = list->elems[i];
    if (p.err) {
      problem = "reading the offset group '" + group + "' committed for partition " +
                std::to_string(p.partition) + ": " + rd_kafka_err2str(p.err);
      break;
    }
    committed_offset& c = found[p.partition];
    c.offset = p.offset;
    if (p.offset >= 0 && p.metadata != nullptr) {
      c.metadata.assign(static_cast<const char*>(p.metadata), p.metadata_size);
    }
  }
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_destroy_flags(consumer, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  if (!problem.empty()) throw std::runtime_error(where + ": " + problem);
  return found;
}

std::optional<checkpoint_tag> parse_checkpoint_tag(std::string_view metadata) {
  if (!metadata.starts_with(checkpoint_tag_prefix)) return std::nullopt;
  checkpoint_tag tag;
  std::string_view digits = metadata.substr(checkpoint_tag_prefix.size());
  if (digits.ends_with(checkpoint_tag_end)) {
    tag.at_end = true;
    digits.remove_suffix(checkpoint_tag_end.size());
  }
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), tag.id);
  if (ec != std::errc{} || end != digits.data() + digits.size()) {
    if (tag.at_end) return checkpoint_tag{.id = 0, .at_end = true};  // an end is refused anyway
    return std::nullopt;
  }
  return tag;
}

}  // namespace spate::kafka::detail
