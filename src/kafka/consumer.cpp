#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "rdkafka_log.hpp"
#include "spate/kafka/source.hpp"

namespace spate::kafka::detail {

namespace {

using clock = std::chrono::steady_clock;

void set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value) {
  set_or_throw(conf, key, value);
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
  // Runs inside rd_kafka_consumer_poll (or the close queue's poll), on the reader thread.
  // Before partitions go, what is done there is committed (waiting at most until the
  // shutdown deadline, or shutdown_timeout while running), so their next owner starts after it.
  static void rebalance(rd_kafka_t* consumer, rd_kafka_resp_err_t error,
                        rd_kafka_topic_partition_list_t* partitions, void* opaque) {
    auto& self = *static_cast<consumer_reader*>(opaque);
    self.answered_ = true;
    const bool assigning = error == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS;
    // Nothing may unwind through librdkafka's C frames, and librdkafka must hear the new
    // assignment whatever happens here: a commit that fails only means the next owner reads
    // some records again (at-least-once).
    try {
      if (log::enabled(log::level::info)) {
        log::write(log::level::info, "kafka",
                   "topic '" + self.options_.topic + "': " + (assigning ? "assigned" : "revoked") +
                       " partitions " + describe_partitions(partitions));
      }
      self.skipped_.clear();
      if (assigning) {
        for (int i = 0; i < partitions->cnt; ++i) {
          rd_kafka_topic_partition_t& p = partitions->elems[i];
          self.tracker_.assign(p.partition);
          self.assigned_.insert(p.partition);
          // With checkpoints: where the checkpoint, or this reader, left the partition (the
          // group's committed offset otherwise).
          if (const auto at = self.resume_at_.find(p.partition); at != self.resume_at_.end()) {
            p.offset = at->second;
          }
        }
      } else {
        self.publish_to_graph();  // the graph must see what it is to mark before the commit
        self.commit(
            consumer, true,
            std::min(self.shutdown_deadline_, clock::now() + self.options_.shutdown_timeout));
        for (int i = 0; i < partitions->cnt; ++i) {
          self.tracker_.revoke(partitions->elems[i].partition);
          self.assigned_.erase(partitions->elems[i].partition);
          self.at_end_.erase(partitions->elems[i].partition);
        }
      }
    } catch (...) {
      log::write(log::level::error, "kafka", "a rebalance's bookkeeping failed (out of memory?)");
    }
    // An incremental (cooperative) assignor needs rd_kafka_incremental_assign: this source
    // supports the eager protocol only, and says so instead of reading what it does not track.
    if (const rd_kafka_resp_err_t failed =
            rd_kafka_assign(consumer, assigning ? partitions : nullptr)) {
      self.last_error_ = std::string("rd_kafka_assign: ") + rd_kafka_err2str(failed) +
                         " (spate's Kafka source supports eager rebalancing only)";
      log::write(log::level::error, "kafka", self.last_error_);
    }
  }
  // Served by the reader's polls: connection failures and the like, kept for the error a
  // source that reaches no broker fails with.
  static void error(rd_kafka_t*, int, const char* reason, void* opaque) {
    static_cast<consumer_reader*>(opaque)->last_error_ = reason;
  }
};

// consumer_options::partitions: read from the checkpoint's offsets, else from the group's
// committed ones (auto.offset.reset when none).
void consumer_reader::assign_by_hand(void* handle) {
  auto* consumer = static_cast<rd_kafka_t*>(handle);
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(options_.partitions.size()));
  for (const std::int32_t partition : options_.partitions) {
    const auto at = resume_at_.find(partition);
    rd_kafka_topic_partition_list_add(list, options_.topic.c_str(), partition)->offset =
        at != resume_at_.end() ? at->second : RD_KAFKA_OFFSET_STORED;
    tracker_.assign(partition);
    assigned_.insert(partition);
  }
  log::write(log::level::info, "kafka",
             "topic '" + options_.topic + "': reading partitions " + describe_partitions(list));
  const rd_kafka_resp_err_t failed = rd_kafka_assign(consumer, list);
  rd_kafka_topic_partition_list_destroy(list);
  if (failed) {
    throw std::runtime_error("spate::kafka: topic '" + options_.topic + "' at " + options_.brokers +
                             ": rd_kafka_assign: " + rd_kafka_err2str(failed));
  }
}

void consumer_reader::seek(const source_position& at) {
  if (at.group != options_.group || at.topic != options_.topic) {
    throw std::invalid_argument("the checkpoint holds a position in topic '" + at.topic +
                                "' for group '" + at.group + "', not topic '" + options_.topic +
                                "' for group '" + options_.group + "'");
  }
  for (const auto& [partition, offset] : at.next_offsets) {
    if (!options_.partitions.empty() &&
        std::find(options_.partitions.begin(), options_.partitions.end(), partition) ==
            options_.partitions.end()) {
      throw std::invalid_argument("the checkpoint holds a position in partition " +
                                  std::to_string(partition) + " of topic '" + at.topic +
                                  "', which this source does not read (its partitions are "
                                  "given by hand: another partition's checkpoint?)");
    }
  }
  sent_until_ = at.next_offsets;
  resume_at_ = at.next_offsets;
}

