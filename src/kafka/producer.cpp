#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "committed_offsets.hpp"
#include "rdkafka_log.hpp"
#include "spate/kafka/sink.hpp"
#include "spate/kafka/source.hpp"
#include "spate/state/codec.hpp"

namespace spate::kafka::detail {

struct producer::state {
  rd_kafka_t* handle = nullptr;
  std::string topic;
  std::string where;
  std::mutex failure_mutex;
  std::string first_failure;
  std::atomic<bool> failed{false};
  std::atomic<bool> interrupted{false};
  bool transactional = false;
  std::string transactional_id;
  std::chrono::milliseconds commit_timeout{};
  // T1..T4: the checkpoint whose flushed transaction waits for its outcome (0: none). Set by
  // the sink's thread (T1), cleared under `outcome_mutex` by the commit or abort_commit that
  // settles it (the coordinator's thread; the sink's own at the end, T4); send() reads it
  // without the lock and waits under it (the store it waits for is made under the lock).
  std::atomic<std::uint64_t> prepared{0};
  std::mutex outcome_mutex;
  std::condition_variable outcome;
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

producer::producer(const producer_options& options, bool transactional)
    : state_(std::make_unique<state>()) {
  state_->transactional = transactional;
  state_->commit_timeout = options.commit_timeout;
  state_->topic = options.topic;
  state_->where = "spate::kafka: topic '" + options.topic + "' at " + options.brokers;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  auto set = [&](const std::string& key, const std::string& value) {
    set_or_throw(conf, key, value);
  };
  set("bootstrap.servers", options.brokers);
  set("linger.ms", "5");
  // Keeps each partition in send order and without duplicates when librdkafka retries (a
  // new topic's first requests often meet a leader not yet elected).
  set("enable.idempotence", "true");
  if (transactional) set("transactional.id", options.transactional_id);
  for (const auto& [key, value] : options.settings) set(key, value);
  rd_kafka_conf_set_opaque(conf, state_.get());
  rd_kafka_conf_set_dr_msg_cb(conf, &state::delivered);
  log_through_spate(conf);
  state_->handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
  if (state_->handle == nullptr) {
    rd_kafka_conf_destroy(conf);  // still ours when rd_kafka_new fails
    throw std::runtime_error(state_->where + ": " + error);
  }
  state_->transactional_id = options.transactional_id;
}

bool producer::start_transactions() {
  // Fences the producer of an earlier run with this transactional.id, aborting its open
  // transaction (what it wrote after its last commit), then opens ours. In slices, so that
  // interrupt() ends the wait: a timed-out init_transactions may be called again.
  constexpr std::chrono::milliseconds slice{250};
  const auto deadline = std::chrono::steady_clock::now() + state_->commit_timeout;
  while (true) {
    if (state_->interrupted.load()) return false;
    const auto now = std::chrono::steady_clock::now();
    rd_kafka_error_t* error = rd_kafka_init_transactions(
        state_->handle,
        timeout_ms(std::min<std::chrono::milliseconds>(
            slice, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now))));
    if (error != nullptr && rd_kafka_error_is_retriable(error) &&
        std::chrono::steady_clock::now() < deadline) {
      rd_kafka_error_destroy(error);
      continue;
    }
    check(error, "init_transactions (transactional.id '" + state_->transactional_id + "')");
    break;
  }
  check(rd_kafka_begin_transaction(state_->handle), "begin_transaction");
  return true;
}

int producer::timeout_ms(std::chrono::milliseconds t) {
  return static_cast<int>(std::clamp<long long>(t.count(), 1, 3'600'000));
}

int producer::millis_left(std::chrono::steady_clock::time_point deadline) {
  return timeout_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now()));
}

void producer::check(rd_kafka_error_s* error, const std::string& what) const {
  if (error == nullptr) return;
  const std::string text = rd_kafka_error_string(error);
  const bool fatal = rd_kafka_error_is_fatal(error) != 0;
  rd_kafka_error_destroy(error);
  throw std::runtime_error(state_->where + ": " + what + ": " + text + (fatal ? " (fatal)" : ""));
}

