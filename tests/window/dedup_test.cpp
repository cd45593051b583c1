// window::deduplicate against a sequential reference of its rule (the first tuple of an id
// passes, repeats within `within` of it are left out, an id is forgotten once the watermark
// passes its span, tuples behind the watermark are late): the same tuples pass, per id in
// the same order, with the same duplicate and late counts, for 1 to 4 workers, on
// out-of-order streams, with one watermark and per partition; the keeper forgets what it
// should (bounded memory); processing time; misuse refused.
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

using namespace std::chrono_literals;

namespace spate::window {
namespace {

struct request {
  std::uint32_t partition;
  int id;
  std::uint64_t time;
  std::uint32_t seq;  // arrival number, to tell repeats apart
  friend bool operator==(const request&, const request&) = default;
};
auto id_of = [](const request& r) { return r.id; };
auto time_of = [](const request& r) { return r.time; };

// Ids from a pool of 40, repeated at random distances (80 apart in time on average); times
// disordered by up to `jitter`.
std::vector<request> retried_requests(std::size_t n, std::uint64_t jitter, unsigned seed) {
  std::mt19937 random{seed};
  std::vector<request> out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t t = 10'000 + i * 2 - jitter + random() % (2 * jitter + 1);
    out.push_back({std::uint32_t(random() % 2), int(random() % 40), t, std::uint32_t(i)});
  }
  return out;
}

struct reference_run {
  std::map<int, std::vector<request>> passed;  // per id, in arrival order
  std::uint64_t duplicates = 0, late = 0;
};
reference_run sequential(const std::vector<request>& in, dedup_window spec) {
  reference_run run;
  std::map<int, std::vector<std::uint64_t>> kept;  // per id, the times that passed
  std::uint64_t newest = 0;
  for (const request& r : in) {
    const std::uint64_t watermark = newest > spec.lateness ? newest - spec.lateness : 0;
    newest = std::max(newest, r.time);
    if (r.time < watermark) {
      ++run.late;
      continue;
    }
    for (auto& [id, times] : kept)  // forget the spans the watermark passed
      std::erase_if(times, [&](std::uint64_t k) { return k + spec.within < watermark; });
    auto& times = kept[r.id];
    if (std::any_of(times.begin(), times.end(), [&](std::uint64_t k) {
          return (r.time >= k ? r.time - k : k - r.time) <= spec.within;
        })) {
      ++run.duplicates;
      continue;
    }
    times.push_back(r.time);
    run.passed[r.id].push_back(r);
  }
  return run;
}

template <class Pattern>
std::map<int, std::vector<request>> run_parallel(const std::vector<request>& in, Pattern pattern) {
  std::map<int, std::vector<request>> out;
  flow::graph job(flow::pipeline(flow::from_range(in), std::move(pattern),
                                 flow::sink([&](request& r) { out[r.id].push_back(r); })));
  job.run();
  return out;
}

TEST(deduplicate, passes_exactly_the_tuples_of_the_sequential_reference) {
  struct shape {
    std::uint64_t within, lateness, jitter;
  };
  // The last shape's lateness exceeds its span: a tuple may pass more than `within` before
  // one that passed, and both spans then hold.
  for (shape sh : {shape{100, 0, 0}, shape{100, 20, 15}, shape{400, 10, 30}, shape{50, 5, 40},
                   shape{30, 200, 150}}) {
    const dedup_window spec{.within = sh.within, .lateness = sh.lateness};
    const auto stream = retried_requests(20'000, sh.jitter, unsigned(sh.within + sh.jitter));
    const reference_run expected = sequential(stream, spec);
    EXPECT_GT(expected.duplicates, 500u);
    if (sh.jitter > sh.lateness) {
      EXPECT_GT(expected.late, 0u);
    }
    for (std::size_t workers : {1, 2, 4}) {
      SCOPED_TRACE("within " + std::to_string(sh.within) + " lateness " +
                   std::to_string(sh.lateness) + " jitter " + std::to_string(sh.jitter) +
                   " workers " + std::to_string(workers));
      auto report = std::make_shared<window_report>();
      EXPECT_EQ(run_parallel(stream, deduplicate<request>(spec, id_of, time_of, workers,
                                                          {.report = report})),
                expected.passed);
      EXPECT_EQ(report->duplicate_tuples.load(), expected.duplicates);
      EXPECT_EQ(report->late_tuples.load(), expected.late);
      EXPECT_EQ(report->dropped_tuples.load(), expected.late);
    }
  }
}

TEST(deduplicate, follows_per_partition_watermarks) {
  // Partition 1 runs 500 behind partition 0: with one watermark its tuples are late; with a
  // watermark per partition none is.
  auto stream = retried_requests(10'000, 5, 3);
  for (request& r : stream)
    if (r.partition == 1) r.time -= 500;
  auto whole = std::make_shared<window_report>();
  auto partitioned = std::make_shared<window_report>();
  (void)run_parallel(stream, deduplicate<request>(dedup_window{.within = 100, .lateness = 10},
                                                  id_of, time_of, 2, {.report = whole}));
  const auto out =
      run_parallel(stream, deduplicate<request>(dedup_window{.within = 100, .lateness = 10}, id_of,
                                                [](const request& r) {
                                                  return partitioned_time{r.partition, r.time};
                                                },
                                                2, {.report = partitioned, .partitions = 2}));
  EXPECT_GT(whole->late_tuples.load(), 1000u);
  EXPECT_EQ(partitioned->late_tuples.load(), 0u);
  std::size_t passed = 0;
  for (const auto& [id, list] : out) passed += list.size();
  EXPECT_EQ(passed + partitioned->duplicate_tuples.load(), stream.size());
}

TEST(deduplicate, the_keeper_forgets_each_id_once_the_watermark_passes_its_span) {
  detail::dedup_keeper<int> k(100, 0);
  for (int id = 0; id < 1000; ++id) EXPECT_TRUE(k.admit(id, std::uint64_t(id)));
  EXPECT_FALSE(k.admit(5, 105));  // within 100 of 5
  EXPECT_TRUE(k.admit(5, 106));   // 101 after: passes, remembered at 106
  EXPECT_EQ(k.remembered(), 1000u);
  k.advance(600);  // forgets ids 0 .. 499, whose spans end before 600 (5's, from 106, too)
  EXPECT_EQ(k.remembered(), 500u);
  k.advance(2000);
  EXPECT_EQ(k.remembered(), 0u);
  const auto copy = [&] {
    detail::dedup_keeper<int> a(100, 0);
    a.admit(7, 50);
    return a.snapshot();
  }();
  detail::dedup_keeper<int> restored(100, 0);
  restored.restore(copy, [](int) { return true; });
  EXPECT_FALSE(restored.admit(7, 140));
  detail::dedup_keeper<int> other(99, 0);
  EXPECT_THROW(other.restore(copy, [](int) { return true; }), std::runtime_error);
}

TEST(deduplicate, processing_time_leaves_out_repeats_arriving_within_the_span) {
  std::vector<request> stream;
  for (std::uint32_t i = 0; i < 3000; ++i) stream.push_back({0, int(i % 10), 0, i});
  auto report = std::make_shared<window_report>();
  const auto out =
      run_parallel(stream, deduplicate<request>(processing_time_dedup_window{.within = 10s}, id_of,
                                                2, {.report = report}));
  ASSERT_EQ(out.size(), 10u);  // the whole stream arrives well within 10 s
  for (const auto& [id, list] : out) {
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0].seq, std::uint32_t(id));  // the first of each id
  }
  EXPECT_EQ(report->duplicate_tuples.load(), 2990u);
}

TEST(deduplicate, a_zero_span_or_no_worker_is_refused_by_name) {
  EXPECT_THROW((void)deduplicate<request>(dedup_window{}, id_of, time_of, 1),
               std::invalid_argument);
  EXPECT_THROW((void)deduplicate<request>(processing_time_dedup_window{}, id_of, 1),
               std::invalid_argument);
  EXPECT_THROW((void)deduplicate<request>(dedup_window{.within = 1}, id_of, time_of, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace spate::window
