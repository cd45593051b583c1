// Against a real broker: Apache Kafka in KRaft mode, started for these tests by
// tools/kafka/broker (a CTest fixture; its address comes in SPATE_KAFKA_BROKERS).
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include "../test_runtime.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "spate/flow.hpp"
#include "spate/kafka/admin.hpp"
#include "spate/kafka/sink.hpp"
#include "spate/kafka/source.hpp"

namespace flow = spate::flow;
namespace kafka = spate::kafka;
using namespace std::chrono_literals;

namespace {

std::string brokers() {
  const char* b = std::getenv("SPATE_KAFKA_BROKERS");
  if (b == nullptr)
    throw std::runtime_error("SPATE_KAFKA_BROKERS is not set (ctest starts a broker)");
  return b;
}

spate::runtime& rt() {
  return spate::test::shared_runtime();
}

// A fresh topic per test (the broker outlives the tests of one ctest run).
std::string fresh_topic(const std::string& prefix, int partitions) {
  static std::atomic<int> counter{0};
  const std::string name =
      prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
  kafka::create_topic(brokers(), name, partitions);
  return name;
}

// Writes n records "key<i % keys>" -> "<i>" through spate's own sink.
void produce(const std::string& topic, int n, int keys) {
  flow::graph job(flow::pipeline(
      flow::generate<int>(n, [](std::size_t i) { return int(i); }),
      kafka::sink<int>({.brokers = brokers(), .topic = topic, .settings = {}}, [keys](int& i) {
        return kafka::message{"key" + std::to_string(i % keys), std::to_string(i), std::nullopt};
      })));
  job.run(rt());
}

// Groups are named after their topic: a group left over from an earlier run (its member's
// session not yet expired) would rebalance a new run midway.
kafka::consumer_options reading(const std::string& topic, const std::string& group) {
  kafka::consumer_options o;
  o.brokers = brokers();
  o.group = group + "-" + topic;
  o.topic = topic;
  o.stop_at_end = true;
  o.settings = {{"session.timeout.ms", "6000"}};
  return o;
}

}  // namespace

TEST(kafka, records_written_by_the_sink_are_read_once_in_key_order_and_committed) {
  const std::string topic = fresh_topic("roundtrip", 4);
  constexpr int n = 20'000;
  produce(topic, n, 50);

  std::mutex m;
  std::map<std::string, std::vector<int>> by_key;
  std::atomic<int> received{0};
  flow::graph job(flow::pipeline(
      kafka::source(reading(topic, "roundtrip")),
      flow::farm(flow::map([](kafka::record& r) { return r; }), 2, kafka::by_partition()),
      flow::sink([&](kafka::record& r) {
        {
          const std::lock_guard lock(m);
          by_key[r.key].push_back(std::stoi(r.value));
        }
        ++received;
        r.at.done();
      })));
  job.run(rt());
  ASSERT_EQ(received.load(), n);
  ASSERT_EQ(by_key.size(), 50u);
  for (const auto& [key, values] : by_key) {
    ASSERT_EQ(values.size(), std::size_t(n / 50)) << key;
    for (std::size_t i = 1; i < values.size(); ++i) ASSERT_LT(values[i - 1], values[i]) << key;
  }

  // The same group again: everything was committed, nothing is read twice.
  std::atomic<int> again{0};
  flow::graph second(
      flow::pipeline(kafka::source(reading(topic, "roundtrip")), flow::sink([&](kafka::record& r) {
                       ++again;
                       r.at.done();
                     })));
  std::thread producer([&] {
    std::this_thread::sleep_for(3s);  // joins first, then one new record arrives
    produce(topic, 1, 1);
  });
  second.run(rt());
  producer.join();
  EXPECT_LE(again.load(), 1);
}

TEST(kafka, a_job_that_fails_midway_loses_nothing_when_its_group_restarts) {
  const std::string topic = fresh_topic("restart", 3);
  constexpr int n = 30'000;
  produce(topic, n, 30);

  std::set<int> done_before;
  {
    flow::graph failing(
        flow::pipeline(kafka::source(reading(topic, "restart")), flow::sink([&](kafka::record& r) {
                         if (done_before.size() == 10'000) {
                           throw std::runtime_error("crash");
                         }
                         done_before.insert(std::stoi(r.value));
                         r.at.done();
                       })));
    EXPECT_THROW(failing.run(rt()), flow::node_error);
  }
  std::multiset<int> after;
  flow::graph restarted(
      flow::pipeline(kafka::source(reading(topic, "restart")), flow::sink([&](kafka::record& r) {
                       after.insert(std::stoi(r.value));
                       r.at.done();
                     })));
  restarted.run(rt());
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(done_before.count(i) == 1 || after.count(i) >= 1) << "record " << i << " lost";
  }
  for (int i = 0; i < n; ++i) ASSERT_LE(after.count(i), 1u);  // once per run
  // Re-read after the restart: only what was in flight at the crash (bounded rings).
  std::size_t again = 0;
  for (int v : done_before) again += after.count(v);
  EXPECT_LE(again, 3 * 4096u + 4096u);
  EXPECT_LT(after.size(), std::size_t(n));  // the restart did resume, not start over
}

TEST(kafka, two_consumers_in_one_group_split_the_partitions_and_survive_one_leaving) {
  const std::string topic = fresh_topic("scale", 4);
  constexpr int n = 40'000;
  produce(topic, n, 40);

  std::mutex m;
  std::multiset<int> seen_by_first, seen_by_second;
  auto slow_collector = [&m](std::multiset<int>& seen) {
    return flow::sink([&m, &seen](kafka::record& r) {
      // 8 s for one consumer alone: time for the second to join, even on a loaded machine.
      std::this_thread::sleep_for(200us);
      {
        const std::lock_guard lock(m);
        seen.insert(std::stoi(r.value));
      }
      r.at.done();
    });
  };
  auto seen = [&](const std::multiset<int>& by) {
    const std::lock_guard lock(m);
    return by.size();
  };
  auto distinct_seen = [&] {
    const std::lock_guard lock(m);
    std::set<int> all(seen_by_first.begin(), seen_by_first.end());
    all.insert(seen_by_second.begin(), seen_by_second.end());
    return all.size();
  };
  auto wait_until = [](auto condition, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!condition() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(10ms);
    }
    return condition();
  };
  // Both run until stopped (as services do), not to the end of the topic: a consumer that
  // has read its own partitions to their end must stay to take over the other's.
  auto service = reading(topic, "scale");
  service.stop_at_end = false;
  flow::graph first(flow::pipeline(kafka::source(service), slow_collector(seen_by_first)));
  flow::graph second(flow::pipeline(kafka::source(service), slow_collector(seen_by_second)));
  // The first joins alone and takes every partition; the second's joining splits them.
  first.start(rt());
  ASSERT_TRUE(wait_until([&] { return seen(seen_by_first) > 0; }, 60s)) << "the first read nothing";
  second.start(rt());
  ASSERT_TRUE(wait_until([&] { return seen(seen_by_second) > 0; }, 60s))
      << "the group never gave the second consumer a partition";
  // The first leaves mid-stream, as a stopped process would; the second takes its
  // partitions over and finishes the topic.
  first.cancel();
  first.wait();
  EXPECT_TRUE(wait_until([&] { return distinct_seen() == std::size_t(n); }, 120s));
  second.cancel();
  second.wait();
  const std::lock_guard lock(m);
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(seen_by_first.count(i) + seen_by_second.count(i) >= 1) << "record " << i << " lost";
  }
}
