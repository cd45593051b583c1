#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "spate/observe/metrics_registry.hpp"

namespace observe = spate::observe;

TEST(metrics_registry, collects_samples_from_every_collector_into_one_family_per_name) {
  observe::metrics_registry registry;
  auto first = registry.add([](observe::metric_writer& out) {
    out.counter("jobs_total", "Jobs done", {{"job", "a"}}, 3);
  });
  auto second = registry.add([](observe::metric_writer& out) {
    out.counter("jobs_total", "Jobs done", {{"job", "b"}}, 5);
    out.gauge("queue_length", "Items waiting", {}, 7);
  });
  const auto snapshot = registry.snapshot();
  ASSERT_EQ(snapshot.families.size(), 2u);
  EXPECT_EQ(snapshot.find("jobs_total")->samples.size(), 2u);
  EXPECT_EQ(snapshot.value("jobs_total", {{"job", "a"}}), 3);
  EXPECT_EQ(snapshot.value("jobs_total", {{"job", "b"}}), 5);
  EXPECT_EQ(snapshot.value("queue_length"), 7);
  EXPECT_FALSE(snapshot.value("jobs_total", {{"job", "c"}}).has_value());
  EXPECT_FALSE(snapshot.value("missing").has_value());
}

TEST(metrics_registry, a_destroyed_registration_is_no_longer_collected) {
  observe::metrics_registry registry;
  auto kept = registry.add([](observe::metric_writer& out) { out.gauge("kept", "", {}, 1); });
  {
    auto dropped =
        registry.add([](observe::metric_writer& out) { out.gauge("dropped", "", {}, 1); });
    EXPECT_TRUE(registry.snapshot().value("dropped").has_value());
  }
  EXPECT_FALSE(registry.snapshot().value("dropped").has_value());
  EXPECT_TRUE(registry.snapshot().value("kept").has_value());
  observe::metrics_registry::registration moved = std::move(kept);
  EXPECT_TRUE(registry.snapshot().value("kept").has_value());
  moved.reset();
  EXPECT_TRUE(registry.snapshot().families.empty());
}

// The guarantee a watched subject relies on: once reset() returns, no snapshot is still
// reading it, even one that started before.
TEST(metrics_registry, reset_waits_for_a_snapshot_running_the_collector) {
  observe::metrics_registry registry;
  auto subject = std::make_unique<std::atomic<int>>(42);
  std::atomic<bool> collecting{false};
  auto registration = registry.add([&](observe::metric_writer& out) {
    collecting = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    out.gauge("subject", "", {}, subject->load());
  });
  std::thread scraper([&] { EXPECT_EQ(registry.snapshot().value("subject"), 42); });
  while (!collecting) std::this_thread::yield();
  registration.reset();
  subject.reset();  // would be a use after free if reset() had not waited
  scraper.join();
}

TEST(metrics_registry, prometheus_text_follows_the_exposition_format) {
  observe::metrics_registry registry;
  observe::latency_histogram latency;
  latency.record(std::chrono::microseconds(1));  // bucket le=1e-06
  latency.record(std::chrono::microseconds(3));  // le=4e-06
  latency.record(std::chrono::seconds(100));     // beyond the last bound: +Inf only
  auto r = registry.add([&](observe::metric_writer& out) {
    out.counter("items_total", "Items \"seen\"", {{"node", "a\"b\\c\nd"}}, 12);
    out.gauge("ratio", "A ratio", {}, 0.25);
    out.histogram("latency_seconds", "Latency", {{"node", "x"}}, latency);
  });
  const std::string text = registry.snapshot().to_prometheus();
  EXPECT_NE(text.find("# HELP items_total Items \"seen\"\n# TYPE items_total counter\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("items_total{node=\"a\\\"b\\\\c\\nd\"} 12\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE ratio gauge\nratio 0.25\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE latency_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("latency_seconds_bucket{node=\"x\",le=\"9.9999999999999995e-07\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("le=\"3.9999999999999998e-06\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("latency_seconds_bucket{node=\"x\",le=\"+Inf\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("latency_seconds_count{node=\"x\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("latency_seconds_sum{node=\"x\"} 100.000004"), std::string::npos) << text;
}

TEST(metrics_registry, json_snapshot_parses_and_carries_every_sample) {
  observe::metrics_registry registry;
  observe::latency_histogram latency;
  for (int i = 0; i < 10; ++i) latency.record(std::chrono::milliseconds(2));
  auto r = registry.add([&](observe::metric_writer& out) {
    out.counter("items_total", "Items", {{"node", "tab\there"}}, 12);
    out.histogram("latency_seconds", "Latency", {}, latency);
  });
  const auto json = nlohmann::json::parse(registry.snapshot().to_json());
  ASSERT_EQ(json["metrics"].size(), 2u);
  EXPECT_EQ(json["metrics"][0]["name"], "items_total");
  EXPECT_EQ(json["metrics"][0]["type"], "counter");
  EXPECT_EQ(json["metrics"][0]["samples"][0]["labels"]["node"], "tab\there");
  EXPECT_EQ(json["metrics"][0]["samples"][0]["value"], 12);
  const auto& histogram = json["metrics"][1]["samples"][0];
  EXPECT_EQ(histogram["value"], 10);
  EXPECT_EQ(histogram["buckets"].size(), observe::latency_histogram::bucket_count);
  EXPECT_EQ(histogram["buckets"].back()[1], 10);  // cumulative
  EXPECT_EQ(histogram["buckets"][10][1], 0);      // 1.024 ms < 2 ms
  EXPECT_EQ(histogram["buckets"][11][1], 10);     // 2.048 ms
}

TEST(latency_histogram, counts_from_many_threads_lose_nothing) {
  observe::latency_histogram h;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&h, t] {
      for (int i = 0; i < 10'000; ++i) h.record(std::chrono::microseconds(1 << (t * 4)));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(h.count(), 40'000u);
  EXPECT_EQ(h.count_in(0), 10'000u);   // 1 µs
  EXPECT_EQ(h.count_in(4), 10'000u);   // 16 µs
  EXPECT_EQ(h.count_in(8), 10'000u);   // 256 µs
  EXPECT_EQ(h.count_in(12), 10'000u);  // 4096 µs
}
