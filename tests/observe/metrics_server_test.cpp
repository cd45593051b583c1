#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "spate/flow.hpp"
#include "spate/observe/metrics_server.hpp"
#include "spate/observe/watch.hpp"

namespace flow = spate::flow;
namespace observe = spate::observe;
using namespace std::chrono_literals;

namespace {

// A Prometheus text page parsed strictly: every sample line is `name{labels} value`, every
// name was announced by # TYPE first. Returns "name{labels}" -> value.
std::map<std::string, double> parse_prometheus(const std::string& text) {
  static const std::regex sample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (\S+)$)");
  static const std::regex type_line(
      R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)$)");
  std::map<std::string, double> result;
  std::set<std::string> announced;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.rfind("# HELP ", 0) == 0) continue;
    if (std::regex_match(line, m, type_line)) {
      announced.insert(m[1]);
      continue;
    }
    if (!std::regex_match(line, m, sample)) {
      ADD_FAILURE() << "not a sample line: " << line;
      continue;
    }
    const std::string name = m[1];
    const bool known = announced.count(name) ||
                       std::any_of(announced.begin(), announced.end(), [&](const std::string& a) {
                         return name == a + "_bucket" || name == a + "_sum" || name == a + "_count";
                       });
    EXPECT_TRUE(known) << name << " has no # TYPE line before it";
    result[name + m[2].str()] = std::stod(m[5]);
  }
  return result;
}

}  // namespace

TEST(metrics_server, serves_a_running_job_to_a_scraper_in_prometheus_text_and_json) {
  spate::runtime_config config;
  config.scheduler = spate::scheduler_config{};
  config.scheduler.threads = 2;
  config.read_environment = false;
  spate::runtime rt(config);
  constexpr std::uint64_t n = 4000;
  std::uint64_t received = 0;
  flow::graph job(flow::pipeline(
      flow::generate<int>(n, [](std::size_t i) { return int(i); }).named("numbers"),
      flow::map([](int& x) {
        std::this_thread::sleep_for(100us);  // long enough to be scraped while it runs
        return x;
      }).named("slow"),
      flow::sink([&](int&) { ++received; }).named("count")));
  observe::metrics_registry registry;
  auto watching_job = observe::watch(registry, job, "paced");
  auto watching_pool = observe::watch(registry, rt.pool(), "main");
  observe::metrics_server server(registry, {});
  ASSERT_GT(server.port(), 0);
  EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(server.port()) + "/metrics");

  httplib::Client client("127.0.0.1", server.port());
  const std::string counted =
      "spate_node_items_in_total{graph=\"paced\",node=\"count\",kind=\"sink\"}";
  job.start(rt);
  double last = 0;
  int scrapes_while_running = 0;
  while (!job.finished()) {
    auto response = client.Get("/metrics");
    ASSERT_TRUE(response) << "no answer from " << server.url();
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->get_header_value("Content-Type"), "text/plain; version=0.0.4");
    const auto page = parse_prometheus(response->body);
    if (page.count(counted) != 0) {
      EXPECT_GE(page.at(counted), last);  // a counter never goes back
      last = page.at(counted);
      ++scrapes_while_running;
    }
    EXPECT_EQ(page.count("spate_worker_tasks_total{pool=\"main\",worker=\"1\"}"), 1u);
    std::this_thread::sleep_for(10ms);
  }
  job.wait();
  EXPECT_GE(scrapes_while_running, 2);
  const auto final_page = parse_prometheus(client.Get("/metrics")->body);
  EXPECT_EQ(final_page.at(counted), n);
  EXPECT_EQ(
      final_page.at("spate_node_items_out_total{graph=\"paced\",node=\"numbers\",kind=\"source\"}"),
      n);

  auto json_response = client.Get("/metrics.json");
  ASSERT_TRUE(json_response);
  EXPECT_EQ(json_response->get_header_value("Content-Type"), "application/json");
  const auto json = nlohmann::json::parse(json_response->body);
  bool found = false;
  for (const auto& family : json["metrics"]) {
    if (family["name"] != "spate_node_items_in_total") continue;
    for (const auto& s : family["samples"]) {
      if (s["labels"]["node"] == "count") found = s["value"] == n;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(client.Get("/nothing-here")->status, 404);
}

TEST(metrics_server, a_port_in_use_is_an_error_that_names_it) {
  observe::metrics_registry registry;
  observe::metrics_server first(registry, {});
  try {
    observe::metrics_server second(registry, {.port = first.port()});
    FAIL() << "two servers listened on one port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(first.port())),
              std::string::npos)
        << e.what();
  }
}

// Issue 23: "cannot listen on 127.0.0.1:9464" said nothing of why.
TEST(metrics_server, a_port_already_bound_is_an_error_with_the_os_reason) {
  observe::metrics_registry registry;
  observe::metrics_server first(registry, {});
  const int port = first.port();
  try {
    observe::metrics_server second(registry, {.address = "127.0.0.1", .port = port});
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "spate::observe::metrics_server: cannot listen on 127.0.0.1:" +
                                         std::to_string(port) + ": Address already in use");
  }
  // An address that is not this host's: the reason says so, not "in use".
  try {
    observe::metrics_server elsewhere(registry, {.address = "192.0.2.1", .port = 0});
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "spate::observe::metrics_server: cannot listen on 192.0.2.1:0: Cannot assign "
              "requested address");
  }
}
