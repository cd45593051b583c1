// Uses each spate library the way an application would; exits 0 when all of it works.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include <spate/flow.hpp>
#include <spate/observe/metrics_registry.hpp>
#include <spate/observe/watch.hpp>
#include <spate/version.hpp>
#if CONSUMER_WITH_KAFKA
#include <spate/kafka/admin.hpp>
#endif
#if CONSUMER_WITH_HTTP
#include <spate/observe/metrics_server.hpp>
#endif
#if CONSUMER_WITH_ROCKSDB
#include <spate/state/keyed.hpp>
#include <spate/state/rocksdb_backend.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <tuple>
#endif

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

#if CONSUMER_WITH_HTTP
// GET path from 127.0.0.1:port; the whole answer (headers and body).
std::string http_get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    throw std::runtime_error("connect failed");
  }
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: localhost\r\n\r\n";
  if (::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    ::close(fd);
    throw std::runtime_error("write failed");
  }
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) answer.append(buffer, n);
  ::close(fd);
  return answer;
}
#endif

}  // namespace

int main() {
  check(std::string(spate::version_string) == SPATE_EXPECTED_VERSION,
        std::string("version ") + spate::version_string);

  spate::runtime rt{{.scheduler = {.threads = 2}}};
  long sum = 0;
  spate::flow::graph job(
      spate::flow::pipeline(spate::flow::generate<int>(1000, [](std::size_t i) { return int(i); }),
                            spate::flow::farm(spate::flow::map([](int& x) { return x * 2; }), 2),
                            spate::flow::sink([&](int& x) { sum += x; })));
  job.run(rt);
  check(sum == 999 * 1000, "a flow graph's sum: " + std::to_string(sum));

  spate::observe::metrics_registry registry;
  const auto watching = spate::observe::watch(registry, rt.pool());
  check(registry.snapshot().to_prometheus().find("spate_") != std::string::npos,
        "the metrics registry");
#if CONSUMER_WITH_HTTP
  spate::observe::metrics_server server(registry, {.address = "127.0.0.1", .port = 0});
  const std::string page = http_get(server.port(), "/metrics");
  check(page.find("200 OK") != std::string::npos && page.find("spate_") != std::string::npos,
        "the metrics endpoint serves spate's metrics");
#endif
#if CONSUMER_WITH_KAFKA
  try {
    spate::kafka::create_topic("127.0.0.1:9", "consumer-check", -5);  // refused at once
    check(false, "kafka: create_topic with -5 partitions throws");
  } catch (const std::invalid_argument& e) {
    check(std::string(e.what()).find("consumer-check") != std::string::npos,
          std::string("kafka: create_topic refuses -5 partitions: ") + e.what());
  }
#endif
#if CONSUMER_WITH_ROCKSDB
  {
    struct count : spate::flow::node<int, std::pair<int, std::int64_t>> {
      spate::state::value<std::int64_t> n{"n"};
      auto state_fields() { return std::tie(n); }
      void consume(int& k) { send_next({k, ++n.get_or_init(0)}); }
    };
    const auto dir =
        std::filesystem::temp_directory_path() / ("spate-consumer-" + std::to_string(::getpid()));
    std::map<int, std::int64_t> highest;
    spate::flow::graph keyed(
        spate::flow::pipeline(
            spate::flow::generate<int>(1000, [](std::size_t i) { return int(i % 10); }),
            spate::flow::farm(count{}, 2, spate::flow::by_key{[](const int& k) { return k; }}),
            spate::flow::sink([&](std::pair<int, std::int64_t>& c) {
              if (c.second > highest[c.first]) highest[c.first] = c.second;
            })),
        spate::flow::graph_options{.keyed_state_backend =
                                       spate::state::rocksdb_backend({.directory = dir})});
    keyed.run(rt);
    check(highest.size() == 10 && highest[3] == 100,
          "keyed state in RocksDB: 10 keys, 100 each (key 3: " + std::to_string(highest[3]) + ")");
    std::filesystem::remove_all(dir);
  }
#endif
  return failures == 0 ? 0 : 1;
}