std::optional<position> consumer_reader::emitted(std::int32_t partition, std::int64_t offset) {
  if (!checkpointed_) return tracker_.emitted(partition, offset);
  // Checkpoints hold the positions: nothing to mark, nothing to commit.
  if (assigned_.count(partition) == 0) return std::nullopt;
  resume_at_[partition] = offset + 1;
  return position{.partition = partition, .offset = offset};
}

void consumer_reader::commit(void* handle, bool wait, clock::time_point deadline) {
  auto* consumer = static_cast<rd_kafka_t*>(handle);
  const auto offsets = tracker_.committable();
  if (offsets.empty()) return;
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size()));
  for (const auto& [partition, offset] : offsets) {
    rd_kafka_topic_partition_list_add(list, options_.topic.c_str(), partition)->offset = offset;
  }
  if (!wait) {
    rd_kafka_commit(consumer, list, 1);
  } else {
    // rd_kafka_commit(sync) waits as long as the broker takes (minutes when it is gone):
    // the result comes on a queue of our own instead, awaited until the deadline.
    rd_kafka_queue_t* results = rd_kafka_queue_new(consumer);
    rd_kafka_commit_queue(consumer, list, results, nullptr, nullptr);
    if (rd_kafka_event_t* e = rd_kafka_queue_poll(results, millis_until(deadline))) {
      std::string committed;
      for (const auto& [partition, offset] : offsets) {
        committed += (committed.empty() ? "" : ", ") + std::to_string(partition) + "@" +
                     std::to_string(offset);
      }
      if (rd_kafka_event_error(e) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        // A warning: the records are read again after a restart (at-least-once), not lost.
        log::write(log::level::warn, "kafka",
                   "topic '" + options_.topic + "': committing offsets " + committed +
                       " failed: " + rd_kafka_event_error_string(e));
      } else {
        log::write(log::level::info, "kafka",
                   "topic '" + options_.topic + "': committed offsets " + committed);
      }
      rd_kafka_event_destroy(e);
    } else {
      log::write(log::level::warn, "kafka",
                 "topic '" + options_.topic + "': offsets not committed: no answer in time");
    }
    rd_kafka_queue_destroy(results);
  }
  rd_kafka_topic_partition_list_destroy(list);
}

