// Processing-time windows: a tuple's time is its arrival at the emitter and windows fire on
// the runtime's clock. Which window a tuple lands in depends on timing, so these tests check
// what holds whatever the timing: a window fires with no further input, every tuple is in
// each window that held it exactly once, in arrival order, windows come per key in order and
// complete ones before the incomplete ones that the end of the stream fired.
#include <spate/flow.hpp>
#include <spate/flow/wake_timer.hpp>
#include <spate/window.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

using namespace std::chrono_literals;

namespace spate::window {
namespace {

struct event {
  int key;
  std::uint32_t id;  // per key, in send order
};
using ids = std::vector<std::uint32_t>;
auto key_of_event = [](const event& e) { return e.key; };
auto ids_of = [](const int&, std::span<const event> w) {
  ids out;
  for (const event& e : w) out.push_back(e.id);
  return out;
};

// Sends `per_tick` events round-robin over `keys` every millisecond (its own wake_timer)
// until `total` are sent, then waits until `until()` holds (or 10 s passed) and ends.
template <class Until>
struct paced_source : flow::source<event> {
  paced_source(std::uint32_t total, std::uint32_t per_tick, int keys, Until until)
      : total(total), per_tick(per_tick), keys(keys), until(until) {}
  void on_start() {
    started = std::chrono::steady_clock::now();
    timer.start(*this, 1ms);
  }
  bool has_news() const { return timer.due(); }
  flow::produce_status produce() {
    if (!timer.take()) return flow::produce_status::wait;
    for (std::uint32_t k = 0; k < per_tick && sent < total; ++k, ++sent) {
      const int key = int(sent % std::uint32_t(keys));
      send_next(event{key, next_id[key]++});
    }
    if (sent == total && (until() || std::chrono::steady_clock::now() - started > 10s)) {
      timer.stop();
      return flow::produce_status::ended;
    }
    return flow::produce_status::wait;
  }
  std::uint32_t total, per_tick;
  int keys;
  Until until;
  std::uint32_t sent = 0;
  std::map<int, std::uint32_t> next_id;
  std::chrono::steady_clock::time_point started;
  flow::wake_timer timer;
};

using results = std::map<int, std::vector<window_result<int, ids>>>;

template <class Pattern, class Until>
results run(Pattern pattern, std::uint32_t total, std::uint32_t per_tick, int keys, Until until,
            std::atomic<int>* results_seen = nullptr) {
  results out;
  flow::graph job(
      flow::pipeline(flow::make_stage<paced_source<Until>>(total, per_tick, keys, until),
                     std::move(pattern), flow::sink([&](window_result<int, ids>& r) {
                       out[r.key].push_back(r);
                       if (results_seen) results_seen->fetch_add(1);
                     })));
  job.run();
  return out;
}

TEST(processing_time_windows, a_window_fires_on_the_clock_with_no_further_input) {
  for (bool farming : {false, true}) {
    SCOPED_TRACE(farming ? "window farming" : "key partitioning");
    std::atomic<int> seen{0};
    const processing_time_window spec{20ms, 20ms};
    auto until = [&seen] { return seen.load() > 0; };  // the source waits for a result
    auto out =
        farming
            ? run(window_farming<event>(spec, key_of_event, ids_of, 2), 10, 10, 1, until, &seen)
            : run(key_partitioning<event>(spec, key_of_event, ids_of, 2), 10, 10, 1, until, &seen);
    // Ten events in the first millisecond tick, then nothing: the window holding them fired
    // on the clock, complete, before the source ended the stream.
    ASSERT_EQ(out.size(), 1u);
    ASSERT_FALSE(out[0].empty());
    std::uint64_t tuples = 0;
    for (const auto& r : out[0]) {
      EXPECT_TRUE(r.complete) << "window " << r.window << " fired only at the end of the stream";
      tuples += r.tuples;
    }
    EXPECT_EQ(tuples, 10u);
  }
}

// Per key: windows in increasing order, complete before incomplete, each window's ids a
// contiguous run of the key's arrival order; each id in `windows_per_tuple` consecutive
// windows at most, at least one, and (tumbling) all ids covered in order exactly once.
void check_key(const std::vector<window_result<int, ids>>& windows, std::uint32_t sent,
               std::size_t windows_per_tuple) {
  std::map<std::uint32_t, std::vector<std::uint64_t>> holders;
  bool incomplete_seen = false;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const auto& r = windows[i];
    if (i > 0) {
      EXPECT_LT(windows[i - 1].window, r.window);
    }
    if (!r.complete) incomplete_seen = true;
    EXPECT_FALSE(incomplete_seen && r.complete) << "a complete window after an incomplete one";
    EXPECT_EQ(r.tuples, r.value.size());
    for (std::size_t k = 1; k < r.value.size(); ++k) {
      EXPECT_EQ(r.value[k], r.value[k - 1] + 1) << "window " << r.window << " is not in order";
    }
    for (auto id : r.value) holders[id].push_back(r.window);
  }
  // The input lasts over 100 ms and windows are a few ms long: the clock fired some of them.
  ASSERT_FALSE(windows.empty());
  EXPECT_TRUE(windows.front().complete) << "no window fired before the end of the stream";
  ASSERT_EQ(holders.size(), sent) << "a tuple is in no window";
  for (auto& [id, ws] : holders) {
    EXPECT_LE(ws.size(), windows_per_tuple) << "tuple " << id;
    EXPECT_EQ(ws.back() - ws.front() + 1, ws.size()) << "tuple " << id << "'s windows have a gap";
  }
}

TEST(processing_time_windows, every_tuple_is_in_each_window_that_held_it_once_in_order) {
  constexpr int keys = 4;
  constexpr std::uint32_t total = 6'000, per_tick = 60;  // ~100 ms of input
  auto at_once = [] { return true; };
  const processing_time_window tumbling{5ms, 5ms}, sliding{6ms, 2ms};
  for (std::size_t workers : {1, 2, 3}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    const results tumbling_results[] = {
        run(key_partitioning<event>(tumbling, key_of_event, ids_of, workers), total, per_tick, keys,
            at_once),
        run(window_farming<event>(tumbling, key_of_event, ids_of, workers,
                                  {.memory = tuple_memory::heap}),
            total, per_tick, keys, at_once)};
    for (const auto& out : tumbling_results) {
      ASSERT_EQ(out.size(), std::size_t(keys));
      for (const auto& [key, windows] : out) check_key(windows, total / keys, 1);
    }
    const results sliding_results[] = {
        run(key_partitioning<event>(sliding, key_of_event, ids_of, workers), total, per_tick, keys,
            at_once),
        run(window_farming<event>(sliding, key_of_event, ids_of, workers), total, per_tick, keys,
            at_once)};
    for (const auto& out : sliding_results) {
      ASSERT_EQ(out.size(), std::size_t(keys));
      for (const auto& [key, windows] : out) check_key(windows, total / keys, 3);
    }
  }
}

TEST(processing_time_windows, zero_length_or_slide_is_refused_by_name) {
  EXPECT_THROW(
      (void)key_partitioning<event>(processing_time_window{0ms, 1ms}, key_of_event, ids_of, 1),
      std::invalid_argument);
  EXPECT_THROW(
      (void)window_farming<event>(processing_time_window{5ms, -1ms}, key_of_event, ids_of, 1),
      std::invalid_argument);
}

TEST(wake_timer, refuses_a_zero_period_and_a_node_that_has_not_started) {
  struct idle_node : flow::node<int, int> {
    void consume(int&) {}
  } node;
  flow::wake_timer timer;
  EXPECT_THROW(timer.start(node, 0ms), std::invalid_argument);
  EXPECT_THROW(timer.start(node, 1ms), std::logic_error);
  EXPECT_FALSE(timer.due());
  EXPECT_FALSE(timer.take());
  timer.stop();  // not started: nothing to do
}

}  // namespace
}  // namespace spate::window
