// The log (spate/log/log.hpp): the level filter, the default sink's line, a user sink set
// and replaced while other threads log, and the library's own reports arriving through it —
// a stalled graph, late tuples in a window, a timer callback that throws, an error with no
// error_reporter, progress lines.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "spate/actor.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/flow.hpp"
#include "spate/log/log.hpp"
#include "spate/observe/progress_reporter.hpp"
#include "spate/window.hpp"
#include "../test_runtime.hpp"

using namespace std::chrono_literals;
// Not `log`: <cmath> declares ::log, and the alias would clash with it.
namespace slog = spate::log;
namespace flow = spate::flow;

namespace {

struct kept_record {
  slog::level severity;
  std::string component;
  std::string text;
};

// A sink that keeps copies of what it receives (thread-safe: workers log too).
class recorder {
 public:
  slog::sink sink() {
    return [this](const slog::record& r) {
      std::lock_guard lock(mutex_);
      records_.push_back({r.severity, std::string(r.component), std::string(r.text)});
    };
  }
  std::vector<kept_record> records() const {
    std::lock_guard lock(mutex_);
    return records_;
  }
  // The records of one component.
  std::vector<kept_record> from(const std::string& component) const {
    std::vector<kept_record> out;
    for (auto& r : records())
      if (r.component == component) out.push_back(r);
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<kept_record> records_;
};

using spate::test::two_workers;

// Every test starts and ends with the defaults: the sink and level are process-wide.
class log_test : public testing::Test {
 protected:
  void SetUp() override {
    slog::set_sink(nullptr);
    slog::set_min_level(slog::level::info);
  }
  void TearDown() override {
    slog::set_sink(nullptr);
    slog::set_min_level(slog::level::info);
  }
};

}  // namespace

TEST_F(log_test, records_below_the_minimum_level_do_not_reach_the_sink) {
  recorder seen;
  slog::scoped_sink to_recorder(seen.sink());
  EXPECT_EQ(slog::min_level(), slog::level::info);  // the default
  EXPECT_FALSE(slog::enabled(slog::level::debug));
  EXPECT_TRUE(slog::enabled(slog::level::info));

  slog::set_min_level(slog::level::warn);
  slog::write(slog::level::trace, "test", "t");
  slog::write(slog::level::debug, "test", "d");
  slog::write(slog::level::info, "test", "i");
  slog::write(slog::level::warn, "test", "w");
  slog::write(slog::level::error, "test", "e");
  auto got = seen.records();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].severity, slog::level::warn);
  EXPECT_EQ(got[0].component, "test");
  EXPECT_EQ(got[0].text, "w");
  EXPECT_EQ(got[1].severity, slog::level::error);
  EXPECT_EQ(got[1].text, "e");

  slog::set_min_level(slog::level::trace);
  slog::write(slog::level::trace, "test", "t2");
  ASSERT_EQ(seen.records().size(), 3u);
  EXPECT_EQ(seen.records()[2].severity, slog::level::trace);

  slog::set_min_level(slog::level::off);  // silences everything, errors included
  EXPECT_FALSE(slog::enabled(slog::level::error));
  EXPECT_FALSE(slog::enabled(slog::level::off));
  slog::write(slog::level::error, "test", "e2");
  slog::write(slog::level::off, "test", "never a record");
  EXPECT_EQ(seen.records().size(), 3u);
}

TEST_F(log_test, the_default_sink_writes_one_line_with_level_and_component_to_stderr) {
  EXPECT_EQ(slog::format({slog::level::warn, "flow", "stalled"}), "spate [warn] flow: stalled");
  EXPECT_STREQ(slog::to_string(slog::level::error), "error");
  testing::internal::CaptureStderr();
  slog::write(slog::level::error, "exec", "something failed");
  slog::write(slog::level::debug, "exec", "below the level: not printed");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "spate [error] exec: something failed\n");
}

TEST_F(log_test, a_scoped_sink_puts_back_the_sink_it_replaced) {
  recorder outer, inner;
  slog::scoped_sink to_outer(outer.sink());
  {
    slog::scoped_sink to_inner(inner.sink());
    slog::write(slog::level::info, "test", "inner");
  }
  slog::write(slog::level::info, "test", "outer");
  ASSERT_EQ(inner.records().size(), 1u);
  EXPECT_EQ(inner.records()[0].text, "inner");
  ASSERT_EQ(outer.records().size(), 1u);
  EXPECT_EQ(outer.records()[0].text, "outer");
}

TEST_F(log_test, a_throwing_sink_loses_its_record_not_the_callers_work) {
  int calls = 0;
  slog::scoped_sink broken([&](const slog::record&) {
    ++calls;
    throw std::runtime_error("sink broken");
  });
  EXPECT_NO_THROW(slog::write(slog::level::error, "test", "one"));
  EXPECT_NO_THROW(slog::write(slog::level::error, "test", "two"));
  EXPECT_EQ(calls, 2);
}

