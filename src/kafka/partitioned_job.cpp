#include "spate/kafka/partitioned_job.hpp"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string_view>

#include "committed_offsets.hpp"
#include "rdkafka_log.hpp"
#include "spate/log/log.hpp"
#include "spate/platform/exception_text.hpp"
#include "spate/state/checkpoint_store.hpp"

namespace spate::kafka {

namespace {

using clock = std::chrono::steady_clock;

std::vector<std::int32_t> partitions_of(const rd_kafka_topic_partition_list_t* list) {
  std::vector<std::int32_t> partitions;
  for (int i = 0; i < list->cnt; ++i) partitions.push_back(list->elems[i].partition);
  std::sort(partitions.begin(), partitions.end());
  return partitions;
}

}  // namespace

// librdkafka's callbacks, on the member thread (inside its polls).
struct membership_callbacks {
  // P1 and P2. This consumer only holds the partitions in the group; each partition's graph
  // reads its own. librdkafka's group state needs them assigned here too (an assign of
  // nothing leaves the group waiting for the assign call, and deaf to the next rebalance),
  // so they are assigned at their ends and paused at once: nothing is fetched.
  static void rebalance(rd_kafka_t* consumer, rd_kafka_resp_err_t error,
                        rd_kafka_topic_partition_list_t* list, void* opaque) noexcept {
    auto& self = *static_cast<partitioned_job*>(opaque);
    const bool assigning = error == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS;
    // Nothing may unwind through librdkafka's C frames.
    try {
      self.answered_ = true;
      const auto partitions = partitions_of(list);
      log::write(log::level::info, "kafka",
                 "partitioned job on '" + self.options_.topic +
                     "': " + (assigning ? "assigned" : "revoked") + " partitions " +
                     detail::describe_partitions(list));
      const char* protocol = assigning ? rd_kafka_rebalance_protocol(consumer) : nullptr;
      if (protocol != nullptr && std::string_view(protocol) == "COOPERATIVE") {
        throw std::invalid_argument(
            "the group rebalances incrementally (COOPERATIVE); a partitioned job supports "
            "eager rebalancing only (P2): leave partition.assignment.strategy and "
            "group.protocol at their defaults");
      }
      if (assigning) {
        self.start_partitions(partitions);
      } else {
        self.stop_partitions(partitions);
      }
    } catch (...) {
      // P2 whatever failed: no partition is let go while its graph may run.
      if (!assigning) self.stop_all_partitions();
      try {
        self.fail(std::nullopt,
                  "spate::kafka::partitioned_job: topic '" + self.options_.topic +
                      "': a rebalance failed: " + exception_text(std::current_exception()));
      } catch (...) {  // out of memory: the job stays as it is
      }
    }
    if (assigning) {
      for (int i = 0; i < list->cnt; ++i) list->elems[i].offset = RD_KAFKA_OFFSET_END;
      rd_kafka_assign(consumer, list);
      rd_kafka_pause_partitions(consumer, list);
    } else {
      rd_kafka_assign(consumer, nullptr);
    }
  }
  static void error(rd_kafka_t*, int error, const char* reason, void* opaque) noexcept {
    auto& self = *static_cast<partitioned_job*>(opaque);
    try {
      self.last_error_ = reason;
    } catch (...) {
    }
    if (error == RD_KAFKA_RESP_ERR__FATAL) self.fatal_ = true;
  }
};

partitioned_job::partitioned_job(runtime& rt, partitioned_options options, graph_factory make_graph)
    : runtime_(&rt), options_(std::move(options)), make_graph_(std::move(make_graph)) {
  if (options_.group.empty() || options_.topic.empty() || options_.checkpoint_root.empty()) {
    throw std::invalid_argument(
        "spate::kafka::partitioned_job: group, topic and checkpoint_root must be set");
  }
  // P2 needs eager rebalancing (librdkafka's default assignors and classic protocol).
  const auto setting = [&](const std::string& key) {  // lower case: librdkafka ignores case
    const auto it = options_.settings.find(key);
    std::string value = it == options_.settings.end() ? std::string() : it->second;
    std::transform(value.begin(), value.end(), value.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return value;
  };
  if (setting("partition.assignment.strategy").find("cooperative") != std::string::npos ||
      setting("group.protocol") == "consumer") {
    throw std::invalid_argument(
        "spate::kafka::partitioned_job: partition.assignment.strategy '" +
        setting("partition.assignment.strategy") + "', group.protocol '" +
        setting("group.protocol") +
        "': a partitioned job supports eager rebalancing only (protocol P2); leave both at "
        "their defaults");
  }
  member_ = std::thread([this] { member_thread(); });
}

partitioned_job::~partitioned_job() {
  stop();
  if (member_.joinable()) member_.join();
}

void partitioned_job::stop() {
  const std::lock_guard lock(mutex_);
  stop_requested_ = true;
  if (wake_queue_ != nullptr) rd_kafka_queue_yield(static_cast<rd_kafka_queue_t*>(wake_queue_));
}

void partitioned_job::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return failure_.has_value() || member_done_; });
  if (failure_) throw std::runtime_error(*failure_);
}

