// Faults at kafka::exactly_once_sink (transactions committed at checkpoints), against
// librdkafka's in-process mock cluster: misuse refused with the reason, no broker at start,
// a broker that goes away between two commits, a cancel while a commit is slow. Each ends
// the graph in a bounded time, naming the sink and librdkafka's reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "../temp_dir.hpp"
#include "../test_runtime.hpp"
#include "fault_helpers.hpp"
#include "kafka_mock.hpp"
#include "spate/flow.hpp"
#include "spate/kafka/sink.hpp"
#include "spate/kafka/source.hpp"

namespace flow = spate::flow;
namespace kafka = spate::kafka;
namespace fs = std::filesystem;
using spate::test::bounded_wait;
using spate::test::temp_dir;
using spate::test::kafka_mock::closed_port;
using spate::test::kafka_mock::mock_cluster;
using spate::test::kafka_mock::produce;
using spate::test::kafka_mock::reading;
using spate::test::kafka_mock::rt;
using namespace std::chrono_literals;

namespace {

kafka::producer_options writing(const std::string& brokers, const std::string& topic) {
  kafka::producer_options o;
  o.brokers = brokers;
  o.topic = topic;
  o.transactional_id = "tx-" + topic;
  o.commit_timeout = 1500ms;
  return o;
}

auto as_message = [](kafka::record& r) {
  return kafka::message{std::move(r.key), std::move(r.value), std::nullopt};
};

// The graph's failure (node and text), waited for at most `limit`; "" when it did not fail.
std::pair<std::string, std::string> failure_of(flow::graph& job, std::chrono::seconds limit,
                                               std::optional<std::chrono::milliseconds>& took) {
  std::pair<std::string, std::string> failure;
  took = bounded_wait(
      [&] {
        try {
          job.wait();
        } catch (const flow::node_error& e) {
          failure = {e.node(), e.what()};
        }
      },
      limit, [&] { job.cancel(); });
  return failure;
}

}  // namespace

TEST(exactly_once_faults, a_sink_without_a_transactional_id_is_refused_at_once) {
  kafka::producer_options o;
  o.brokers = "127.0.0.1:1";
  o.topic = "out";
  try {
    kafka::exactly_once_sink<kafka::record>(o, as_message);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("transactional_id"), std::string::npos) << e.what();
  }
}

// Without checkpoints nothing would ever commit: the graph fails at start, naming the sink.
TEST(exactly_once_faults, a_sink_in_a_graph_without_checkpoints_fails_naming_itself) {
  flow::graph job(
      flow::pipeline(flow::generate<int>(10, [](std::size_t i) { return int(i); }),
                     kafka::exactly_once_sink<int>(writing("127.0.0.1:1", "out"), [](int& i) {
                       return kafka::message{"k", std::to_string(i), std::nullopt};
                     })));
  try {
    job.run(rt());
    FAIL() << "ran";
  } catch (const flow::node_error& e) {
    EXPECT_EQ(e.node(), "kafka(out)");
    EXPECT_NE(std::string(e.what()).find("needs a graph with checkpoints"), std::string::npos)
        << e.what();
  }
}

