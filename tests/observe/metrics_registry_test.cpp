#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

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
  // Bounds print as the shortest text that reads back as the same double.
  EXPECT_NE(text.find("latency_seconds_bucket{node=\"x\",le=\"1e-06\"} 1\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("le=\"4e-06\"} 2\n"), std::string::npos) << text;
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

// ---- user metrics ----

namespace {

// Runs `body(thread index)` on `n` threads at once (they start together) and joins them.
template <class Body>
void on_threads(int n, Body body) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < n) std::this_thread::yield();
      body(t);
    });
  }
  for (auto& t : threads) t.join();
}

// The message of the std::invalid_argument `f` throws ("" when it throws none).
template <class F>
std::string invalid_argument_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(user_metrics, counters_from_many_threads_add_up_exactly_while_being_scraped) {
  observe::metrics_registry registry;
  auto fx = registry.add_counter("orders_total", "Orders taken", {{"desk", "fx"}});
  auto rates = registry.add_counter("orders_total", "Orders taken", {{"desk", "rates"}});
  constexpr int threads = 4, per_thread = 100'000;
  std::atomic<bool> done{false};
  double last_seen = 0;
  bool went_back = false;
  std::thread scraper([&] {  // snapshots while the counters move: never a value going back
    while (!done.load()) {
      const double now = registry.snapshot().value("orders_total", {{"desk", "fx"}}).value_or(-1);
      went_back |= now < last_seen;
      last_seen = now;
    }
  });
  on_threads(threads, [&](int t) {
    // Each thread gets its own handle to the same counter, as separate components would.
    auto mine = registry.add_counter("orders_total", "Orders taken", {{"desk", "fx"}});
    for (int i = 0; i < per_thread; ++i) mine.inc();
    if (t == 0) rates.inc(2.5);
  });
  done = true;
  scraper.join();
  EXPECT_FALSE(went_back);
  EXPECT_EQ(fx.value(), threads * per_thread);
  const auto s = registry.snapshot();
  EXPECT_EQ(s.value("orders_total", {{"desk", "fx"}}), threads * per_thread);
  EXPECT_EQ(s.value("orders_total", {{"desk", "rates"}}), 2.5);
  const std::string text = s.to_prometheus();
  EXPECT_NE(text.find("# HELP orders_total Orders taken\n# TYPE orders_total counter\n"
                      "orders_total{desk=\"fx\"} 400000\norders_total{desk=\"rates\"} 2.5\n"),
            std::string::npos)
      << text;
  const auto json = nlohmann::json::parse(s.to_json());
  EXPECT_EQ(json["metrics"][0]["name"], "orders_total");
  EXPECT_EQ(json["metrics"][0]["type"], "counter");
  EXPECT_EQ(json["metrics"][0]["samples"][0]["value"], 400000);
  EXPECT_EQ(json["metrics"][0]["samples"][1]["labels"]["desk"], "rates");
  // A counter only grows.
  EXPECT_NE(invalid_argument_of([&] { fx.inc(-1); }).find("a counter only grows"),
            std::string::npos);
  EXPECT_EQ(fx.value(), threads * per_thread);
}

TEST(user_metrics, gauges_go_up_and_down_from_many_threads_and_outlive_nothing) {
  auto registry = std::make_unique<observe::metrics_registry>();
  auto in_flight = registry->add_gauge("requests_in_flight", "Requests being served");
  on_threads(4, [&](int t) {
    for (int i = 0; i < 50'000; ++i) {
      if (t % 2 == 0) {
        in_flight.inc();
      } else {
        in_flight.dec();
      }
    }
  });
  EXPECT_EQ(registry->snapshot().value("requests_in_flight"), 0);
  in_flight.set(7.5);
  in_flight.dec(0.5);
  EXPECT_EQ(registry->snapshot().value("requests_in_flight"), 7);
  EXPECT_NE(registry->snapshot().to_prometheus().find(
                "# TYPE requests_in_flight gauge\nrequests_in_flight 7\n"),
            std::string::npos);
  registry.reset();  // the handle keeps its value: using it after the registry is safe
  in_flight.inc(3);
  EXPECT_EQ(in_flight.value(), 10);
  observe::gauge unregistered;  // in no registry: still usable
  unregistered.set(1);
  EXPECT_EQ(unregistered.value(), 1);
}