std::vector<std::int32_t> partitioned_job::partitions() const {
  const std::lock_guard lock(mutex_);
  std::vector<std::int32_t> held;
  for (const auto& [partition, revoked] : running_) {
    if (!revoked) held.push_back(partition);
  }
  return held;
}

void partitioned_job::fail(std::optional<std::int32_t> partition, const std::string& error) {
  const std::lock_guard lock(mutex_);
  if (!failure_) {
    failure_ = partition ? "spate::kafka::partitioned_job: topic '" + options_.topic +
                               "' partition " + std::to_string(*partition) + ": " + error
                         : error;
    log::write(log::level::error, "kafka", *failure_);
    // The member thread leaves the group now (P4): the partitions go to other processes.
    if (wake_queue_ != nullptr) rd_kafka_queue_yield(static_cast<rd_kafka_queue_t*>(wake_queue_));
  }
  changed_.notify_all();
}

// P1.
void partitioned_job::start_partitions(const std::vector<std::int32_t>& partitions) {
  for (const std::int32_t partition : partitions) {
    {
      const std::lock_guard lock(mutex_);
      if (failure_ || stop_requested_) return;  // a failed job starts nothing more
      running_[partition] = false;
    }
    partition_context context;
    context.partition = partition;
    context.checkpoint_directory =
        options_.checkpoint_root / ("partition-" + std::to_string(partition));
    context.transactional_id = options_.group + "-partition-" + std::to_string(partition);
    try {
      refuse_checkpoints_out_of_view(context);
      auto g = make_graph_(context);
      // P4: the hook runs on the thread that ended the graph; it must not block.
      g->start(*runtime_, [this, partition](const std::string& error) {
        bool revoked = false;
        {
          const std::lock_guard lock(mutex_);
          const auto it = running_.find(partition);
          revoked = it == running_.end() || it->second;
        }
        if (!revoked) fail(partition, error.empty() ? "its graph ended by itself" : error);
      });
      graphs_[partition] = std::move(g);
      if (options_.on_started) options_.on_started(partition, *graphs_[partition]);
    } catch (...) {
      {
        const std::lock_guard lock(mutex_);
        running_.erase(partition);
      }
      fail(partition, "its graph did not start: " + exception_text(std::current_exception()));
      return;
    }
  }
}

