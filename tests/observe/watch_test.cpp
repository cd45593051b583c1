#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "spate/actor.hpp"
#include "spate/flow.hpp"
#include "spate/io/csv.hpp"
#include "spate/memory/multicast_envelope.hpp"
#include "spate/observe/progress_reporter.hpp"
#include "spate/observe/topology_export.hpp"
#include "spate/observe/watch.hpp"
#include "spate/reactor.hpp"
#include "spate/window.hpp"

namespace flow = spate::flow;
namespace observe = spate::observe;
using namespace std::chrono_literals;

namespace {

spate::scheduler_config two_workers() {
  spate::scheduler_config c;
  c.threads = 2;
  return c;
}

// A runtime with exactly two_workers() (the SPATE_* environment does not apply).
spate::runtime_config two_worker_runtime() {
  spate::runtime_config c;
  c.scheduler = two_workers();
  c.read_environment = false;
  return c;
}

// source -> farm of 2 (fused, by key) -> farm of 3 (fused, round robin) -> sink
auto keyed_job(std::uint64_t n, std::uint64_t& received) {
  return flow::pipeline(
      flow::generate<std::uint64_t>(n, [](std::size_t i) { return std::uint64_t(i); })
          .named("numbers"),
      flow::farm(flow::map([](std::uint64_t& x) { return x + 1; }).named("increment"), 2,
                 flow::by_key{[](const std::uint64_t& x) { return x % 7; }}),
      flow::farm(flow::map([](std::uint64_t& x) { return x * 2; }).named("double"), 3),
      flow::sink([&received](std::uint64_t&) { ++received; }).named("count"));
}

}  // namespace

TEST(watch, a_flow_graph_reports_every_replica_counters_and_its_edges) {
  spate::runtime rt(two_worker_runtime());
  std::uint64_t received = 0;
  constexpr std::uint64_t n = 30'000;
  flow::graph job(keyed_job(n, received), {.measure_busy_time = true});
  observe::metrics_registry registry;
  auto watching = observe::watch(registry, job, "keyed");
  EXPECT_TRUE(registry.snapshot().families.empty());  // not started: nothing to report
  job.run(rt);
  ASSERT_EQ(received, n);

  const auto s = registry.snapshot();
  EXPECT_EQ(s.value("spate_node_items_out_total", {{"graph", "keyed"}, {"node", "numbers"}}), n);
  EXPECT_EQ(s.value("spate_node_items_in_total", {{"node", "count"}, {"kind", "sink"}}), n);
  double doubled = 0;
  for (const auto& sample : s.find("spate_node_items_in_total")->samples) {
    for (const auto& l : sample.labels) {
      if (l.name == "node" && l.value.rfind("double#", 0) == 0) doubled += sample.value;
    }
  }
  EXPECT_EQ(doubled, n);  // the three replicas together saw every item once
  EXPECT_EQ(s.value("spate_node_queued_items", {{"node", "count"}}), 0);  // drained
  // 1 source + 2 + 3 replicas + 1 sink, every one with six counters.
  EXPECT_EQ(s.find("spate_node_items_in_total")->samples.size(), 7u);
  // Fused farms: 1x2 + 2x3 + 3x1 edges.
  EXPECT_EQ(s.find("spate_edge_queued_items")->samples.size(), 11u);
  EXPECT_GT(*s.value("spate_node_busy_seconds_total", {{"node", "numbers"}}), 0);
}

// Busy time is measured only when asked for; unmeasured, it is not exported at all rather
// than exported as a 0 that looks like an idle node.
TEST(watch, node_busy_time_is_exported_only_when_it_is_measured) {
  spate::runtime rt(two_worker_runtime());
  std::uint64_t received = 0;
  flow::graph job(keyed_job(1000, received));  // measure_busy_time defaults to false
  observe::metrics_registry registry;
  auto watching = observe::watch(registry, job, "plain");
  job.run(rt);
  const auto s = registry.snapshot();
  EXPECT_EQ(s.value("spate_node_items_in_total", {{"node", "count"}}), 1000);
  EXPECT_EQ(s.find("spate_node_busy_seconds_total"), nullptr);
  EXPECT_EQ(s.to_prometheus().find("busy_seconds"), std::string::npos);
}

