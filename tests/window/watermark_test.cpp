// Per-partition watermarks (window::partitioned_time, window/event_time.hpp): the tracker's
// rule (least over the active partitions, never back, expected partitions holding it at 0,
// bad partition numbers refused by value); time windows over partitions that lag behind
// each other against a sequential reference of the same rule, with no tuple late where the
// whole-stream rule makes thousands late; sessions alike; and idleness: a partition that
// falls silent stops holding the watermark back, so windows fire complete mid-stream, while
// without idle_after they wait for it to the end.
#include <spate/flow.hpp>
#include <spate/flow/wake_timer.hpp>
#include <spate/window.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

using namespace std::chrono_literals;

namespace spate::window {
namespace {

struct event {
  std::uint32_t partition;
  int key;
  std::uint64_t time;
  std::int64_t value;
  friend bool operator==(const event&, const event&) = default;
};
auto key_of = [](const event& e) { return e.key; };
auto stamped = [](const event& e) { return partitioned_time{e.partition, e.time}; };
auto plain_time = [](const event& e) { return e.time; };
auto sum =
    incremental<std::int64_t>([](std::int64_t& a, const event& e) { a += e.value; },
                              [](const int&, const std::int64_t& a) { return a; },
                              [](std::int64_t& into, const std::int64_t& from) { into += from; });

TEST(partitioned_watermarks,
     the_least_active_partition_sets_the_watermark_and_it_never_moves_back) {
  detail::partitioned_watermark w(10, pattern_options{.partitions = 2});
  w.start();
  EXPECT_FALSE(w.observe({0, 500}));  // partition 1 is expected and has not sent: held at 0
  EXPECT_EQ(w.watermark(), 0u);
  EXPECT_TRUE(w.observe({1, 100}));
  EXPECT_EQ(w.watermark(), 90u);
  EXPECT_FALSE(w.observe({0, 600}));  // not the least
  EXPECT_TRUE(w.observe({1, 700}));   // partition 0 is the least now
  EXPECT_EQ(w.watermark(), 590u);
  EXPECT_FALSE(w.observe({2, 50}));  // a new partition behind: the watermark stays
  EXPECT_EQ(w.watermark(), 590u);
  EXPECT_FALSE(w.observe({1, 800}));
  EXPECT_FALSE(w.observe({2, 2000}));
  EXPECT_EQ(w.watermark(), 590u + 0u);  // still partition 0's 600 - 10
  const auto copy = w.snapshot();
  detail::partitioned_watermark restored(10, pattern_options{});
  restored.restore(copy);
  restored.start();
  EXPECT_EQ(restored.watermark(), w.watermark());
  EXPECT_TRUE(restored.observe({0, 900}));
  EXPECT_EQ(restored.watermark(), 790u);  // partition 1's 800 - 10
}

TEST(partitioned_watermarks, numbers_skipped_below_a_partition_hold_nothing_back) {
  // Partitions 3 and 5 only (Kafka partitions a consumer was given): slots 0 .. 4 exist, but
  // only partitions that sent, or were named by `partitions`, count.
  detail::partitioned_watermark w(0, pattern_options{});
  w.start();
  EXPECT_TRUE(w.observe({5, 100}));
  EXPECT_EQ(w.watermark(), 100u);
  EXPECT_FALSE(w.observe({3, 50}));  // joins behind: the watermark stays (it never moves back)
  EXPECT_FALSE(w.observe({5, 300}));
  EXPECT_TRUE(w.observe({3, 200}));
  EXPECT_EQ(w.watermark(), 200u);
  detail::partitioned_watermark expected(0, pattern_options{.partitions = 2});
  expected.start();
  EXPECT_FALSE(expected.observe({5, 100}));  // 0 and 1 named: held until they send
  EXPECT_EQ(expected.watermark(), 0u);
}

TEST(partitioned_watermarks, a_partition_number_out_of_range_is_refused_naming_it) {
  detail::partitioned_watermark w(0, pattern_options{});
  w.start();
  try {
    w.observe({max_partitions, 5});
    ADD_FAILURE() << "accepted";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("partition 65536"), std::string::npos) << e.what();
  }
  EXPECT_THROW(detail::partitioned_watermark(0, pattern_options{.partitions = max_partitions + 1}),
               std::invalid_argument);
}

// Three partitions, each disordered by up to `jitter` either way (so a tuple is at most
// 2 * jitter behind its partition's newest); partition p starts `lag * p` behind. Interleaved
// at random.
std::vector<event> lagging_partitions(std::size_t n, std::uint64_t lag, std::uint64_t jitter,
                                      unsigned seed) {
  std::mt19937 random{seed};
  std::vector<event> out;
  std::uint64_t clock[3] = {10'000, 10'000, 10'000};
  for (std::size_t i = 0; i < n; ++i) {
    const auto p = std::uint32_t(random() % 3);
    clock[p] += 1 + random() % 10;
    const std::uint64_t base = clock[p] - lag * p;
    out.push_back({p, int(random() % 5), base - jitter + random() % (2 * jitter + 1),
                   std::int64_t(random() % 100)});
  }
  return out;
}

using per_key = std::map<int, std::vector<window_result<int, std::int64_t>>>;

// The time windows' rule (tests/window/time_window_test.cpp) with the watermark the least
// over the three partitions (expected from the start) of their newest time − lateness.
per_key sequential(const std::vector<event>& in, time_window spec, std::uint64_t& late) {
  per_key out;
  std::map<int, std::map<std::uint64_t, std::pair<std::int64_t, std::uint64_t>>> open;
  std::map<std::uint32_t, std::uint64_t> newest{{0, 0}, {1, 0}, {2, 0}};
  std::uint64_t fired = 0, watermark = 0;
  late = 0;
  for (const event& e : in) {
    const std::uint64_t first = spec.first_holding(e.time), last = spec.last_holding(e.time);
    if (first <= last) {
      const std::uint64_t from = std::max(first, fired);
      if (from > first) ++late;
      for (std::uint64_t w = from; w <= last; ++w) {
        auto& [total, tuples] = open[e.key][w];
        total += e.value;
        ++tuples;
      }
    }
    newest[e.partition] = std::max(newest[e.partition], e.time);
    std::uint64_t least = UINT64_MAX;
    for (auto& [p, t] : newest) least = std::min(least, t);
    watermark = std::max(watermark, least > spec.lateness ? least - spec.lateness : 0);
    if (spec.fired(watermark) > fired) {
      fired = spec.fired(watermark);
      for (auto& [key, windows] : open)
        while (!windows.empty() && windows.begin()->first < fired) {
          const auto& [total, tuples] = windows.begin()->second;
          out[key].push_back({key, windows.begin()->first, total, true, tuples});
          windows.erase(windows.begin());
        }
    }
  }
  for (auto& [key, windows] : open)
    for (auto& [w, v] : windows) out[key].push_back({key, w, v.first, false, v.second});
  return out;
}

template <class Pattern>
std::size_t run_events(const std::vector<event>& in, Pattern pattern) {
  std::size_t n = 0;
  flow::graph job(
      flow::pipeline(flow::from_range(in), std::move(pattern), flow::sink([&](event&) { ++n; })));
  job.run();
  return n;
}

template <class Result, class Pattern>
std::map<int, std::vector<Result>> run(const std::vector<event>& in, Pattern pattern) {
  std::map<int, std::vector<Result>> out;
  flow::graph job(flow::pipeline(flow::from_range(in), std::move(pattern),
                                 flow::sink([&](Result& r) { out[r.key].push_back(r); })));
  job.run();
  return out;
}

TEST(partitioned_watermarks, time_windows_follow_the_slowest_partition_not_the_newest_tuple) {
  const time_window spec{.length = 200, .slide = 50, .lateness = 20};
  const auto stream = lagging_partitions(6000, 400, 10, 3);
  std::uint64_t late = 0;
  const per_key expected = sequential(stream, spec, late);
  EXPECT_EQ(late, 0u) << "each partition is in order within the lateness";
  for (std::size_t workers : {1, 3}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    auto report = std::make_shared<window_report>();
    EXPECT_EQ((run<window_result<int, std::int64_t>>(
                  stream, window_farming<event>(spec, key_of, stamped, sum, workers,
                                                {.report = report, .partitions = 3}))),
              expected);
    EXPECT_EQ(report->late_tuples.load(), 0u);
    EXPECT_EQ((run<window_result<int, std::int64_t>>(
                  stream,
                  key_partitioning<event>(spec, key_of, stamped, sum, workers, {.partitions = 3}))),
              expected);
  }
  // The whole-stream rule on the same input: the lagging partitions' tuples are late.
  auto report = std::make_shared<window_report>();
  (void)run<window_result<int, std::int64_t>>(
      stream, key_partitioning<event>(spec, key_of, plain_time, sum, 2, {.report = report}));
  EXPECT_GT(report->late_tuples.load(), 1000u);
}

TEST(partitioned_watermarks, sessions_follow_the_slowest_partition_too) {
  const auto stream = lagging_partitions(6000, 400, 10, 5);
  auto partitioned = std::make_shared<window_report>();
  auto whole = std::make_shared<window_report>();
  using result = session_result<int, std::int64_t>;
  const auto a = run<result>(
      stream, sessions<event>(session_window{.gap = 30, .lateness = 20}, key_of, stamped, sum, 2,
                              {.report = partitioned, .partitions = 3}));
  (void)run<result>(stream, sessions<event>(session_window{.gap = 30, .lateness = 20}, key_of,
                                            plain_time, sum, 2, {.report = whole}));
  EXPECT_EQ(partitioned->late_tuples.load(), 0u);
  EXPECT_GT(whole->late_tuples.load(), 1000u);
  std::int64_t total = 0, expected_total = 0;
  for (const auto& [key, list] : a)
    for (const result& r : list) total += r.value;
  for (const event& e : stream) expected_total += e.value;
  EXPECT_EQ(total, expected_total) << "every tuple in exactly one session";
}

// Sessions, deduplication and joins leave a late tuple out, but its partition still counts:
// a partition whose first tuples are late holds the watermark back from then on, so its
// later tuples are on time.
TEST(partitioned_watermarks, a_partition_that_starts_late_is_held_for_from_then_on) {
  std::vector<event> stream;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    stream.push_back({0, 0, 1000 + i, 1});
    stream.push_back({1, 1, 600 + i, 1});  // 400 behind, unannounced
  }
  auto report = std::make_shared<window_report>();
  (void)run<session_result<int, std::int64_t>>(
      stream, sessions<event>(session_window{.gap = 30, .lateness = 20}, key_of, stamped, sum, 2,
                              {.report = report}));
  // Late until partition 1 catches up with the watermark the first tuple found (980 − 30).
  EXPECT_GT(report->late_tuples.load(), 300u);
  EXPECT_LT(report->late_tuples.load(), 400u);
}

// Partition 0 sends `early` events at times 0 .. early - 1 and falls silent; partition 1
// sends one event per millisecond (its own timer), times 10 apart, `paced` in all.
struct one_quiet_partition : flow::source<event> {
  one_quiet_partition(int early, int paced) : early(early), paced(paced) {}
  void on_start() { timer.start(*this, 1ms); }
  bool has_news() const { return timer.due(); }
  flow::produce_status produce() {
    for (; early > 0; --early) send_next(event{0, 0, std::uint64_t(10 - early), 1});
    if (!timer.take()) return flow::produce_status::wait;
    send_next(event{1, 1, 100 + 10 * std::uint64_t(sent++), 1});
    if (sent < paced) return flow::produce_status::wait;
    timer.stop();
    return flow::produce_status::ended;
  }
  int early, paced, sent = 0;
  flow::wake_timer timer;
};

// How many windows fired complete, and the tuples of all of them.
std::pair<std::size_t, std::uint64_t> run_quiet(pattern_options options, bool sessions_instead) {
  std::size_t complete = 0;
  std::uint64_t tuples = 0;
  const auto count = [&](const auto& r) {
    complete += r.complete ? 1 : 0;
    tuples += r.tuples;
  };
  if (sessions_instead) {
    flow::graph job(
        flow::pipeline(flow::make_stage<one_quiet_partition>(10, 300),
                       sessions<event>(session_window{.gap = 5}, key_of, stamped, sum, 2, options),
                       flow::sink([&](session_result<int, std::int64_t>& r) { count(r); })));
    job.run();
  } else {
    flow::graph job(
        flow::pipeline(flow::make_stage<one_quiet_partition>(10, 300),
                       key_partitioning<event>(time_window{.length = 100, .slide = 100}, key_of,
                                               stamped, sum, 2, options),
                       flow::sink([&](window_result<int, std::int64_t>& r) { count(r); })));
    job.run();
  }
  return {complete, tuples};
}

TEST(partitioned_watermarks, an_idle_partition_stops_holding_windows_back) {
  for (bool sessions_instead : {false, true}) {
    SCOPED_TRACE(sessions_instead ? "sessions" : "time windows");
    // Partition 0's newest time stays 9: without idleness no window past it fires before
    // the end of the stream.
    const auto waiting = run_quiet({}, sessions_instead);
    EXPECT_EQ(waiting.first, 0u);
    EXPECT_EQ(waiting.second, 310u);
    // Silent for ~300 ms against idle_after 20 ms: partition 1 alone moves time on.
    const auto moving = run_quiet({.idle_after = 20ms}, sessions_instead);
    EXPECT_GT(moving.first, 10u);
    EXPECT_EQ(moving.second, 310u);
  }
}

TEST(partitioned_watermarks, an_expected_partition_that_never_sends_holds_until_idle) {
  // Partitions 0 .. 2 expected; partition 2 never sends.
  const auto held = run_quiet({.partitions = 3}, false);
  EXPECT_EQ(held.first, 0u);
  const auto released = run_quiet({.idle_after = 20ms, .partitions = 3}, false);
  EXPECT_GT(released.first, 10u);
}

// Late tuples to a side output (late_output.hpp): the tuples a pattern leaves out go to the
// function instead, each once, in arrival order, for time windows, sessions, deduplication
// and joins alike; a late output of another tuple type is refused naming both.
TEST(late_output, the_tuples_left_out_go_to_the_function_each_once) {
  // With one watermark the lagging partitions' tuples are late; a partitioned run of the same
  // stream says which tuples the windows did take.
  const auto stream = lagging_partitions(4000, 400, 10, 8);
  std::vector<event> to_side;
  auto report = std::make_shared<window_report>();
  const time_window spec{.length = 100, .slide = 100, .lateness = 20};
  const auto windows = run<window_result<int, std::int64_t>>(
      stream,
      key_partitioning<event>(
          spec, key_of, plain_time, sum, 2,
          {.report = report, .late = late_to<event>([&](event&& e) { to_side.push_back(e); })}));
  EXPECT_GT(to_side.size(), 500u);
  EXPECT_EQ(to_side.size(), report->dropped_tuples.load());
  std::int64_t in_windows = 0, total = 0, aside = 0;
  for (const auto& [key, list] : windows)
    for (const auto& r : list) in_windows += r.value;  // tumbling: each tuple in one window
  for (const event& e : stream) total += e.value;
  for (const event& e : to_side) aside += e.value;
  EXPECT_EQ(in_windows + aside, total) << "every tuple in a window or aside";
  // In arrival order: the tuples aside are a subsequence of the stream.
  std::size_t at = 0;
  for (const event& e : stream)
    if (at < to_side.size() && e == to_side[at]) ++at;
  EXPECT_EQ(at, to_side.size()) << "aside out of arrival order";
  // Sessions (a tuple late for its own interval) and deduplication (behind the watermark):
  // counted and aside alike.
  std::vector<event> session_side;
  auto session_report = std::make_shared<window_report>();
  (void)run<session_result<int, std::int64_t>>(
      stream, sessions<event>(session_window{.gap = 30, .lateness = 20}, key_of, plain_time, sum, 2,
                              {.report = session_report, .late = late_to<event>([&](event&& e) {
                                                           session_side.push_back(e);
                                                         })}));
  EXPECT_EQ(session_side.size(), session_report->late_tuples.load());
  EXPECT_GT(session_side.size(), 500u);
  std::vector<event> dedup_side;
  (void)run_events(
      stream,
      deduplicate<event>(dedup_window{.within = 5, .lateness = 20},
                         [](const event& e) { return e.value; }, plain_time, 2,
                         {.late = late_to<event>([&](event&& e) { dedup_side.push_back(e); })}));
  EXPECT_GT(dedup_side.size(), 500u);
}

TEST(late_output, one_of_another_tuple_type_is_refused_naming_both) {
  try {
    (void)key_partitioning<event>(time_window{.length = 10, .slide = 10}, key_of, plain_time, sum,
                                  1, {.late = late_to<int>([](int&&) {})});
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("takes tuples of type int"), std::string::npos) << what;
    EXPECT_NE(what.find("event"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace spate::window