// A partition whose group committed the offsets of one of its checkpoints, while its
// directory here holds none: the previous holder's checkpoints are not in view (the
// processes do not share checkpoint_root, or it was emptied). Starting afresh would read
// on from the committed offsets with empty state, counting from nothing again.
void partitioned_job::refuse_checkpoints_out_of_view(const partition_context& context) const {
  if (state::checkpoint_store::holds_checkpoints(context.checkpoint_directory)) return;
  auto settings = options_.settings;
  settings.erase("group.instance.id");  // (the reader joins nothing)
  const auto timeout = options_.connect_timeout.count() > 0 ? options_.connect_timeout
                                                            : std::chrono::milliseconds(30'000);
  const auto committed = detail::read_committed_offsets(
      options_.brokers, settings, options_.group, options_.topic, {context.partition}, timeout,
      "reading the offsets committed for it");
  for (const auto& [partition, c] : committed) {
    if (const auto tag = detail::parse_checkpoint_tag(c.metadata)) {
      throw std::runtime_error(
          "group '" + options_.group + "' committed offset " + std::to_string(c.offset) +
          " with its checkpoint " + std::to_string(tag->id) + ", but " +
          context.checkpoint_directory.string() +
          " holds no complete checkpoint: every process of the job must see the same "
          "checkpoint_root");
    }
  }
}

// P2 for every partition whose graph runs here.
void partitioned_job::stop_all_partitions() noexcept {
  try {
    std::vector<std::int32_t> held;
    for (const auto& [partition, g] : graphs_) held.push_back(partition);
    stop_partitions(held);
  } catch (...) {  // (out of memory: a list, a log line) cancel and wait one by one
    {
      const std::lock_guard lock(mutex_);
      for (auto& [partition, revoked] : running_) revoked = true;  // P4: not failures
    }
    for (auto& [partition, g] : graphs_) {
      try {
        g->cancel();
        g->wait();
      } catch (...) {
      }
    }
    graphs_.clear();
    const std::lock_guard lock(mutex_);
    running_.clear();
  }
}

// P2: cancel all first, then wait, so that the partitions' shutdowns overlap.
void partitioned_job::stop_partitions(const std::vector<std::int32_t>& partitions) {
  {
    const std::lock_guard lock(mutex_);
    for (const std::int32_t partition : partitions) {
      if (const auto it = running_.find(partition); it != running_.end()) it->second = true;
    }
  }
  for (const std::int32_t partition : partitions) {
    if (const auto it = graphs_.find(partition); it != graphs_.end()) it->second->cancel();
  }
  for (const std::int32_t partition : partitions) {
    const auto it = graphs_.find(partition);
    if (it == graphs_.end()) continue;
    try {
      it->second->wait();
    } catch (...) {  // the failure a cancel may end with: logged only
      try {
        log::write(log::level::warn, "kafka",
                   "partitioned job on '" + options_.topic + "': partition " +
                       std::to_string(partition) +
                       " ended with: " + exception_text(std::current_exception()));
      } catch (...) {  // (out of memory) every graph is still waited for and erased
      }
    }
    graphs_.erase(it);
    if (options_.on_stopped) {
      try {
        options_.on_stopped(partition);
      } catch (...) {
        try {
          fail(partition, "on_stopped threw: " + exception_text(std::current_exception()));
        } catch (...) {  // (out of memory) the other graphs are still waited for
        }
      }
    }
  }
  const std::lock_guard lock(mutex_);
  for (const std::int32_t partition : partitions) running_.erase(partition);
}

void partitioned_job::member_thread() {
  rd_kafka_t* consumer = nullptr;
  rd_kafka_queue_t* queue = nullptr;
  const std::string where =
      "spate::kafka::partitioned_job: topic '" + options_.topic + "' at " + options_.brokers;
  try {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    const auto set = [&](const std::string& key, const std::string& value) {
      detail::set_or_throw(conf, key, value, where);
    };
    set("bootstrap.servers", options_.brokers);
    set("group.id", options_.group + "-members");
    set("enable.auto.commit", "false");
    for (const auto& [key, value] : options_.settings) set(key, value);
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_rebalance_cb(conf, &membership_callbacks::rebalance);
    rd_kafka_conf_set_error_cb(conf, &membership_callbacks::error);
    detail::log_through_spate(conf);
    char error[512];
    consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
    if (consumer == nullptr) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(where + ": " + error);
    }
    rd_kafka_poll_set_consumer(consumer);
    queue = rd_kafka_queue_get_consumer(consumer);
    {
      const std::lock_guard lock(mutex_);
      wake_queue_ = queue;
    }
    rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, options_.topic.c_str(), RD_KAFKA_PARTITION_UA);
    const rd_kafka_resp_err_t subscribed = rd_kafka_subscribe(consumer, topics);
    rd_kafka_topic_partition_list_destroy(topics);
    if (subscribed) throw std::runtime_error(where + ": " + rd_kafka_err2str(subscribed));

    const auto connect_deadline = options_.connect_timeout.count() > 0
                                      ? clock::now() + options_.connect_timeout
                                      : clock::time_point::max();
    while (true) {
      {
        const std::lock_guard lock(mutex_);
        if (stop_requested_ || failure_) break;
      }
      if (!answered_) {
        // The coordinator answered once it gave a member id, before any assignment (which
        // may wait for the session of a killed member to end).
        if (char* member = rd_kafka_memberid(consumer)) {
          answered_ = *member != '\0';
          rd_kafka_mem_free(consumer, member);
        }
      }
      if (fatal_) {
        char reason[512];
        rd_kafka_fatal_error(consumer, reason, sizeof reason);
        throw std::runtime_error(where +
                                 ": a fatal error (fenced by another member with the "
                                 "same group.instance.id?): " +
                                 reason);
      }
      if (!answered_ && clock::now() >= connect_deadline) {
        throw std::runtime_error(
            where + ": no broker answered within " +
            std::to_string(options_.connect_timeout.count()) + " ms (connect_timeout): " +
            (last_error_.empty() ? "no error reported by librdkafka" : last_error_));
      }
      // Records never come (the partitions are assigned here paused): the poll serves the
      // group's callbacks, and ends at the connect deadline, at once on stop() or a failure
      // (their yield), or on an error event (a fatal one is checked above).
      rd_kafka_message_t* m =
          rd_kafka_consumer_poll(consumer, answered_ ? -1 : detail::millis_until(connect_deadline));
      if (m != nullptr) {
        if (m->err && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
          last_error_ = rd_kafka_message_errstr(m);
          if (m->err == RD_KAFKA_RESP_ERR__FATAL) fatal_ = true;
        }
        rd_kafka_message_destroy(m);
      }
    }
  } catch (...) {
    fail(std::nullopt, exception_text(std::current_exception()));  // names the job already
  }
  // P3: leave the group (its revoke callback stops the partitions), bounded.
  if (consumer != nullptr) {
    {
      const std::lock_guard lock(mutex_);
      wake_queue_ = nullptr;
    }
    if (queue != nullptr) rd_kafka_queue_destroy(queue);
    auto deadline = clock::now() + options_.shutdown_timeout;
    rd_kafka_queue_t* close_queue = rd_kafka_queue_new(consumer);
    if (rd_kafka_error_t* error = rd_kafka_consumer_close_queue(consumer, close_queue)) {
      rd_kafka_error_destroy(error);
    } else {
      while (!rd_kafka_consumer_closed(consumer) && clock::now() < deadline) {
        rd_kafka_event_t* e =
            rd_kafka_queue_poll(close_queue, std::max(1, detail::millis_until(deadline)));
        if (e == nullptr) continue;
        if (rd_kafka_event_type(e) == RD_KAFKA_EVENT_REBALANCE) {
          membership_callbacks::rebalance(consumer, rd_kafka_event_error(e),
                                          rd_kafka_event_topic_partition_list(e), this);
          // The graphs' cancel took its own bound; the leave itself gets the whole timeout.
          deadline = clock::now() + options_.shutdown_timeout;
        }
        rd_kafka_event_destroy(e);
      }
    }
    rd_kafka_queue_destroy(close_queue);
  }
  // Whatever the leave did not stop (it timed out, or never began), stopped before the
  // consumer is destroyed: while the member may still be in the group, the group must not
  // give these partitions away with their graphs running.
  stop_all_partitions();
  if (consumer != nullptr) rd_kafka_destroy_flags(consumer, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  const std::lock_guard lock(mutex_);
  member_done_ = true;
  changed_.notify_all();
}

}  // namespace spate::kafka