TEST(watch, topology_labels_fused_farm_edges_with_their_policy) {
  spate::runtime rt(two_worker_runtime());
  std::uint64_t received = 0;
  flow::graph job(keyed_job(1000, received));
  EXPECT_TRUE(job.topology().nodes.empty());
  job.run(rt);
  const auto t = job.topology();
  ASSERT_EQ(t.nodes.size(), 7u);
  ASSERT_EQ(t.edges.size(), 11u);
  std::size_t by_key = 0, round_robin = 0, single = 0;
  for (const auto& e : t.edges) {
    const std::string from = t.nodes[e.from].name, to = t.nodes[e.to].name;
    if (e.route == "by key (fused)") {
      ++by_key;
      EXPECT_EQ(from, "numbers");
      EXPECT_EQ(to.rfind("increment#", 0), 0u) << to;
    } else if (e.route == "round robin (fused)") {
      ++round_robin;
      EXPECT_EQ(from.rfind("increment#", 0), 0u) << from;
      EXPECT_EQ(to.rfind("double#", 0), 0u) << to;
    } else {
      ++single;
      EXPECT_EQ(e.route, "");
      EXPECT_EQ(to, "count");
    }
    EXPECT_EQ(e.capacity, 1024u);
  }
  EXPECT_EQ(by_key, 2u);
  EXPECT_EQ(round_robin, 6u);
  EXPECT_EQ(single, 3u);
}

TEST(watch, unfused_and_ordered_farms_show_their_routers_and_collectors) {
  spate::runtime rt(two_worker_runtime());
  std::uint64_t received = 0;
  flow::graph job(
      flow::pipeline(
          flow::generate<int>(100, [](std::size_t i) { return int(i); }).named("numbers"),
          flow::ordered_farm(flow::map([](int& x) { return x; }).named("same"), 2),
          flow::sink([&](int&) { ++received; }).named("count")),
      {.fuse_farms = false});
  job.run(rt);
  const auto t = job.topology();
  std::vector<std::string> kinds;
  for (const auto& n : t.nodes) kinds.push_back(n.kind);
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "router"), 1);
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "collector"), 1);
  std::size_t ordered = 0;
  for (const auto& e : t.edges) ordered += e.route == "round robin (ordered)";
  EXPECT_EQ(ordered, 2u);
}