producer::~producer() {
  state_->torn_down = true;
  if (state_->transactional) {
    // Cancelled (or failed): what the open transaction holds is aborted now, so that
    // read_committed consumers are not held back until the broker's transaction timeout.
    // Purged first: the abort need not wait for deliveries.
    rd_kafka_purge(state_->handle, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    const int bound = std::min(timeout_ms(state_->commit_timeout), 5'000);
    if (rd_kafka_error_t* e = rd_kafka_abort_transaction(state_->handle, bound)) {
      rd_kafka_error_destroy(e);  // fenced, or no broker: the next run's fencing aborts it
    }
  }
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
  {
    const std::lock_guard lock(state_->outcome_mutex);  // held only for flag changes
  }
  state_->outcome.notify_all();
}

bool producer::await_outcome() {
  if (state_->prepared.load(std::memory_order_acquire) == 0) return true;
  std::unique_lock lock(state_->outcome_mutex);
  // Ended by the coordinator's commit or abort_commit (T2, T3), or by interrupt(): never
  // by a timeout (the coordinator answers every checkpoint it started, or the graph ends).
  state_->outcome.wait(lock, [&] {
    return state_->prepared.load(std::memory_order_acquire) == 0 || state_->interrupted.load();
  });
  return state_->prepared.load(std::memory_order_acquire) == 0;
}

void producer::prepare_commit(std::uint64_t id) {
  // Delivered (durable, not yet visible) before the acknowledgement, as Flink's preCommit:
  // a failed message fails this checkpoint's node, not a commit after the manifest.
  try {
    flush(state_->commit_timeout);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(e.what()) +
                             " (flushing the transaction at the barrier "
                             "of checkpoint " +
                             std::to_string(id) + ")");
  }
  state_->prepared.store(id, std::memory_order_release);
}

void producer::abort_commit(std::uint64_t id) {
  {
    const std::lock_guard lock(state_->outcome_mutex);
    if (state_->prepared.load() != id) return;
    state_->prepared.store(0, std::memory_order_release);
  }
  state_->outcome.notify_all();
}

namespace {
constexpr std::chrono::milliseconds retry_backoff{100};
constexpr const char* no_kafka_source =
    "exactly_once_sink needs a kafka::source in the graph: its transactions carry that "
    "source's offsets, which tell a restart which checkpoint's output was committed";

// The Kafka source positions among a checkpoint's. Every source must be a Kafka source: a
// transaction can carry only Kafka offsets, and output from another source would be
// committed without anything telling a restart so (it would be written again).
std::vector<std::pair<std::string, source_position>> kafka_positions(
    const flow::checkpoint_commit& done) {
  std::vector<std::pair<std::string, source_position>> found;
  for (const auto& [source, bytes] : done.positions) {
    bool tagged = false;
    try {
      spate::state::byte_reader in(bytes);
      tagged = spate::state::decode<std::string>(in) == spate::state::codec<source_position>::tag;
    } catch (const std::exception&) {
      // not a string first: not a Kafka source's
    }
    if (!tagged) {
      throw std::invalid_argument(
          "exactly_once_sink needs every source of the graph to be a "
          "kafka::source (its transactions can carry only Kafka "
          "offsets), but '" +
          source + "' is not");
    }
    // Tagged: a decoding error here is a damaged position, and says so.
    found.emplace_back(source, spate::state::from_bytes<source_position>(bytes));
  }
  return found;
}
}  // namespace

bool producer::commit(const flow::checkpoint_commit& done) {
  if (done.at_end) {
    if (!await_outcome()) return false;  // interrupted
    flush(state_->commit_timeout);
  } else if (state_->prepared.load(std::memory_order_acquire) != done.id) {
    return false;  // this sink did not prepare it (it failed or was cancelled first)
  }
  // The offsets of every Kafka source in the checkpoint, one request per source, tagged
  // with the checkpoint, so that a restart knows which checkpoint this commit matches.
  const std::string tag = std::string(checkpoint_tag_prefix) + std::to_string(done.id) +
                          (done.at_end ? std::string(checkpoint_tag_end) : "");
  const auto sources = kafka_positions(done);
  if (sources.empty()) throw std::invalid_argument(state_->where + ": " + no_kafka_source);
  const auto deadline = std::chrono::steady_clock::now() + state_->commit_timeout;
  for (const auto& [source, at] : sources) {
    if (state_->interrupted.load()) return false;
    if (at.next_offsets.empty()) continue;
    rd_kafka_topic_partition_list_t* offsets =
        rd_kafka_topic_partition_list_new(static_cast<int>(at.next_offsets.size()));
    for (const auto& [partition, offset] : at.next_offsets) {
      rd_kafka_topic_partition_t* p =
          rd_kafka_topic_partition_list_add(offsets, at.topic.c_str(), partition);
      p->offset = offset;
      p->metadata = rd_kafka_mem_malloc(state_->handle, tag.size());  // freed with the list
      std::memcpy(p->metadata, tag.data(), tag.size());
      p->metadata_size = tag.size();
    }
    rd_kafka_consumer_group_metadata_t* group =
        rd_kafka_consumer_group_metadata_new(at.group.c_str());
    rd_kafka_error_t* error =
        rd_kafka_send_offsets_to_transaction(state_->handle, offsets, group, millis_left(deadline));
    rd_kafka_consumer_group_metadata_destroy(group);
    rd_kafka_topic_partition_list_destroy(offsets);
    check(error, "sending the offsets of '" + source + "' (group '" + at.group +
                     "') with checkpoint " + std::to_string(done.id));
  }
  // A retriable error (a time-out, a coordinator moving) may be retried with the same call.
  while (true) {
    if (state_->interrupted.load()) return false;
    rd_kafka_error_t* error = rd_kafka_commit_transaction(state_->handle, millis_left(deadline));
    if (error != nullptr && rd_kafka_error_is_retriable(error) &&
        std::chrono::steady_clock::now() + retry_backoff < deadline) {
      rd_kafka_error_destroy(error);
      std::this_thread::sleep_for(retry_backoff);  // before the same call again
      continue;
    }
    check(error, "committing the transaction of checkpoint " + std::to_string(done.id));
    break;
  }
  if (!done.at_end) check(rd_kafka_begin_transaction(state_->handle), "begin_transaction");
  {
    const std::lock_guard lock(state_->outcome_mutex);
    state_->prepared.store(0, std::memory_order_release);
  }
  state_->outcome.notify_all();
  return true;
}

std::optional<std::uint64_t> producer::last_committed(const producer_options& options,
                                                      const flow::checkpoint_commit& newest) {
  const std::string where = "spate::kafka: topic '" + options.topic + "' at " + options.brokers;
  std::optional<std::uint64_t> last;
  const auto sources = kafka_positions(newest);
  if (sources.empty()) throw std::invalid_argument(where + ": " + no_kafka_source);
  // Fenced first: init_transactions() aborts a killed run's transaction that holds offsets
  // not yet committed (the offsets read below would wait for it, and a run still alive, a
  // zombie, could otherwise commit after they were read).
  {
    producer fence(options, true);
    fence.start_transactions();
  }
  for (const auto& [source, at] : sources) {
    if (at.next_offsets.empty()) continue;
    std::vector<std::int32_t> partitions;
    for (const auto& [partition, offset] : at.next_offsets) partitions.push_back(partition);
    const auto committed =
        read_committed_offsets(options.brokers, options.settings, at.group, at.topic, partitions,
                               options.commit_timeout, where);
    for (const auto& [partition, c] : committed) {
      const auto tag = parse_checkpoint_tag(c.metadata);
      if (!tag) continue;  // nothing committed there, or committed outside spate's transactions
      if (tag->at_end) {
        throw std::runtime_error(
            where + ": group '" + at.group + "' read topic '" + at.topic +
            "' to its end in a finished run, which committed it (" + c.metadata +
            "); the state after that checkpoint is not in any checkpoint. Reset the group's "
            "offsets and use a new checkpoint directory to run the job again");
      }
      if (!last || tag->id > *last) last = tag->id;
    }
  }
  return last;
}

bool producer::send(message m) {
  state_->throw_if_failed();
  if (!await_outcome()) return false;  // interrupted while a commit was pending
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

void producer::flush(std::chrono::milliseconds limit) {
  // rd_kafka_flush cannot be interrupted; its loop is done here with rd_kafka_poll, which
  // rd_kafka_yield ends.
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (rd_kafka_outq_len(state_->handle) > 0) {
    if (state_->interrupted.load()) return;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      throw std::runtime_error(
          state_->where + ": " + std::to_string(rd_kafka_outq_len(state_->handle)) +
          " messages still undelivered after " + std::to_string(limit.count()) + " ms");
    }
    rd_kafka_poll(state_->handle, static_cast<int>(std::min<long long>(left.count(), 1000)));
  }
  state_->throw_if_failed();
}

}  // namespace spate::kafka::detail