// The stall report of flow::graph: one warn record from "flow" with the headline and every
// task, and nothing on stderr.
TEST_F(log_test, a_stalled_graph_is_reported_through_the_sink) {
  recorder seen;
  slog::scoped_sink to_recorder(seen.sink());
  spate::runtime rt(two_workers());
  flow::graph_options options;
  options.stall_report_after = 60ms;
  options.items_per_activation = 1;
  // Stuck for ~400 ms in one item (the fault), then done.
  flow::graph g(flow::pipeline(flow::source_from([i = 0]() mutable -> std::optional<int> {
                                 if (i == 1) std::this_thread::sleep_for(400ms);
                                 return i < 3 ? std::optional(i++) : std::nullopt;
                               }).named("sleepy"),
                               flow::sink([](int&) {}).named("drain")),
                options);
  testing::internal::CaptureStderr();
  g.run(rt);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  const auto reports = seen.from("flow");
  // Once per stall: the 400 ms one, and on a loaded machine perhaps a slow start as well.
  ASSERT_GE(reports.size(), 1u);
  ASSERT_LE(reports.size(), 2u);
  EXPECT_EQ(reports[0].severity, slog::level::warn);
  EXPECT_EQ(reports[0].text.rfind("for 60 ms no item moved and no activation ended", 0), 0u)
      << reports[0].text;
  EXPECT_NE(reports[0].text.find("\n  "), std::string::npos) << reports[0].text;  // tasks
  EXPECT_NE(reports[0].text.find("sleepy"), std::string::npos) << reports[0].text;
  EXPECT_NE(reports[0].text.find("drain"), std::string::npos) << reports[0].text;
}

TEST_F(log_test, a_stall_is_not_reported_when_warnings_are_below_the_level) {
  recorder seen;
  slog::scoped_sink to_recorder(seen.sink());
  slog::set_min_level(slog::level::error);
  spate::runtime rt(two_workers());
  flow::graph_options options;
  options.stall_report_after = 30ms;
  options.items_per_activation = 1;
  flow::graph g(flow::pipeline(flow::source_from([i = 0]() mutable -> std::optional<int> {
                                 if (i == 1) std::this_thread::sleep_for(200ms);
                                 return i < 3 ? std::optional(i++) : std::nullopt;
                               }),
                               flow::sink([](int&) {})),
                options);
  g.run(rt);
  EXPECT_TRUE(seen.records().empty());
}

namespace {
struct reading {
  int sensor;
  std::uint64_t time;
  std::int64_t value;
};
}  // namespace

// A window pattern whose report nobody asked for says at the end how many tuples were late.
TEST_F(log_test, late_tuples_in_a_window_are_reported_through_the_sink) {
  recorder seen;
  slog::scoped_sink to_recorder(seen.sink());
  // Tumbling windows of 10, lateness 5: the tuple at time 5 (the fault) arrives after the
  // watermark passed 25, so it is late for its only window.
  std::vector<reading> stream{{1, 1, 1}, {1, 12, 2}, {1, 30, 3}, {1, 5, 4}, {1, 31, 5}};
  auto total = spate::window::incremental<std::int64_t>(
      [](std::int64_t& a, const reading& r) { a += r.value; },
      [](const int&, const std::int64_t& a) { return a; });
  std::size_t results = 0;
  flow::graph job(flow::pipeline(
      flow::from_range(stream),
      spate::window::key_partitioning<reading>(
          spate::window::time_window{10, 10, 5}, [](const reading& r) { return r.sensor; },
          [](const reading& r) { return r.time; }, total, 2),
      flow::sink([&](spate::window::window_result<int, std::int64_t>&) { ++results; })));
  job.run();
  EXPECT_EQ(results, 3u);
  const auto reports = seen.from("window");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].severity, slog::level::warn);
  EXPECT_EQ(reports[0].text,
            "1 late tuples arrived after some of their windows fired (1 of them after all of "
            "them, so in no window); allowed lateness 5");
}

TEST_F(log_test, a_throwing_timer_callback_is_an_error_record_without_an_error_reporter) {
  std::promise<kept_record> first;
  std::once_flag once;
  slog::scoped_sink to_promise([&](const slog::record& r) {
    std::call_once(once, [&] {
      first.set_value({r.severity, std::string(r.component), std::string(r.text)});
    });
  });
  spate::runtime rt(two_workers());
  rt.timers().schedule_after(1ms, [] { throw std::runtime_error("boom"); });
  auto got = first.get_future();
  ASSERT_EQ(got.wait_for(30s), std::future_status::ready);
  const kept_record r = got.get();
  EXPECT_EQ(r.severity, slog::level::error);
  EXPECT_EQ(r.component, "timer");
  EXPECT_EQ(r.text, "a timer callback threw: boom (the timer is cancelled)");
}