TEST(user_metrics, histograms_count_in_their_buckets_and_export_the_prometheus_form) {
  observe::metrics_registry registry;
  auto sizes =
      registry.add_histogram("batch_size", "Items per batch", {{"stage", "parse"}}, {1, 10, 100});
  // 1 per thread in each of le=1, le=10, le=100 and +Inf, and an exact bound counts in its own
  // bucket (le is "less than or equal").
  on_threads(4, [&](int) {
    for (int i = 0; i < 1000; ++i) {
      sizes.observe(1.0);
      sizes.observe(10.0);
      sizes.observe(50.0);
      sizes.observe(1000.0);
    }
  });
  EXPECT_EQ(sizes.count(), 16'000u);
  EXPECT_EQ(sizes.sum(), 4000 * (1.0 + 10 + 50 + 1000));
  const auto s = registry.snapshot();
  const std::string text = s.to_prometheus();
  for (const char* line :
       {"# HELP batch_size Items per batch\n# TYPE batch_size histogram\n",
        "batch_size_bucket{stage=\"parse\",le=\"1\"} 4000\n",
        "batch_size_bucket{stage=\"parse\",le=\"10\"} 8000\n",
        "batch_size_bucket{stage=\"parse\",le=\"100\"} 12000\n",
        "batch_size_bucket{stage=\"parse\",le=\"+Inf\"} 16000\n",
        "batch_size_sum{stage=\"parse\"} 4244000\n", "batch_size_count{stage=\"parse\"} 16000\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " not in\n" << text;
  }
  const auto json = nlohmann::json::parse(s.to_json());
  const auto& sample = json["metrics"][0]["samples"][0];
  EXPECT_EQ(json["metrics"][0]["type"], "histogram");
  EXPECT_EQ(sample["value"], 16000);
  EXPECT_EQ(sample["sum"], 4244000);
  EXPECT_EQ(sample["buckets"], nlohmann::json::parse("[[1,4000],[10,8000],[100,12000]]"));

  // Default bounds (Prometheus', in seconds) and durations in seconds.
  auto latency = registry.add_histogram("handle_seconds", "Time to handle a request");
  latency.observe(std::chrono::milliseconds(30));  // 0.03 s: le=0.05
  const std::string defaults = registry.snapshot().to_prometheus();
  EXPECT_NE(defaults.find("handle_seconds_bucket{le=\"0.025\"} 0\n"), std::string::npos)
      << defaults;
  EXPECT_NE(defaults.find("handle_seconds_bucket{le=\"0.05\"} 1\n"), std::string::npos) << defaults;
  EXPECT_NE(defaults.find("handle_seconds_bucket{le=\"10\"} 1\n"), std::string::npos);
  EXPECT_NE(defaults.find("handle_seconds_count 1\n"), std::string::npos);
}

TEST(user_metrics, registering_again_returns_the_same_metric_or_names_the_conflict) {
  observe::metrics_registry registry;
  auto a = registry.add_counter("jobs_total", "Jobs done", {{"queue", "a"}});
  auto again = registry.add_counter("jobs_total", "Jobs done", {{"queue", "a"}});
  a.inc();
  again.inc();
  EXPECT_EQ(a.value(), 2);
  EXPECT_EQ(registry.snapshot().find("jobs_total")->samples.size(), 1u);

  EXPECT_NE(invalid_argument_of([&] {
              (void)registry.add_gauge("jobs_total", "Jobs done");
            }).find("'jobs_total' is already registered with type counter, not gauge"),
            std::string::npos);
  // spate's own collectors' names (here a worker pool's) are not for user metrics.
  EXPECT_NE(invalid_argument_of([&] {
              (void)registry.add_gauge("spate_worker_tasks_total", "Mine");
            }).find("'spate_worker_tasks_total': names starting with spate_ are reserved"),
            std::string::npos);
  EXPECT_NE(invalid_argument_of([&] {
              (void)registry.add_counter("jobs_total", "Other help", {{"queue", "b"}});
            }).find("'jobs_total' is already registered with other help text"),
            std::string::npos);
  EXPECT_NE(invalid_argument_of([&] {
              (void)registry.add_counter("jobs_total", "Jobs done", {{"host", "b"}});
            }).find("other label names"),
            std::string::npos);
  auto h = registry.add_histogram("h", "", {}, {1, 2});
  EXPECT_NE(invalid_argument_of([&] {
              (void)registry.add_histogram("h", "", {}, {1, 3});
            }).find("other bucket bounds"),
            std::string::npos);
  EXPECT_NE(invalid_argument_of([&] {
              (void)registry.add_histogram("h2", "", {}, {2, 1});
            }).find("'h2': bucket bounds must be finite and increasing"),
            std::string::npos);
  EXPECT_NE(
      invalid_argument_of([&] {
        (void)registry.add_histogram("h3", "", {}, {1, std::numeric_limits<double>::infinity()});
      }).find("'h3'"),
      std::string::npos);
  EXPECT_NE(invalid_argument_of([&] {
              (void)registry.add_histogram("h4", "", {{"le", "1"}});
            }).find("the label name 'le' is reserved"),
            std::string::npos);
  EXPECT_NE(invalid_argument_of([&] {
              (void)registry.add_counter("twice_total", "", {{"a", "1"}, {"a", "2"}});
            }).find("label 'a' given twice"),
            std::string::npos);
  // Nothing refused was added.
  const auto s = registry.snapshot();
  EXPECT_EQ(s.families.size(), 2u);  // jobs_total and h
}

// ---- names and escaping ----

TEST(metric_names, only_prometheus_names_are_accepted_and_the_error_names_the_name) {
  for (const char* good : {"a", "_", ":", "spate_node_items_in_total", "a:b_C9", "_x:"}) {
    EXPECT_TRUE(observe::valid_metric_name(good)) << good;
  }
  for (const char* bad : {"", "9lives", "with space", "dash-ed", "dot.ted", "caf\xc3\xa9",
                          "new\nline", "quo\"te", "x{y}"}) {
    EXPECT_FALSE(observe::valid_metric_name(bad)) << bad;
  }
  for (const char* good : {"a", "_", "node", "_private", "Z9_"}) {
    EXPECT_TRUE(observe::valid_label_name(good)) << good;
  }
  for (const char* bad : {"", "__name__", "__x", "9", "a:b", "a-b", "a b", "\xff"}) {
    EXPECT_FALSE(observe::valid_label_name(bad)) << bad;
  }

  observe::metrics_registry registry;
  // When a user metric is registered.
  EXPECT_EQ(invalid_argument_of([&] { (void)registry.add_counter("bad name", "h"); }),
            "spate::observe: invalid metric name 'bad name' (a metric name is "
            "[a-zA-Z_:][a-zA-Z0-9_:]*)");
  EXPECT_EQ(invalid_argument_of([&] {
              (void)registry.add_gauge("ok", "h", {{"__x", "v"}});
            }),
            "spate::observe: metric 'ok': invalid label name '__x' (a label name is "
            "[a-zA-Z_][a-zA-Z0-9_]* and does not start with __)");
  // A hostile name is shown with its control bytes escaped, so the message stays one line.
  EXPECT_NE(invalid_argument_of([&] {
              (void)registry.add_counter("evil\n# TYPE x", "h");
            }).find("'evil\\x0a# TYPE x'"),
            std::string::npos);

  // When a collector writes one: the snapshot fails, naming it.
  {
    auto bad = registry.add(
        [](observe::metric_writer& out) { out.gauge("queue-length", "Items", {}, 1); });
    EXPECT_NE(invalid_argument_of([&] { (void)registry.snapshot(); }).find("'queue-length'"),
              std::string::npos);
  }
  {
    auto bad = registry.add([](observe::metric_writer& out) {
      out.counter("items_total", "Items", {{"node-name", "a"}}, 1);
    });
    EXPECT_NE(invalid_argument_of([&] {
                (void)registry.snapshot();
              }).find("metric 'items_total': invalid label name 'node-name'"),
              std::string::npos);
  }
  {
    auto twice = registry.add([](observe::metric_writer& out) {
      out.counter("x_total", "X", {}, 1);
      out.gauge("x_total", "X", {}, 1);
    });
    EXPECT_NE(invalid_argument_of([&] {
                (void)registry.snapshot();
              }).find("'x_total' written as a counter and as a gauge"),
              std::string::npos);
  }
  EXPECT_TRUE(registry.snapshot().families.empty());  // the bad collectors are gone

  // When a snapshot built by hand is written (its families are public).
  observe::metrics_snapshot hand_made;
  hand_made.families.push_back(
      {"fine", "", observe::metric_type::gauge, {{{{"0bad", "v"}}, 1, {}}}});
  EXPECT_NE(invalid_argument_of([&] { (void)hand_made.to_prometheus(); }).find("'0bad'"),
            std::string::npos);
  EXPECT_NE(invalid_argument_of([&] { (void)hand_made.to_json(); }).find("'0bad'"),
            std::string::npos);
  hand_made.families[0].samples[0].labels[0].name = "good";
  hand_made.families[0].name = "not fine";
  EXPECT_NE(invalid_argument_of([&] { (void)hand_made.to_prometheus(); }).find("'not fine'"),
            std::string::npos);
}

TEST(metric_escaping, hostile_help_text_and_label_values_cannot_break_either_format) {
  observe::metrics_registry registry;
  // A HELP line that tries to end itself and forge a sample; label values with every
  // character the format gives a meaning to; bytes that are not UTF-8.
  const std::string help = "first line\n# TYPE forged counter\nforged 1 \\ back\\slash \"q\"";
  const std::string value = "a\"b\\c\nd} forged 1\n";
  const std::string not_utf8 = "ok\xff\xc3(\xe2\x82\xac";  // bad, cut short, then a valid euro
  auto c = registry.add_counter("hostile_total", help, {{"v", value}, {"u", not_utf8}});
  c.inc(3);
  const std::string text = registry.snapshot().to_prometheus();
  EXPECT_EQ(text,
            "# HELP hostile_total first line\\n# TYPE forged counter\\nforged 1 \\\\ "
            "back\\\\slash \"q\"\n"
            "# TYPE hostile_total counter\n"
            "hostile_total{v=\"a\\\"b\\\\c\\nd} forged 1\\n\",u=\"ok\xef\xbf\xbd\xef\xbf\xbd("
            "\xe2\x82\xac\"} 3\n");
  // Every line is a comment or a sample of our metric: nothing was forged.
  std::size_t lines = 0;
  for (std::size_t at = 0; at < text.size(); at = text.find('\n', at) + 1) {
    ++lines;
    const std::string line = text.substr(at, text.find('\n', at) - at);
    EXPECT_TRUE(line.rfind("# HELP hostile_total ", 0) == 0 ||
                line.rfind("# TYPE hostile_total ", 0) == 0 || line.rfind("hostile_total{", 0) == 0)
        << line;
  }
  EXPECT_EQ(lines, 3u);

  // JSON: quote, backslash and control characters escaped; the text reads back as it was
  // (invalid bytes as U+FFFD), so the JSON parses.
  std::string controls = "tab\there\x01\x1f end\r";
  controls += '\0';  // a NUL too
  controls += "z";
  auto g = registry.add_gauge("controls", controls, {{"c", controls}});
  g.set(1);
  const std::string json_text = registry.snapshot().to_json();
  EXPECT_NE(json_text.find("tab\\u0009here\\u0001\\u001f end\\u000d\\u0000z"), std::string::npos)
      << json_text;
  const auto json = nlohmann::json::parse(json_text);
  EXPECT_EQ(json["metrics"][0]["help"], help);
  EXPECT_EQ(json["metrics"][0]["samples"][0]["labels"]["v"], value);
  EXPECT_EQ(json["metrics"][0]["samples"][0]["labels"]["u"],
            "ok\xef\xbf\xbd\xef\xbf\xbd(\xe2\x82\xac");
  EXPECT_EQ(json["metrics"][1]["help"], controls);
  EXPECT_EQ(json["metrics"][1]["samples"][0]["labels"]["c"], controls);
}