// The final commit and the group leave, both bounded by shutdown_timeout; then the handle is
// destroyed without librdkafka's own (unbounded) close.
void consumer_reader::shut_down(void* handle) {
  auto* consumer = static_cast<rd_kafka_t*>(handle);
  shutdown_deadline_ = clock::now() + options_.shutdown_timeout;
  commit(consumer, true, shutdown_deadline_);
  rd_kafka_queue_t* queue = rd_kafka_queue_new(consumer);
  if (rd_kafka_error_t* error = rd_kafka_consumer_close_queue(consumer, queue)) {
    rd_kafka_error_destroy(error);
  } else {
    while (!rd_kafka_consumer_closed(consumer) && clock::now() < shutdown_deadline_) {
      rd_kafka_event_t* e =
          rd_kafka_queue_poll(queue, std::max(1, millis_until(shutdown_deadline_)));
      if (e == nullptr) continue;
      if (rd_kafka_event_type(e) == RD_KAFKA_EVENT_REBALANCE) {
        consumer_callbacks::rebalance(consumer, rd_kafka_event_error(e),
                                      rd_kafka_event_topic_partition_list(e), this);
      }
      rd_kafka_event_destroy(e);
    }
  }
  rd_kafka_queue_destroy(queue);
  rd_kafka_destroy_flags(consumer, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
}

// The reader thread: polls the consumer, hands records to the graph, commits what is done.
void consumer_reader::consume(io::thread_feed<record>& feed) {
  rd_kafka_t* consumer = nullptr;
  rd_kafka_queue_t* wake_queue = nullptr;
  const std::string where = "spate::kafka: topic '" + options_.topic + "' at " + options_.brokers;
  bool closed = false;
  try {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    set(conf, "bootstrap.servers", options_.brokers);
    set(conf, "group.id", options_.group);
    set(conf, "enable.auto.commit", "false");
    set(conf, "auto.offset.reset", "earliest");
    // Partitions assigned by hand join no group, so no member id says a broker answered:
    // the first end-of-partition event does (one comes even for an empty partition).
    const bool by_hand = !options_.partitions.empty();
    set(conf, "enable.partition.eof", options_.stop_at_end || by_hand ? "true" : "false");
    for (const auto& [key, value] : options_.settings) set(conf, key, value);
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_rebalance_cb(conf, &consumer_callbacks::rebalance);
    rd_kafka_conf_set_error_cb(conf, &consumer_callbacks::error);
    log_through_spate(conf);
    char error[512];
    consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
    if (consumer == nullptr) throw std::runtime_error(where + ": " + error);
    rd_kafka_poll_set_consumer(consumer);
    // A stop request yields the consumer's poll and ends the tracker's waits at once.
    wake_queue = rd_kafka_queue_get_consumer(consumer);
    feed.set_wake_hook([this, wake_queue] {
      rd_kafka_queue_yield(wake_queue);
      tracker_.wake();
    });
    if (by_hand) {
      assign_by_hand(consumer);
    } else {
      rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
      rd_kafka_topic_partition_list_add(topics, options_.topic.c_str(), RD_KAFKA_PARTITION_UA);
      const rd_kafka_resp_err_t subscribed = rd_kafka_subscribe(consumer, topics);
      rd_kafka_topic_partition_list_destroy(topics);
      if (subscribed) throw std::runtime_error(where + ": " + rd_kafka_err2str(subscribed));
    }

    const auto started = clock::now();
    const auto connect_deadline = options_.connect_timeout.count() > 0
                                      ? started + options_.connect_timeout
                                      : clock::time_point::max();
    auto next_commit = started + options_.commit_interval;
    while (!feed.stopping()) {
      const auto now = clock::now();
      if (now >= next_commit) {
        commit(consumer, false);
        next_commit = now + options_.commit_interval;
      }
      if (!answered_ && !by_hand) {
        // Joined the group: the coordinator answered (even with no partitions to give).
        if (char* member = rd_kafka_memberid(consumer)) {
          answered_ = *member != '\0';
          rd_kafka_mem_free(consumer, member);
        }
      }
      if (!answered_ && now >= connect_deadline) {
        throw std::runtime_error(
            where + ": no broker answered within " +
            std::to_string(options_.connect_timeout.count()) + " ms (connect_timeout): " +
            (last_error_.empty() ? "no error reported by librdkafka" : last_error_));
      }
      // The waits below end at the next commit or the connect deadline, or at once on a
      // stop request (the wake hook); their timeouts are the schedule, not a polling period.
      const auto until =
          std::min(next_commit, answered_ ? clock::time_point::max() : connect_deadline);
      if (tracker_.in_flight() >= options_.max_in_flight) {
        feed.publish();  // the graph must see the records it is to mark
        tracker_.wait_below(options_.max_in_flight, feed.stop_flag(),
                            std::chrono::milliseconds(millis_until(until)));
        continue;
      }
      // A record at hand is taken without waiting; before a wait, the graph is told of the
      // records pushed so far (thread_feed T1).
      rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 0);
      if (m == nullptr) {
        feed.publish();
        m = rd_kafka_consumer_poll(consumer, millis_until(until));
      }
      if (m != nullptr) {
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
          answered_ = true;
          if (options_.stop_at_end && assigned_.count(m->partition) != 0) {
            at_end_.insert(m->partition);
          }
          rd_kafka_message_destroy(m);  // rd_kafka_destroy waits for every message
        } else if (m->err) {
          const std::string text = rd_kafka_message_errstr(m);
          const bool fatal = is_fatal(m->err);
          rd_kafka_message_destroy(m);
          if (fatal) throw std::runtime_error(where + ": " + text);
          last_error_ = text;
        } else if (const auto at = emitted(m->partition, m->offset)) {
          answered_ = true;
          at_end_.erase(m->partition);
          record r{m->key ? std::string(static_cast<const char*>(m->key), m->key_len) : "",
                   std::string(static_cast<const char*>(m->payload), m->len), *at};
          rd_kafka_message_destroy(m);
          if (!feed.push(std::move(r))) break;
        } else {
          // A record of a partition this member does not own (one fetched before a
          // rebalance may still be handed out): its owner reads it. Logged once per
          // partition and rebalance.
          if (skipped_.insert(m->partition).second) {
            log::write(log::level::warn, "kafka",
                       "topic '" + options_.topic + "': skipping records of partition " +
                           std::to_string(m->partition) + " (from offset " +
                           std::to_string(m->offset) + "), which is not assigned here");
          }
          rd_kafka_message_destroy(m);
        }
      }
      if (options_.stop_at_end && !assigned_.empty() && at_end_.size() == assigned_.size()) break;
    }
    feed.close();
    closed = true;
    // The end of the stream: the final commit must cover every record the graph marks, so
    // wait until it has marked all it was given (or the source is stopped: cancelled,
    // destroyed), committing on the way.
    while (!feed.stopping() && tracker_.in_flight() > 0) {
      tracker_.wait_below(1, feed.stop_flag(), options_.commit_interval);
      commit(consumer, false);
    }
  } catch (const std::exception& e) {
    if (!closed) {
      fail(e.what());
      feed.close();
      closed = true;
    } else {
      log::write(log::level::error, "kafka", e.what());
    }
  }
  if (!closed) feed.close();
  if (consumer != nullptr) {
    feed.set_wake_hook(nullptr);
    if (wake_queue != nullptr) rd_kafka_queue_destroy(wake_queue);
    shut_down(consumer);
  }
}

}  // namespace spate::kafka::detail
