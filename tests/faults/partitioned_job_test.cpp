// kafka::partitioned_job (stateful scale-out across processes) against librdkafka's mock
// cluster: one graph per partition, each reading only its own; a broker that never answers;
// a graph that cannot start or fails while running; a partition whose checkpoints are out
// of view; stop() while graphs run. The kill test
// with real processes and a real broker is tests/kafka/exactly_once_kill_test.cpp.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "../test_runtime.hpp"
#include "fault_helpers.hpp"
#include "kafka_mock.hpp"
#include "spate/flow.hpp"
#include "spate/kafka/partitioned_job.hpp"
#include "spate/kafka/source.hpp"

namespace flow = spate::flow;
namespace kafka = spate::kafka;
using spate::test::bounded_wait;
using spate::test::eventually;
using spate::test::temp_dir;
using namespace std::chrono_literals;

using spate::test::kafka_mock::closed_port;
using spate::test::kafka_mock::mock_cluster;
using spate::test::kafka_mock::produce;
using spate::test::kafka_mock::reading;
using spate::test::kafka_mock::rt;

namespace {

kafka::partitioned_options job_options(const std::string& brokers, const std::string& topic,
                                       const temp_dir& dir) {
  kafka::partitioned_options o;
  o.brokers = brokers;
  o.group = "g-" + topic;
  o.topic = topic;
  o.checkpoint_root = dir.path;
  o.shutdown_timeout = 2s;
  return o;
}

// Records seen per (graph's partition, record's partition), under a mutex.
struct seen_records {
  std::mutex mutex;
  std::map<std::pair<int, int>, int> counts;
  int total() {
    const std::lock_guard lock(mutex);
    int n = 0;
    for (const auto& [where, count] : counts) n += count;
    return n;
  }
};

// What wait() threw (empty: it returned), waiting at most `limit`; nullopt when it did
// not return (the job is then stopped, so that the test fails instead of hanging).
std::optional<std::string> failure_of(kafka::partitioned_job& job, std::chrono::seconds limit) {
  std::string failure;
  const auto took = bounded_wait(
      [&] {
        try {
          job.wait();
        } catch (const std::runtime_error& e) {
          failure = e.what();
        }
      },
      limit, [&] { job.stop(); });
  if (!took) return std::nullopt;
  return failure;
}

}  // namespace

TEST(partitioned_job, runs_one_graph_per_partition_each_reading_only_its_own) {
  mock_cluster cluster;
  cluster.create_topic("pj-own", 4);
  produce(cluster.brokers(), "pj-own", 400);
  temp_dir dir;
  seen_records seen;
  kafka::partitioned_job job(
      rt(), job_options(cluster.brokers(), "pj-own", dir), [&](const kafka::partition_context& p) {
        auto in = reading(cluster.brokers(), "pj-own", "g-pj-own");
        in.stop_at_end = false;  // a graph that ends by itself fails the job
        in.partitions = {p.partition};
        EXPECT_EQ(p.checkpoint_directory, dir.path / ("partition-" + std::to_string(p.partition)));
        EXPECT_EQ(p.transactional_id, "g-pj-own-partition-" + std::to_string(p.partition));
        return flow::graph(flow::pipeline(kafka::source(in), flow::sink([&, p](kafka::record& r) {
                                            {
                                              const std::lock_guard lock(seen.mutex);
                                              ++seen.counts[{p.partition, r.at.partition}];
                                            }
                                            r.at.done();
                                          })));
      });
  ASSERT_TRUE(eventually([&] { return seen.total() == 400; }, 30s))
      << seen.total() << " of 400 records read";
  EXPECT_EQ(job.partitions(), (std::vector<std::int32_t>{0, 1, 2, 3}));
  {
    const std::lock_guard lock(seen.mutex);
    for (const auto& [where, count] : seen.counts) {
      EXPECT_EQ(where.first, where.second) << count << " records of partition " << where.second
                                           << " read by partition " << where.first << "'s graph";
    }
  }
  job.stop();
  const auto failure = failure_of(job, 20s);
  ASSERT_TRUE(failure.has_value()) << "stop() did not end the job within 20 s";
  EXPECT_EQ(*failure, "");
  EXPECT_TRUE(job.partitions().empty());
}

TEST(partitioned_job, a_job_that_reaches_no_broker_fails_after_connect_timeout) {
  const std::string brokers = closed_port();
  temp_dir dir;
  auto options = job_options(brokers, "nowhere", dir);
  options.connect_timeout = 1500ms;
  std::atomic<int> built{0};
  kafka::partitioned_job job(rt(), options, [&](const kafka::partition_context&) -> flow::graph {
    ++built;
    throw std::logic_error("no partition can be assigned without a broker");
  });
  const auto failure = failure_of(job, 20s);
  ASSERT_TRUE(failure.has_value()) << "the job ran on without reporting anything";
  EXPECT_NE(failure->find(brokers), std::string::npos) << *failure;
  EXPECT_NE(failure->find("connect_timeout"), std::string::npos) << *failure;
  EXPECT_EQ(built.load(), 0);
}

