// Time-based windows (event time, watermark = newest time - lateness) against a sequential
// reference that applies the same watermark rule: same windows, same contents, same per-key
// order, same late-tuple counts, on out-of-order random streams, for both patterns, both
// function forms and 1 to 4 workers.
#include <spate/flow.hpp>
#include <spate/window.hpp>
#include <spate/window/detail/time_window_keeper.hpp>  // a worker's keeper, tested directly

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <vector>

namespace spate::window {
namespace {

struct reading {
  int sensor;
  std::uint64_t time;  // microseconds
  std::int64_t value;
};

struct content {  // what the non-incremental function returns: the window's values in order
  std::vector<std::int64_t> values;
  friend bool operator==(const content&, const content&) = default;
};
auto values_of = [](const int&, std::span<const reading> w) {
  content c;
  for (const reading& r : w) c.values.push_back(r.value);
  return c;
};
auto total = incremental<std::int64_t>([](std::int64_t& a, const reading& r) { a += r.value; },
                                       [](const int&, const std::int64_t& a) { return a; });
auto sensor_of = [](const reading& r) { return r.sensor; };
auto time_of = [](const reading& r) { return r.time; };

// Times advance by ~10 per tuple with up to `jitter` of disorder.
std::vector<reading> disordered_stream(std::size_t n, int sensors, std::uint64_t jitter,
                                       unsigned seed) {
  std::mt19937 random{seed};
  std::vector<reading> out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t base = 1000 + i * 10;
    const std::uint64_t t = base - jitter + random() % (2 * jitter + 1);
    out.push_back({int(random() % sensors), t, std::int64_t(random() % 100)});
  }
  return out;
}

template <class R>
using per_key = std::map<int, std::vector<window_result<int, R>>>;

// The reference: the emitter's watermark rule, one thread, no farming.
template <class R, class F>
per_key<R> sequential(const std::vector<reading>& in, time_window spec, F f, std::uint64_t& late,
                      std::uint64_t& dropped) {
  per_key<R> out;
  std::map<int, std::map<std::uint64_t, std::vector<reading>>> open;
  std::uint64_t newest = 0, fired = 0;
  late = dropped = 0;
  auto fire = [&](int key, std::uint64_t w, std::vector<reading>& held, bool complete) {
    out[key].push_back({key, w, f(key, std::span<const reading>(held)), complete, held.size()});
  };
  for (const reading& r : in) {
    const std::uint64_t first = spec.first_holding(r.time), last = spec.last_holding(r.time);
    if (first <= last) {
      const std::uint64_t from = std::max(first, fired);
      if (from > first) ++late;
      if (from > last) ++dropped;
      for (std::uint64_t w = from; w <= last; ++w) open[r.sensor][w].push_back(r);
    }
    if (r.time > newest) {
      newest = r.time;
      const std::uint64_t wm = newest > spec.lateness ? newest - spec.lateness : 0;
      if (spec.fired(wm) > fired) {
        fired = spec.fired(wm);
        for (auto& [key, windows] : open)
          while (!windows.empty() && windows.begin()->first < fired) {
            fire(key, windows.begin()->first, windows.begin()->second, true);
            windows.erase(windows.begin());
          }
      }
    }
  }
  for (auto& [key, windows] : open)
    for (auto& [w, held] : windows) fire(key, w, held, false);
  return out;
}

template <class R, class Pattern>
per_key<R> run_parallel(const std::vector<reading>& in, Pattern pattern) {
  per_key<R> out;
  flow::graph job(
      flow::pipeline(flow::from_range(in), std::move(pattern),
                     flow::sink([&](window_result<int, R>& r) { out[r.key].push_back(r); })));
  job.run();
  return out;
}

TEST(time_windows, match_the_sequential_reference_with_late_data) {
  struct shape {
    std::uint64_t length, slide, lateness, jitter;
  };
  const shape shapes[] = {{100, 100, 0, 0},  {100, 100, 50, 40}, {200, 50, 30, 60},
                          {60, 150, 20, 20}, {500, 100, 0, 25},  {80, 20, 200, 100}};
  for (shape sh : shapes) {
    const time_window spec{sh.length, sh.slide, sh.lateness};
    const auto stream = disordered_stream(2500, 6, sh.jitter, unsigned(sh.length + sh.jitter));
    std::uint64_t late = 0, dropped = 0;
    const auto expect_content = sequential<content>(stream, spec, values_of, late, dropped);
    const auto expect_total = sequential<std::int64_t>(
        stream, spec,
        [](const int&, std::span<const reading> w) {
          std::int64_t s = 0;
          for (const reading& r : w) s += r.value;
          return s;
        },
        late, dropped);
    if (sh.jitter > sh.lateness) {
      EXPECT_GT(late, 0u) << "the stream should have late data";
    }
    for (std::size_t workers : {1, 2, 3, 4}) {
      SCOPED_TRACE("length " + std::to_string(sh.length) + " slide " + std::to_string(sh.slide) +
                   " lateness " + std::to_string(sh.lateness) + " workers " +
                   std::to_string(workers));
      auto report = std::make_shared<window_report>();
      EXPECT_EQ(
          run_parallel<content>(stream, window_farming<reading>(spec, sensor_of, time_of, values_of,
                                                                workers, {.report = report})),
          expect_content);
      EXPECT_EQ(report->late_tuples.load(), late);
      EXPECT_EQ(report->dropped_tuples.load(), dropped);
      EXPECT_EQ(run_parallel<content>(stream, key_partitioning<reading>(spec, sensor_of, time_of,
                                                                        values_of, workers)),
                expect_content);
      EXPECT_EQ(run_parallel<std::int64_t>(
                    stream, window_farming<reading>(spec, sensor_of, time_of, total, workers)),
                expect_total);
      EXPECT_EQ(run_parallel<std::int64_t>(
                    stream, key_partitioning<reading>(spec, sensor_of, time_of, total, workers,
                                                      {.memory = tuple_memory::heap})),
                expect_total);
    }
  }
}

TEST(time_windows, a_tuple_later_than_the_allowed_lateness_is_counted_not_lost_silently) {
  // Tumbling windows of 10: the tuple at time 5 arrives after the watermark passed 25.
  std::vector<reading> stream{{1, 1, 1}, {1, 12, 2}, {1, 30, 3}, {1, 5, 4}, {1, 31, 5}};
  auto report = std::make_shared<window_report>();
  const auto out = run_parallel<std::int64_t>(
      stream, key_partitioning<reading>(time_window{10, 10, 5}, sensor_of, time_of, total, 2,
                                        {.report = report}))[1];
  EXPECT_EQ(report->late_tuples.load(), 1u);
  EXPECT_EQ(report->dropped_tuples.load(), 1u);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].value, 1);  // window [0, 10) fired at watermark 25 without the late 4
  EXPECT_EQ(out[1].value, 2);
  EXPECT_EQ(out[2].value, 3 + 5);
  EXPECT_FALSE(out[2].complete);  // [30, 40) was still open when the stream ended
}