// runtime_config::error_reporter keeps its meaning: when set, errors go there, not to the log.
TEST_F(log_test, an_error_reporter_takes_the_errors_instead_of_the_log) {
  recorder seen;
  slog::scoped_sink to_recorder(seen.sink());
  std::promise<std::string> reported;
  auto config = two_workers();
  config.error_reporter = [&](const std::string& text) { reported.set_value(text); };
  {
    spate::runtime rt(config);
    rt.timers().schedule_after(1ms, [] { throw std::runtime_error("boom"); });
    auto got = reported.get_future();
    ASSERT_EQ(got.wait_for(30s), std::future_status::ready);
    EXPECT_EQ(got.get(), "spate: a timer callback threw: boom (the timer is cancelled)");
  }
  EXPECT_TRUE(seen.records().empty());

  spate::runtime plain(two_workers());  // no reporter: the log, without the "spate: " prefix
  plain.report_error("spate: actor 'a' (#1) received an unexpected message of type int");
  ASSERT_EQ(seen.records().size(), 1u);
  EXPECT_EQ(seen.records()[0].severity, slog::level::error);
  EXPECT_EQ(seen.records()[0].component, "runtime");
  EXPECT_EQ(seen.records()[0].text, "actor 'a' (#1) received an unexpected message of type int");
}

TEST_F(log_test, progress_lines_without_a_print_function_are_info_records) {
  std::promise<kept_record> first;
  std::once_flag once;
  slog::scoped_sink to_promise([&](const slog::record& r) {
    std::call_once(once, [&] {
      first.set_value({r.severity, std::string(r.component), std::string(r.text)});
    });
  });
  spate::observe::progress_reporter reporter(
      [] { return std::uint64_t{42}; },
      {.title = "job", .unit = "lines", .total = 0, .period = 5ms, .print = nullptr});
  auto got = first.get_future();
  ASSERT_EQ(got.wait_for(30s), std::future_status::ready);
  reporter.stop();
  const kept_record r = got.get();
  EXPECT_EQ(r.severity, slog::level::info);
  EXPECT_EQ(r.component, "progress");
  EXPECT_EQ(r.text.rfind("job: 42 lines, ", 0), 0u) << r.text;
}

// An actor's unhandled exception is an error record (no error_reporter); a message sent to it
// afterwards is a dead letter, a debug record once debug is enabled.
TEST_F(log_test, actor_failures_and_dead_letters_are_records) {
  recorder seen;
  slog::scoped_sink to_recorder(seen.sink());
  slog::set_min_level(slog::level::debug);
  {
    spate::actor_system system(two_workers());
    auto doomed = system.spawn(
        [](spate::event_based_actor&) {
          return spate::behavior{[](int) -> int { throw std::runtime_error("broken"); }};
        },
        {.name = "doomed", .detached = false, .pin_to_cpu = std::nullopt});
    EXPECT_THROW(spate::request<int>(doomed, 1, 30s).get(), spate::request_error);
    spate::send(doomed, 2);  // the actor has quit in its handler: a dead letter
  }  // shut down: the actor has terminated, and counted the letter either way
  const auto errors = seen.from("runtime");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].severity, slog::level::error);
  EXPECT_NE(errors[0].text.find("actor 'doomed'"), std::string::npos) << errors[0].text;
  EXPECT_NE(errors[0].text.find("broken"), std::string::npos) << errors[0].text;
  const auto letters = seen.from("actor");
  ASSERT_EQ(letters.size(), 1u);
  EXPECT_EQ(letters[0].severity, slog::level::debug);
  EXPECT_EQ(letters[0].text.rfind("dead letter", 0), 0u) << letters[0].text;
  EXPECT_NE(letters[0].text.find("'doomed'"), std::string::npos) << letters[0].text;
}

// Sinks replaced and the level changed while threads log (ThreadSanitizer: label
// concurrency). Every record logged at an enabled level reaches exactly one sink: none lost,
// none twice, and a replaced sink is never called after its state is gone (each holds its
// counter by shared_ptr, as the log holds the sink).
TEST_F(log_test, sinks_replaced_while_threads_log_lose_no_record) {
  constexpr int threads = 4, per_thread = 5000, swaps = 200;
  std::vector<std::shared_ptr<std::atomic<long>>> counters;
  auto counting_sink = [&] {
    auto c = std::make_shared<std::atomic<long>>(0);
    counters.push_back(c);
    return [c](const slog::record& r) {
      if (r.text.empty()) std::abort();  // the view must be readable
      c->fetch_add(1, std::memory_order_relaxed);
    };
  };
  slog::set_sink(counting_sink());
  std::atomic<bool> go{false};
  std::atomic<int> finished{0};
  std::vector<std::thread> loggers;
  for (int t = 0; t < threads; ++t) {
    loggers.emplace_back([&] {
      go.wait(false);
      for (int i = 0; i < per_thread; ++i) slog::write(slog::level::warn, "test", "record");
      finished.fetch_add(1);
    });
  }
  go = true;
  go.notify_all();
  // Swapping goes on until every logger is through, so that swaps overlap the logging.
  for (int s = 0; s < swaps || finished.load() < threads; ++s) {
    slog::set_sink(counting_sink());
    // The level moves too, but never above warn: every record stays enabled.
    slog::set_min_level(s % 2 == 0 ? slog::level::debug : slog::level::warn);
  }
  for (auto& t : loggers) t.join();
  long delivered = 0;
  for (auto& c : counters) delivered += c->load();
  EXPECT_EQ(delivered, long{threads} * per_thread);
}
