// spate's log through spdlog (docs/observe.md, "Logging"): a window job whose input has a
// tuple later than the allowed lateness, and an error reported through the runtime; both
// reach an spdlog logger with spdlog's pattern. The logger writes to stderr and to a string,
// which the program checks.
//
//   build/release/examples/log_to_spdlog
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <sstream>
#include <vector>

#include "spate/flow.hpp"
#include "spate/log/spdlog_sink.hpp"
#include "spate/window.hpp"

namespace {
struct reading {
  int sensor;
  std::uint64_t time;
  std::int64_t value;
};
}  // namespace

int main() {
  namespace flow = spate::flow;
  namespace window = spate::window;

  std::ostringstream captured;
  auto to_string = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  auto to_stderr = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger =
      std::make_shared<spdlog::logger>("spate", spdlog::sinks_init_list{to_string, to_stderr});
  logger->set_pattern("%Y-%m-%d %H:%M:%S.%e [%n] [%l] %v");
  logger->set_level(spdlog::level::info);
  // From here on every spate record goes to `logger`; the previous sink comes back at the
  // end, before `captured` (which the logger writes into) is gone.
  const spate::log::sink previous = spate::log::log_to_spdlog(logger);

  // Tumbling windows of 10 time units, lateness 5: the reading at time 5 comes after the
  // watermark passed 25, so its window has fired: the pattern counts it and, as nobody asked
  // for its report, logs a warning at the end.
  std::vector<reading> readings{{1, 1, 1}, {1, 12, 2}, {1, 30, 3}, {1, 5, 4}, {1, 31, 5}};
  auto sum = window::incremental<std::int64_t>(
      [](std::int64_t& total, const reading& r) { total += r.value; },
      [](const int&, const std::int64_t& total) { return total; });
  spate::runtime rt;
  flow::graph job(
      flow::pipeline(flow::from_range(readings),
                     window::key_partitioning<reading>(
                         window::time_window{10, 10, 5}, [](const reading& r) { return r.sensor; },
                         [](const reading& r) { return r.time; }, sum, 2),
                     flow::sink([](window::window_result<int, std::int64_t>&) {})));
  job.run(rt);
  rt.report_error("spate: an error reported through the runtime");  // no error_reporter: the log

  logger->flush();
  const std::string text = captured.str();
  const bool ok = text.find("[spate] [warning] window: 1 late tuples") != std::string::npos &&
                  text.find("[spate] [error] runtime: an error reported") != std::string::npos;
  std::printf("%s\n", ok ? "spdlog example ok" : "spdlog example FAILED");
  spate::log::set_sink(previous);
  return ok ? 0 : 1;
}
