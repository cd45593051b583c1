// librdkafka's own log lines reach spate's log (component "kafka") instead of stderr: a
// producer pointed at a port where no broker listens (the fault) logs its failed connects.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <string>

#include "spate/kafka/sink.hpp"
#include "spate/log/log.hpp"

using namespace std::chrono_literals;
// Not `log`: <cmath> declares ::log, and the alias would clash with it.
namespace slog = spate::log;

TEST(kafka_log, librdkafkas_lines_go_to_the_sink_not_to_stderr) {
  std::promise<std::pair<slog::level, std::string>> first;
  std::once_flag once;
  slog::scoped_sink to_promise([&](const slog::record& r) {
    if (r.component != "kafka") return;
    std::call_once(once, [&] { first.set_value({r.severity, std::string(r.text)}); });
  });
  testing::internal::CaptureStderr();
  {
    spate::kafka::detail::producer nowhere(spate::kafka::producer_options{
        .brokers = "127.0.0.1:1", .topic = "spate-log-test", .settings = {}});
    auto got = first.get_future();
    ASSERT_EQ(got.wait_for(60s), std::future_status::ready);
    const auto [severity, text] = got.get();
    EXPECT_EQ(severity, slog::level::error);  // librdkafka's level 3 (error)
    EXPECT_EQ(text.rfind("librdkafka ", 0), 0u) << text;
    EXPECT_NE(text.find("127.0.0.1:1"), std::string::npos) << text;
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}