// No broker: init_transactions gives up after commit_timeout, and the graph fails with it.
TEST(exactly_once_faults, a_sink_that_reaches_no_broker_fails_after_commit_timeout) {
  temp_dir dir;
  mock_cluster cluster;
  cluster.create_topic("in-nobroker", 2);
  produce(cluster.brokers(), "in-nobroker", 100);
  flow::graph job(
      flow::pipeline(
          kafka::source(reading(cluster.brokers(), "in-nobroker", "g-nobroker")),
          kafka::exactly_once_sink<kafka::record>(writing(closed_port(), "out"), as_message)),
      flow::graph_options{.checkpoints = flow::checkpoint_options{.directory = dir.path}});
  job.start(rt());
  std::optional<std::chrono::milliseconds> took;
  const auto [node, what] = failure_of(job, 30s, took);
  ASSERT_TRUE(took.has_value()) << "the graph did not end";
  EXPECT_EQ(node, "kafka(out)");
  EXPECT_NE(what.find("init_transactions"), std::string::npos) << what;
  EXPECT_LT(took->count(), 10'000);
}

// A cancel while the sink waits for a broker that is not there (init_transactions, with a
// long commit_timeout) ends the graph at once, not when the wait would have timed out.
TEST(exactly_once_faults, cancel_ends_a_sink_waiting_for_no_broker_at_start) {
  temp_dir dir;
  mock_cluster cluster;
  cluster.create_topic("in-start", 2);
  produce(cluster.brokers(), "in-start", 100);
  auto out = writing(closed_port(), "out");
  out.commit_timeout = 60s;
  flow::graph job(
      flow::pipeline(kafka::source(reading(cluster.brokers(), "in-start", "g-start")),
                     kafka::exactly_once_sink<kafka::record>(out, as_message)),
      flow::graph_options{.checkpoints = flow::checkpoint_options{.directory = dir.path}});
  job.start(rt());
  std::this_thread::sleep_for(300ms);  // the sink is in init_transactions by now
  job.cancel();
  std::optional<std::chrono::milliseconds> took;
  const auto [node, what] = failure_of(job, 60s, took);
  ASSERT_TRUE(took.has_value()) << "the graph did not end";
  EXPECT_EQ(node, "") << "a cancel is not a failure: " << what;
  // A slice of init_transactions (250 ms), the source leaving its group (2 s); slack.
  EXPECT_LT(took->count(), 10'000);
}

// A Kafka-to-Kafka job with checkpoints every 50 ms over 2,000 records, started, and
// returned once a checkpoint completed after every record went by: from then on each
// commit carries input offsets, which only the broker can take.
struct committed_job {
  temp_dir dir;
  std::promise<void> committed;
  std::atomic<int> seen{0};
  std::atomic<bool> first{true};
  std::optional<flow::graph> job;

  committed_job(mock_cluster& cluster, const std::string& name) {
    cluster.create_topic("in-" + name, 2);
    cluster.create_topic("out-" + name, 2);
    produce(cluster.brokers(), "in-" + name, 2000);
    auto in = reading(cluster.brokers(), "in-" + name, "g-" + name);
    in.stop_at_end = false;
    auto count = flow::map([this](kafka::record& r) {
      seen.fetch_add(1);
      return std::move(r);
    });
    job.emplace(
        flow::pipeline(kafka::source(in), count,
                       kafka::exactly_once_sink<kafka::record>(
                           writing(cluster.brokers(), "out-" + name), as_message)),
        flow::graph_options{
            .checkpoints = flow::checkpoint_options{
                .directory = dir.path, .interval = 50ms, .on_complete = [this](std::uint64_t) {
                  if (seen.load() == 2000 && first.exchange(false)) {
                    committed.set_value();
                  }
                }}});
    job->start(rt());
  }
  bool wait_for_commit() {
    return committed.get_future().wait_for(30s) == std::future_status::ready;
  }
};

// The broker goes away after a commit: the flush at the next barrier, or the next commit,
// fails after commit_timeout and fails the graph, naming the sink and the checkpoint;
// nothing waits longer.
TEST(exactly_once_faults, a_broker_that_goes_away_fails_the_next_commit_in_bounded_time) {
  mock_cluster cluster;
  committed_job running(cluster, "away");
  ASSERT_TRUE(running.wait_for_commit());
  cluster.down();
  std::optional<std::chrono::milliseconds> took;
  const auto [node, what] = failure_of(*running.job, 60s, took);
  ASSERT_TRUE(took.has_value()) << "the graph did not end";
  EXPECT_EQ(node, "kafka(out-away)");
  EXPECT_NE(what.find("checkpoint"), std::string::npos) << what;
  // The failed commit (commit_timeout), the abort at teardown (commit_timeout), the source
  // leaving its group (shutdown_timeout, 2 s), librdkafka's teardown: about 5 s measured,
  // and slack for a slow machine under a sanitizer.
  EXPECT_LT(took->count(), 20'000) << what;
}

// A cancel while every broker request takes a second (a commit or a flush may be in
// progress): the graph ends within the documented bound, and the cancel is no failure.
TEST(exactly_once_faults, cancel_with_a_slow_broker_ends_within_the_documented_bound) {
  mock_cluster cluster;
  committed_job running(cluster, "slow");
  ASSERT_TRUE(running.wait_for_commit());
  cluster.delay(1000);  // every request now takes a second
  std::this_thread::sleep_for(200ms);
  running.job->cancel();
  std::optional<std::chrono::milliseconds> took;
  const auto [node, what] = failure_of(*running.job, 60s, took);
  ASSERT_TRUE(took.has_value()) << "the graph did not end";
  EXPECT_EQ(node, "") << "a cancel is not a failure: " << what;
  // A flush or commit call in progress (commit_timeout, 1.5 s), the abort (1.5 s), the
  // source leaving its group (2 s), librdkafka's teardown with every request a second
  // slower: 1.3-8 s measured; and slack for a slow machine under a sanitizer.
  EXPECT_LT(took->count(), 20'000);
}