// A key whose windows have all fired is forgotten (a stream of ever-new keys — new users,
// sessions ids — must not pile up entries that every watermark walks), and comes back with
// its next tuple.
TEST(time_windows, a_worker_forgets_a_key_once_its_windows_have_fired) {
  auto count = window::incremental<int>([](int& n, const int&) { ++n; },
                                        [](const int&, const int& n) { return n; });
  window::detail::time_window_keeper<int, int, decltype(count)> keeper(
      window::time_window{.length = 10, .slide = 10}, count, 0, 1);
  for (int key = 0; key < 1000; ++key) keeper.add(key, key, 5);
  keeper.add(7, 7, 15);  // key 7 also has window 1 open
  EXPECT_EQ(keeper.kept_keys(), 1000u);
  std::size_t fired = 0;
  keeper.advance(10, [&](const auto& r) { fired += std::size_t(r.value); });
  EXPECT_EQ(fired, 1000u) << "window 0 of every key";
  EXPECT_EQ(keeper.kept_keys(), 1u) << "only key 7, whose window 1 is open";
  keeper.add(3, 3, 12);
  EXPECT_EQ(keeper.kept_keys(), 2u) << "a forgotten key comes back with its next tuple";
  keeper.advance(20, [&](const auto& r) { fired += std::size_t(r.value); });
  EXPECT_EQ(fired, 1002u);
  EXPECT_EQ(keeper.kept_keys(), 0u);
}

TEST(time_windows, zero_length_or_slide_is_refused_by_name) {
  EXPECT_THROW((void)key_partitioning<reading>(time_window{0, 1, 0}, sensor_of, time_of, total, 1),
               std::invalid_argument);
  EXPECT_THROW((void)window_farming<reading>(time_window{5, 0, 0}, sensor_of, time_of, total, 1),
               std::invalid_argument);
}

}  // namespace
}  // namespace spate::window
