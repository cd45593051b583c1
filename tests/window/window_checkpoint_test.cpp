// The window patterns in checkpointed graphs (window/detail/window_checkpoints.hpp): a graph
// stopped right after a checkpoint and started again on the same directory ends with exactly
// the results of a run without failures (each key's windows in order, none lost, none twice),
// for Key Partitioning and Window Farming, count and event-time windows, incremental and not,
// and pane farming. Types without a codec, and processing time, are refused by name.
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../flow/checkpoint_test_support.hpp"

namespace {

using namespace flow_test;  // flow = spate::flow, runtime_with, workers
using checkpoint_test::expect_refused;
namespace window = spate::window;
using spate::test::temp_dir;

// 37 keys; times run ahead one per tuple, shuffled by up to 7 (the time windows allow 8 of
// lateness, so none is late and every run fires the same windows).
struct tick {
  std::uint32_t key;
  std::uint64_t time;
  std::uint32_t value;
  friend bool operator==(const tick&, const tick&) = default;
};
tick tick_of(std::size_t i) {
  return tick{std::uint32_t(i * 7919 % 37), i + (i * 31 % 8), std::uint32_t(i % 1000)};
}
const auto key_of_tick = [](const tick& t) { return t.key; };
const auto time_of_tick = [](const tick& t) { return t.time; };

std::uint64_t sum_of(std::span<const tick> w) {
  std::uint64_t s = 0;
  for (const tick& t : w) s += t.value;
  return s;
}
const auto window_sum = [](const std::uint32_t&, std::span<const tick> w) { return sum_of(w); };
auto incremental_sum() {
  return window::incremental<std::uint64_t>(
      [](std::uint64_t& acc, const tick& t) { acc += t.value; },
      [](const std::uint32_t&, const std::uint64_t& acc) { return acc; });
}

using result = window::window_result<std::uint32_t, std::uint64_t>;
template <class Result = result>
using by_key = std::map<std::uint32_t, std::vector<Result>>;

// Each key's results in arrival order (its own state, checkpointed); handed over at the end.
template <class Result>
struct result_table : flow::node<Result, void> {
  std::shared_ptr<by_key<Result>> out;
  by_key<Result> now;
  explicit result_table(std::shared_ptr<by_key<Result>> o) : out(std::move(o)) {}
  void consume(Result& r) { now[r.key].push_back(std::move(r)); }
  by_key<Result> snapshot_state() const { return now; }
  void restore_state(by_key<Result> k) { now = std::move(k); }
  void on_stop() { *out = now; }
};

constexpr std::size_t ticks = 100'000;

// The ticks, from a checkpointed position. Made to pause halfway, it stops producing there
// (wait, and nothing wakes it) and only checkpoints go on: the run is surely mid-stream when
// it is stopped after its checkpoints, however fast or loaded the machine.
struct tick_source : flow::node<void, tick> {
  std::size_t next = 0;
  std::shared_ptr<std::atomic<bool>> paused;  // null: never pauses
  explicit tick_source(std::shared_ptr<std::atomic<bool>> p) : paused(std::move(p)) {}
  flow::produce_status produce() {
    if (next == ticks) return flow::produce_status::ended;
    if (paused && next == ticks / 2) {
      paused->store(true);
      return flow::produce_status::wait;
    }
    send_next(tick_of(next++));
    return flow::produce_status::more;
  }
  bool has_news() const { return false; }
  std::size_t checkpoint_position() const { return next; }
  void seek(const std::size_t& position) { next = position; }
};

template <class MakeWindows, class Result>
flow::graph window_job(const MakeWindows& make_windows, std::shared_ptr<by_key<Result>> out,
                       std::optional<flow::checkpoint_options> checkpoints,
                       std::shared_ptr<std::atomic<bool>> paused = nullptr) {
  return flow::graph(
      flow::pipeline(flow::make_stage<tick_source>(std::move(paused)), make_windows(),
                     flow::make_stage<result_table<Result>>(std::move(out))),
      flow::graph_options{.links = {.capacity = 64}, .checkpoints = std::move(checkpoints)});
}

// Runs until `count` checkpoints have completed after the source paused halfway, then
// cancels (a crash, as far as the checkpoints can tell): the last one holds the windows open
// at the halfway point. Returns its id, or 0 if the run ended first (it failed).
template <class Result = result, class MakeWindows>
std::uint64_t run_until_checkpoints(spate::runtime& rt, const MakeWindows& make_windows,
                                    const std::filesystem::path& dir, int count) {
  std::promise<std::uint64_t> reached;
  std::atomic<bool> settled{false};
  auto settle = [&](std::uint64_t id) {
    if (!settled.exchange(true)) reached.set_value(id);
  };
  std::atomic<int> completions{0};
  auto paused = std::make_shared<std::atomic<bool>>(false);
  auto g = window_job(make_windows, std::make_shared<by_key<Result>>(),
                      flow::checkpoint_options{.directory = dir,
                                               .interval = std::chrono::milliseconds(1),
                                               .on_complete =
                                                   [&](std::uint64_t id) {
                                                     if (paused->load() && ++completions == count)
                                                       settle(id);
                                                   }},
                      paused);
  g.start(rt, [&](const std::string&) { settle(0); });
  auto outcome = reached.get_future();
  if (outcome.wait_for(std::chrono::seconds(120)) != std::future_status::ready) {
    ADD_FAILURE() << "no checkpoint completed within 120 s of the source's pause";
    g.cancel();
    g.wait();
    return 0;
  }
  const std::uint64_t id = outcome.get();
  g.cancel();
  g.wait();
  return id;
}

// The reference run, then a run stopped after two checkpoints and one started again from the
// second.
template <class Result = result, class MakeWindows>
void expect_exact_after_restart(const MakeWindows& make_windows) {
  spate::runtime rt(runtime_with(workers(2)));
  auto reference = std::make_shared<by_key<Result>>();
  window_job(make_windows, reference, std::nullopt).run(rt);
  ASSERT_EQ(reference->size(), 37u);
  temp_dir dir("window-checkpoints");
  const std::uint64_t id = run_until_checkpoints<Result>(rt, make_windows, dir.path, 2);
  ASSERT_NE(id, 0u) << "the run ended before its second checkpoint";
  auto out = std::make_shared<by_key<Result>>();
  auto second = window_job(make_windows, out, flow::checkpoint_options{.directory = dir.path});
  second.run(rt);
  EXPECT_GE(second.checkpoints().restored_from, id);
  EXPECT_TRUE(*out == *reference);
}

TEST(window_checkpoints, key_partitioning_count_windows_resume_exactly) {
  expect_exact_after_restart([] {
    return window::key_partitioning<tick>(window::sliding(20, 5), key_of_tick, incremental_sum(),
                                          2);
  });
}

TEST(window_checkpoints, window_farming_count_windows_keep_their_tuples_across_a_restart) {
  expect_exact_after_restart([] {
    return window::window_farming<tick>(window::sliding(20, 5), key_of_tick, window_sum, 3);
  });
}

TEST(window_checkpoints, key_partitioning_time_windows_keep_their_tuples_across_a_restart) {
  expect_exact_after_restart([] {
    return window::key_partitioning<tick>(
        window::time_window{.length = 40, .slide = 10, .lateness = 8}, key_of_tick, time_of_tick,
        window_sum, 2);
  });
}

TEST(window_checkpoints, window_farming_time_windows_resume_exactly) {
  expect_exact_after_restart([] {
    return window::window_farming<tick>(
        window::time_window{.length = 40, .slide = 10, .lateness = 8}, key_of_tick, time_of_tick,
        incremental_sum(), 3);
  });
}

TEST(window_checkpoints, pane_farming_resumes_exactly) {
  expect_exact_after_restart([] {
    return window::pane_farming<tick>(
        window::sliding(20, 5), key_of_tick,
        window::panes<std::uint64_t>(
            [](std::uint64_t& acc, const tick& t) { acc += t.value; },
            [](const std::uint64_t& a, const std::uint64_t& b) { return a + b; },
            [](const std::uint32_t&, const std::uint64_t& acc) { return acc; }),
        2);
  });
}

// Sessions: a key has a tuple every 37 ticks, and every 1,000 ticks time jumps by 50, past
// the gap of 45: about 100 sessions per key, the restart falling inside some of them.
TEST(window_checkpoints, sessions_resume_exactly) {
  using session = window::session_result<std::uint32_t, std::uint64_t>;
  const auto jumpy_time = [](const tick& t) { return t.time + 50 * (t.time / 1000); };
  expect_exact_after_restart<session>([&] {
    return window::sessions<tick>(
        window::session_window{.gap = 45, .lateness = 8}, key_of_tick, jumpy_time,
        window::incremental<std::uint64_t>(
            [](std::uint64_t& acc, const tick& t) { acc += t.value; },
            [](const std::uint32_t&, const std::uint64_t& acc) { return acc; },
            [](std::uint64_t& into, const std::uint64_t& from) { into += from; }),
        2);
  });
  expect_exact_after_restart<session>([&] {
    return window::sessions<tick>(window::session_window{.gap = 45, .lateness = 8}, key_of_tick,
                                  jumpy_time, window_sum, 3);
  });
}

// Partitioned time (window/event_time.hpp): the emitter keeps each partition's progress.
TEST(window_checkpoints, time_windows_over_partitioned_time_resume_exactly) {
  expect_exact_after_restart([] {
    return window::key_partitioning<tick>(
        window::time_window{.length = 40, .slide = 10, .lateness = 8}, key_of_tick,
        [](const tick& t) {
          return window::partitioned_time{t.key % 3, t.time};
        },
        window_sum, 2, {.partitions = 3});
  });
}

// Deduplication by key (the result table's order per key is then the worker's): a key
// repeats every 37 ticks, so within 80 two of three ticks are left out; the restart falls
// inside the spans of keys remembered.
TEST(window_checkpoints, deduplication_resumes_exactly) {
  expect_exact_after_restart<tick>([] {
    return window::deduplicate<tick>(window::dedup_window{.within = 80, .lateness = 8}, key_of_tick,
                                     time_of_tick, 2);
  });
}

// A tuple type without a codec: its windows cannot be written down.
struct no_codec {
  std::string text;
  std::uint64_t time;
};

TEST(window_checkpoints, a_tuple_without_a_codec_is_refused_by_name) {
  temp_dir dir("window-checkpoints");
  spate::runtime rt(runtime_with(workers(1)));
  flow::graph g(
      flow::pipeline(
          flow::generate<no_codec>(10,
                                   [](std::size_t i) {
                                     return no_codec{"x", i};
                                   }),
          window::key_partitioning<no_codec>(
              window::tumbling(4), [](const no_codec& t) { return t.text; },
              [](const std::string&, std::span<const no_codec> w) { return w.size(); }, 2),
          flow::sink([](window::window_result<std::string, std::size_t>&) {})),
      flow::graph_options{.checkpoints = flow::checkpoint_options{.directory = dir.path}});
  expect_refused(g, rt, "'window_worker#0' keeps windows of a type without a codec");
}

TEST(window_checkpoints, processing_time_windows_are_refused_by_name) {
  temp_dir dir("window-checkpoints");
  spate::runtime rt(runtime_with(workers(1)));
  flow::graph g(
      flow::pipeline(flow::generate<tick>(10, tick_of),
                     window::key_partitioning<tick>(
                         window::processing_time_window{std::chrono::milliseconds(10),
                                                        std::chrono::milliseconds(10)},
                         key_of_tick, incremental_sum(), 2),
                     flow::sink([](result&) {})),
      flow::graph_options{.checkpoints = flow::checkpoint_options{.directory = dir.path}});
  expect_refused(g, rt, "'kp_emitter' keeps processing-time windows");
}

// A checkpoint of three workers does not fit a graph of two (their parts go by replica name):
// the graph starts afresh rather than hand a window to a worker that does not own it.
TEST(window_checkpoints, a_checkpoint_of_another_worker_count_is_not_restored) {
  spate::runtime rt(runtime_with(workers(2)));
  temp_dir dir("window-checkpoints");
  auto with = [](std::size_t workers) {
    return [workers] {
      return window::window_farming<tick>(window::sliding(20, 5), key_of_tick, window_sum, workers);
    };
  };
  ASSERT_NE(run_until_checkpoints(rt, with(3), dir.path, 1), 0u);
  auto reference = std::make_shared<by_key<>>();
  window_job(with(2), reference, std::nullopt).run(rt);
  auto out = std::make_shared<by_key<>>();
  auto g = window_job(with(2), out, flow::checkpoint_options{.directory = dir.path});
  g.run(rt);
  EXPECT_EQ(g.checkpoints().restored_from, 0u);
  EXPECT_TRUE(*out == *reference);
}

// A checkpoint of other windows (here twice as long) is refused when the graph starts,
// naming the stage and both shapes: restored into the wrong windows, it would fire wrong
// results.
TEST(window_checkpoints, a_checkpoint_of_other_windows_fails_the_start_naming_both) {
  spate::runtime rt(runtime_with(workers(2)));
  temp_dir dir("window-checkpoints");
  auto with = [](std::uint64_t length) {
    return [length] {
      return window::key_partitioning<tick>(window::sliding(length, 5), key_of_tick,
                                            incremental_sum(), 2);
    };
  };
  ASSERT_NE(run_until_checkpoints(rt, with(20), dir.path, 1), 0u);
  auto g = window_job(with(40), std::make_shared<by_key<>>(),
                      flow::checkpoint_options{.directory = dir.path});
  try {
    g.run(rt);
    FAIL() << "restored into other windows";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("window_worker#"), std::string::npos) << what;
    EXPECT_NE(what.find("the checkpoint's windows are length 20, slide 5"), std::string::npos)
        << what;
    EXPECT_NE(what.find("this graph's are length 40, slide 5"), std::string::npos) << what;
  }
}

}  // namespace