TEST(topology_export, dot_and_mermaid_draw_every_node_and_edge_and_graphviz_accepts_the_dot) {
  spate::runtime rt(two_worker_runtime());
  std::uint64_t received = 0;
  flow::graph job(keyed_job(1000, received));
  job.run(rt);
  const std::string dot = observe::to_dot(job.topology(), "keyed \"job\"");
  EXPECT_NE(dot.find("digraph \"keyed \\\"job\\\"\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("subgraph cluster_"), std::string::npos);
  EXPECT_NE(dot.find("label=\"increment (farm, 2 replicas)\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"by key (fused)\""), std::string::npos) << dot;
  std::size_t arrows = 0;
  for (std::size_t at = dot.find("->"); at != std::string::npos; at = dot.find("->", at + 2)) {
    ++arrows;
  }
  EXPECT_EQ(arrows, 11u);

  const std::string collapsed =
      observe::to_dot(job.topology(), "keyed", {.collapse_replicas = true});
  EXPECT_NE(collapsed.find("increment \u00d72"), std::string::npos) << collapsed;
  EXPECT_NE(collapsed.find("round robin (fused), 6 edges"), std::string::npos) << collapsed;

  const std::string mermaid = observe::to_mermaid(job.topology());
  EXPECT_EQ(mermaid.rfind("flowchart LR\n", 0), 0u);
  EXPECT_NE(mermaid.find("subgraph g1 [\"increment (farm, 2 replicas)\"]"), std::string::npos)
      << mermaid;
  EXPECT_NE(mermaid.find("-- \"by key (fused)\" -->"), std::string::npos) << mermaid;

  // Graphviz itself must accept what we wrote (installed by tools/install-deps).
  if (std::system("command -v dot >/dev/null 2>&1") != 0) GTEST_SKIP() << "no graphviz";
  const std::string path = ::testing::TempDir() + "spate_topology_test.dot";
  std::ofstream(path) << dot;
  EXPECT_EQ(std::system(("dot -Tsvg " + path + " -o " + path + ".svg").c_str()), 0) << dot;
  std::ofstream(path) << collapsed;
  EXPECT_EQ(std::system(("dot -Tsvg " + path + " -o " + path + ".svg").c_str()), 0) << collapsed;
}

TEST(watch, workers_report_their_time_and_tasks) {
  spate::runtime rt(two_worker_runtime());
  std::uint64_t received = 0;
  flow::graph job(keyed_job(10'000, received));
  job.run(rt);
  observe::metrics_registry registry;
  auto watching = observe::watch(registry, rt.pool(), "main");
  const auto s = registry.snapshot();
  ASSERT_EQ(s.find("spate_worker_tasks_total")->samples.size(), 2u);
  const double tasks = *s.value("spate_worker_tasks_total", {{"worker", "0"}}) +
                       *s.value("spate_worker_tasks_total", {{"worker", "1"}});
  EXPECT_GT(tasks, 0);
  EXPECT_TRUE(s.value("spate_worker_parks_total", {{"pool", "main"}}).has_value());
}

TEST(watch, actors_report_messages_handled_and_their_mailbox) {
  struct adder : spate::event_based_actor {
    spate::behavior make_behavior() override {
      return spate::behavior{[this](int x) { sum += x; },
                             [this](const std::string&) { return sum; }};
    }
    long sum = 0;
  };
  spate::actor_system_config config;
  config.scheduler.threads = 2;
  spate::actor_system system(config);
  spate::spawn_options named;
  named.name = "adder";
  auto a = system.spawn_with<adder>(named);
  observe::metrics_registry registry;
  auto watching = observe::watch(registry, system);
  for (int i = 1; i <= 100; ++i) spate::send(a, i);
  EXPECT_EQ(spate::request<long>(a, std::string("sum?"), 10s).get(), 5050);
  // The counters move when an activation ends, which may be just after the reply is sent.
  auto s = registry.snapshot();
  for (int i = 0;
       i < 500 && s.value("spate_actor_messages_handled_total", {{"actor", "adder"}}) != 101.0;
       ++i) {
    std::this_thread::sleep_for(10ms);
    s = registry.snapshot();
  }
  EXPECT_EQ(s.value("spate_actor_messages_handled_total", {{"actor", "adder"}}), 101);
  EXPECT_EQ(s.value("spate_actor_mailbox_length", {{"actor", "adder"}}), 0);
  EXPECT_EQ(s.value("spate_actors_live"), 1);
}

namespace {
struct ticker : spate::reactor::reactor {
  spate::reactor::timer tick{this, "tick", 0ms, 10ms};
  int count = 0;
  explicit ticker(context ctx) : reactor(ctx) {
    reaction("count").triggers(tick).body([this] { ++count; });
  }
};
}  // namespace

TEST(watch, a_reactor_program_reports_tags_and_reactions) {
  spate::runtime_config config;
  config.scheduler = two_workers();
  spate::runtime rt(config);
  spate::reactor::environment_options options;
  options.fast = true;
  options.timeout = 90ms;  // ticks at 0, 10, ..., 90 ms
  spate::reactor::environment env{rt, options};
  auto& t = env.make_top<ticker>("ticker");
  observe::metrics_registry registry;
  auto watching = observe::watch(registry, env, "ticks");
  env.run();
  const auto s = registry.snapshot();
  EXPECT_EQ(t.count, 10);
  EXPECT_EQ(s.value("spate_reactor_reactions_executed_total", {{"program", "ticks"}}), 10);
  EXPECT_GE(*s.value("spate_reactor_tags_total"), 10);
  // Ten reactions in a program of one: never worth a sparse tag in precise mode.
  EXPECT_EQ(s.value("spate_reactor_sparse_tags_total", {{"program", "ticks"}}), 0);
}

TEST(progress_reporter, lines_give_share_rate_and_time_left) {
  observe::progress_options options;
  options.title = "job";
  options.unit = "lines";
  options.total = 10'000'000;
  EXPECT_EQ(observe::progress_reporter::line(options, 4'200'000, 2.0),
            "job: 42.0% (4.20 M of 10.00 M lines), 2.10 M lines/s, about 2.8 s left");
  options.total = 0;
  EXPECT_EQ(observe::progress_reporter::line(options, 1500, 1.0), "job: 1500 lines, 1500 lines/s");
}

TEST(progress_reporter, reports_a_running_graph_until_stopped) {
  spate::runtime rt(two_worker_runtime());
  std::vector<std::string> lines;
  std::mutex m;
  std::uint64_t received = 0;
  constexpr std::uint64_t n = 2000;
  flow::graph job(
      flow::pipeline(flow::generate<int>(n, [](std::size_t i) { return int(i); }).named("numbers"),
                     flow::map([](int& x) {
                       std::this_thread::sleep_for(50us);
                       return x;
                     }),
                     flow::sink([&](int&) { ++received; }).named("count")));
  {
    observe::progress_reporter reporter(
        observe::items_through(job, "count"),
        {.title = "slow", .total = n, .period = 20ms, .print = [&](const std::string& line) {
           const std::lock_guard lock(m);
           lines.push_back(line);
         }});
    job.run(rt);
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(observe::items_through(job, "count")(), n);
    EXPECT_EQ(observe::items_through(job, "numbers")(), n);
    EXPECT_EQ(observe::items_through(job, "count#")(), 0u);
  }
  const std::lock_guard lock(m);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines.front().rfind("slow: ", 0), 0u);
  EXPECT_NE(lines.back().find("100.0% (2000 of 2000 items)"), std::string::npos) << lines.back();
}

// ---- io and window numbers ----

namespace {
struct reading {
  int sensor;
  std::uint64_t time;
  int value;
};
}  // namespace

TEST(watch, an_io_source_exports_its_malformed_record_count) {
  const std::string path = ::testing::TempDir() + "spate_watch_malformed.csv";
  {
    std::ofstream out(path);
    out << "id,price\n"
        << "1,10.5\n"
        << "2,abc\n"  // not a number
        << "3\n"      // a field missing
        << "4,1.5\n"
        << "5,2,extra\n"  // a field too many
        << "6,3\n";
  }
  auto errors = std::make_shared<spate::io::input_errors>();
  spate::runtime rt(two_worker_runtime());
  std::uint64_t rows = 0;
  flow::graph job(flow::pipeline(spate::io::csv_source<int, double>(path, errors),
                                 flow::sink([&](std::tuple<int, double>&) { ++rows; })));
  observe::metrics_registry registry;
  auto watching = observe::watch(registry, errors, "prices.csv");
  EXPECT_EQ(registry.snapshot().value("spate_input_malformed_records_total"), 0);
  job.run(rt);
  EXPECT_EQ(rows, 3u);
  const auto s = registry.snapshot();
  EXPECT_EQ(s.value("spate_input_malformed_records_total", {{"source", "prices.csv"}}), 3);
  const std::string text = s.to_prometheus();
  EXPECT_NE(text.find("# TYPE spate_input_malformed_records_total counter\n"
                      "spate_input_malformed_records_total{source=\"prices.csv\"} 3\n"),
            std::string::npos)
      << text;
  const auto json = nlohmann::json::parse(s.to_json());
  EXPECT_EQ(json["metrics"][0]["name"], "spate_input_malformed_records_total");
  EXPECT_EQ(json["metrics"][0]["samples"][0]["labels"]["source"], "prices.csv");
  EXPECT_EQ(json["metrics"][0]["samples"][0]["value"], 3);
  EXPECT_THROW((void)observe::watch(registry, std::shared_ptr<spate::io::input_errors>(), "x"),
               std::invalid_argument);
}

TEST(watch, a_window_pattern_exports_its_late_and_dropped_tuples_and_its_slab_pool) {
  // Windows of 20 sliding by 10, no lateness allowed. Time 25 fires window 0, [0, 20): the
  // tuple at 15 is late for it but still joins window 1, [10, 30); the tuple at 3 was only
  // ever in window 0, so it is late for every window that held it (dropped).
  const std::vector<reading> stream{{1, 0, 1}, {1, 25, 2}, {1, 15, 3}, {1, 3, 4}, {2, 26, 5}};
  const spate::window::time_window spec{.length = 20, .slide = 10, .lateness = 0};
  auto sensor = [](const reading& r) { return r.sensor; };
  auto time = [](const reading& r) { return r.time; };
  auto sum = spate::window::incremental<int>([](int& a, const reading& r) { a += r.value; },
                                             [](const int&, const int& a) { return a; });
  auto report = std::make_shared<spate::window::window_report>();
  auto heap_report = std::make_shared<spate::window::window_report>();
  observe::metrics_registry registry;
  auto watching = observe::watch(registry, report, "sensors");
  auto watching_heap = observe::watch(registry, heap_report, "sensors_heap");
  std::size_t results = 0;
  {
    // The runtime ends after the graphs: a graph's run is released by its last task on a worker,
    // possibly just after wait() returned, and the runtime joins its workers.
    spate::runtime rt(two_worker_runtime());
    flow::graph job(flow::pipeline(
        flow::from_range(stream),
        spate::window::key_partitioning<reading>(spec, sensor, time, sum, 2, {.report = report}),
        flow::sink([&](spate::window::window_result<int, int>&) { ++results; })));
    flow::graph heap_job(
        flow::pipeline(flow::from_range(stream),
                       spate::window::window_farming<reading>(
                           spec, sensor, time, sum, 2,
                           {.memory = spate::window::tuple_memory::heap, .report = heap_report}),
                       flow::sink([](spate::window::window_result<int, int>&) {})));
    job.run(rt);
    heap_job.run(rt);
    EXPECT_GT(results, 0u);

    // Four tuples were copied into envelopes (the dropped one was not): one slab of 1024.
    const spate::memory::slab_pool probe({.block_size = spate::memory::envelope_block_size<reading>,
                                          .alignment = spate::memory::envelope_alignment<reading>,
                                          .blocks_per_slab = 1,
                                          .releasers = 1});
    const double slab_bytes = 1024.0 * double(probe.block_size());
    const auto s = registry.snapshot();
    const observe::label_set slab{{"pattern", "sensors"}}, heap{{"pattern", "sensors_heap"}};
    EXPECT_EQ(s.value("spate_window_late_tuples_total", slab), 2);
    EXPECT_EQ(s.value("spate_window_dropped_tuples_total", slab), 1);
    EXPECT_EQ(s.value("spate_window_slab_pool_slabs", slab), 1);
    EXPECT_EQ(s.value("spate_window_slab_pool_bytes", slab), slab_bytes);
    EXPECT_EQ(s.value("spate_window_late_tuples_total", heap), 2);  // same stream, same rule
    EXPECT_EQ(s.value("spate_window_dropped_tuples_total", heap), 1);
    EXPECT_EQ(s.value("spate_window_slab_pool_slabs", heap), 0);  // no pool on the heap
    EXPECT_EQ(s.value("spate_window_slab_pool_bytes", heap), 0);

    const std::string text = s.to_prometheus();
    for (const std::string& line :
         std::vector<std::string>{"spate_window_late_tuples_total{pattern=\"sensors\"} 2\n",
                                  "spate_window_dropped_tuples_total{pattern=\"sensors\"} 1\n",
                                  "spate_window_slab_pool_slabs{pattern=\"sensors\"} 1\n",
                                  "spate_window_slab_pool_bytes{pattern=\"sensors\"} " +
                                      std::to_string(std::uint64_t(slab_bytes)) + "\n"}) {
      EXPECT_NE(text.find(line), std::string::npos) << line << " not in\n" << text;
    }
    const auto json = nlohmann::json::parse(s.to_json());
    bool found = false;
    for (const auto& f : json["metrics"]) {
      if (f["name"] != "spate_window_late_tuples_total") continue;
      found = true;
      EXPECT_EQ(f["type"], "counter");
      EXPECT_EQ(f["samples"][0]["labels"]["pattern"], "sensors");
      EXPECT_EQ(f["samples"][0]["value"], 2);
    }
    EXPECT_TRUE(found);
  }
  // The graphs and the runtime are gone, and the pools with them.
  EXPECT_EQ(registry.snapshot().value("spate_window_slab_pool_bytes", {{"pattern", "sensors"}}), 0);
  EXPECT_EQ(report->late_tuples.load(), 2u);  // totals stay
}

TEST(watch, a_count_window_pattern_reports_its_slab_pool_too) {
  // How many slabs the pool needs depends on how many tuples were in flight at once; what
  // holds is that there is at least one while the graph lives, of 1024 blocks each, and none
  // once it is gone.
  constexpr int n = 5000;
  std::vector<reading> stream;
  for (int i = 0; i < n; ++i) stream.push_back({i % 4, std::uint64_t(i), 1});
  auto report = std::make_shared<spate::window::window_report>();
  observe::metrics_registry registry;
  auto watching = observe::watch(registry, report, "counts");
  std::size_t windows = 0;
  double slabs_while_held = 0;
  {
    // The runtime ends after the graphs: a graph's run is released by its last task on a worker,
    // possibly just after wait() returned, and the runtime joins its workers.
    spate::runtime rt(two_worker_runtime());
    flow::graph job(flow::pipeline(
        flow::from_range(stream),
        spate::window::window_farming<reading>(
            spate::window::sliding(1000, 10), [](const reading& r) { return r.sensor; },
            spate::window::incremental<int>([](int& a, const reading& r) { a += r.value; },
                                            [](const int&, const int& a) { return a; }),
            2, {.report = report}),
        flow::sink([&](spate::window::window_result<int, int>&) { ++windows; })));
    job.run(rt);
    slabs_while_held = *registry.snapshot().value("spate_window_slab_pool_slabs");
    EXPECT_GE(slabs_while_held, 1);
    EXPECT_EQ(
        *registry.snapshot().value("spate_window_slab_pool_bytes") / (slabs_while_held * 1024),
        double(spate::memory::slab_pool({.block_size = spate::memory::envelope_block_size<reading>,
                                         .alignment = spate::memory::envelope_alignment<reading>,
                                         .blocks_per_slab = 1,
                                         .releasers = 2})
                   .block_size()));
    EXPECT_EQ(report->late_tuples.load(), 0u);  // count windows have no late tuples
  }
  EXPECT_GT(windows, 0u);
  EXPECT_EQ(registry.snapshot().value("spate_window_slab_pool_slabs"), 0);
}