TEST(partitioned_job, a_graph_that_cannot_start_fails_the_job_naming_its_partition) {
  mock_cluster cluster;
  cluster.create_topic("pj-start", 2);
  temp_dir dir;
  kafka::partitioned_job job(
      rt(), job_options(cluster.brokers(), "pj-start", dir),
      [&](const kafka::partition_context& p) {
        if (p.partition == 1) throw std::invalid_argument("no sink for 1");
        auto in = reading(cluster.brokers(), "pj-start", "g-pj-start");
        in.stop_at_end = false;
        in.partitions = {p.partition};
        return flow::graph(flow::pipeline(kafka::source(in), flow::sink([](kafka::record&) {})));
      });
  const auto failure = failure_of(job, 30s);
  ASSERT_TRUE(failure.has_value());
  EXPECT_NE(failure->find("partition 1"), std::string::npos) << *failure;
  EXPECT_NE(failure->find("no sink for 1"), std::string::npos) << *failure;
}

TEST(partitioned_job, a_graph_that_fails_while_running_fails_the_job) {
  mock_cluster cluster;
  cluster.create_topic("pj-fail", 2);
  produce(cluster.brokers(), "pj-fail", 50);
  temp_dir dir;
  kafka::partitioned_job job(
      rt(), job_options(cluster.brokers(), "pj-fail", dir), [&](const kafka::partition_context& p) {
        auto in = reading(cluster.brokers(), "pj-fail", "g-pj-fail");
        in.stop_at_end = false;
        in.partitions = {p.partition};
        const bool failing = p.partition == 0;
        return flow::graph(
            flow::pipeline(kafka::source(in), flow::sink([failing](kafka::record& r) {
                             if (failing) throw std::runtime_error("bad record " + r.value);
                             r.at.done();
                           })));
      });
  const auto failure = failure_of(job, 30s);
  ASSERT_TRUE(failure.has_value());
  EXPECT_NE(failure->find("partition 0"), std::string::npos) << *failure;
  EXPECT_NE(failure->find("bad record"), std::string::npos) << *failure;
}

// A source reading partitions by hand refuses a checkpoint's position in another partition
// (a partition's directory holding another's checkpoint).
TEST(partitioned_job, a_source_reading_by_hand_refuses_another_partitions_position) {
  auto in = reading("127.0.0.1:1", "t", "g");
  in.partitions = {0};
  kafka::detail::consumer_reader reader(in);
  EXPECT_NO_THROW(reader.seek({.group = "g", .topic = "t", .next_offsets = {{0, 5}}}));
  try {
    reader.seek({.group = "g", .topic = "t", .next_offsets = {{1, 5}}});
    FAIL() << "a position in partition 1 was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("partition 1"), std::string::npos) << e.what();
  }
}

namespace {

// Commits `offset` for `partition` of `topic` in `group`, tagged as spate's transactions tag
// their commits ("spate checkpoint N").
void commit_tagged(const std::string& brokers, const std::string& group, const std::string& topic,
                   int partition, std::int64_t offset, const std::string& tag) {
  char error[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", brokers.c_str(), error, sizeof error);
  rd_kafka_conf_set(conf, "group.id", group.c_str(), error, sizeof error);
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
  ASSERT_NE(consumer, nullptr) << error;
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_t* p = rd_kafka_topic_partition_list_add(list, topic.c_str(), partition);
  p->offset = offset;
  p->metadata = std::malloc(tag.size());  // freed with the list
  std::memcpy(p->metadata, tag.data(), tag.size());
  p->metadata_size = tag.size();
  const rd_kafka_resp_err_t err = rd_kafka_commit(consumer, list, 0);
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_destroy_flags(consumer, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  ASSERT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
}

}  // namespace

// A process that does not see a partition's checkpoints (the group committed one, the
// partition's directory holds none) refuses to start it instead of counting from nothing.
TEST(partitioned_job, a_partition_whose_committed_checkpoint_is_out_of_view_is_refused) {
  mock_cluster cluster;
  cluster.create_topic("pj-view", 2);
  produce(cluster.brokers(), "pj-view", 20);
  ASSERT_NO_FATAL_FAILURE(
      commit_tagged(cluster.brokers(), "g-pj-view", "pj-view", 1, 7, "spate checkpoint 12"));
  temp_dir dir;  // empty: no partition's checkpoints
  std::atomic<int> built{0};
  kafka::partitioned_job job(
      rt(), job_options(cluster.brokers(), "pj-view", dir), [&](const kafka::partition_context& p) {
        ++built;
        auto in = reading(cluster.brokers(), "pj-view", "g-pj-view");
        in.stop_at_end = false;
        in.partitions = {p.partition};
        return flow::graph(
            flow::pipeline(kafka::source(in), flow::sink([](kafka::record& r) { r.at.done(); })));
      });
  const auto failure = failure_of(job, 30s);
  ASSERT_TRUE(failure.has_value());
  EXPECT_NE(failure->find("partition 1"), std::string::npos) << *failure;
  EXPECT_NE(failure->find("checkpoint 12"), std::string::npos) << *failure;
  EXPECT_NE(failure->find("holds no complete checkpoint"), std::string::npos) << *failure;
  EXPECT_LE(built.load(), 1) << "partition 1's graph was built";
}

// Protocol P2 needs eager rebalancing: an incremental one is refused before anything starts.
TEST(partitioned_job, incremental_rebalancing_is_refused_by_name) {
  temp_dir dir;
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"partition.assignment.strategy", "cooperative-sticky"},
           {"group.protocol", "CONSUMER"}}) {  // (librdkafka takes any case)
    auto options = job_options(closed_port(), "t", dir);
    options.settings[key] = value;
    try {
      kafka::partitioned_job job(rt(), options, [](const kafka::partition_context&) -> flow::graph {
        throw std::logic_error("never built");
      });
      ADD_FAILURE() << key << "=" << value << " was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("eager"), std::string::npos) << e.what();
    }
  }
}
