// The streaming applications (examples/apps) against a sequential run of the same operators
// on the same input: the same outputs (spikes, alerts), none lost or duplicated, for several
// replication degrees, with malformed input lines counted, not dropped silently.
#include <gtest/gtest.h>

#include <type_traits>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../../examples/apps/common/replay_source.hpp"
#include "../../examples/apps/common/text_input.hpp"
#include "../../examples/apps/fraud_detection/fraud_detection.hpp"
#include "../../examples/apps/linear_road/linear_road.hpp"
#include "../../examples/apps/spike_detection/spike_detection.hpp"
#include "../../examples/apps/word_count/word_count.hpp"
#include "../../examples/apps/yahoo/yahoo.hpp"

namespace flow = spate::flow;

namespace {

template <class T>
auto replay(const std::vector<T>& records, double rate, std::uint64_t passes) {
  return flow::make_stage<apps::replay_source<T>>(std::make_shared<const std::vector<T>>(records),
                                                  rate, records.size() * passes);
}

template <class T>
void sort_by_seq(std::vector<T>& v) {
  std::sort(v.begin(), v.end(), [](const T& a, const T& b) { return a.seq < b.seq; });
}

TEST(spike_detection, matches_the_sequential_run_for_every_replication) {
  namespace sd = apps::spike_detection;
  auto lines = sd::generate_lines(40'000, 7);
  lines.insert(lines.begin() + 100, "2004-03-01 00:00:01.5 3 4 22.5");         // 5 fields
  lines.insert(lines.begin() + 200, "2004-03-01 00:00:01.5 3 x7 22.5 1 2 3");  // bad device
  lines.insert(lines.begin() + 300, "2004-03-01 00:00:01.5 3 7 22,5 1 2 3");   // bad number
  const auto input = apps::parse_lines<sd::reading>(lines, sd::parse);
  EXPECT_EQ(input.malformed, 3u);
  EXPECT_EQ(input.records.size(), 40'000u);
  ASSERT_EQ(input.malformed_examples.size(), 3u);
  EXPECT_NE(input.malformed_examples[0].find("line 101"), std::string::npos);

  const auto expected = sd::sequential(input.records, 2 * input.records.size());
  ASSERT_GT(expected.size(), 100u) << "the generator should make spikes";
  for (auto [averages, detectors] : {std::pair{1, 1}, {2, 1}, {3, 2}, {1, 3}}) {
    SCOPED_TRACE(std::to_string(averages) + " averages, " + std::to_string(detectors) +
                 " detectors");
    std::vector<sd::spike> got;
    flow::graph job(sd::pipeline(replay(input.records, 0, 2),
                                 flow::sink([&](sd::spike& s) { got.push_back(s); }),
                                 std::size_t(averages), std::size_t(detectors)));
    job.run();
    sort_by_seq(got);
    EXPECT_EQ(got, expected);
  }
}

TEST(spike_detection, a_source_paced_at_a_rate_loses_nothing) {
  namespace sd = apps::spike_detection;
  const auto input = apps::parse_lines<sd::reading>(sd::generate_lines(3'000, 3), sd::parse);
  std::vector<sd::spike> got;
  apps::latency_record latency;
  flow::graph job(sd::pipeline(replay(input.records, 20'000, 1),  // ~150 ms
                               flow::sink([&](sd::spike& s) {
                                 got.push_back(s);
                                 latency.add(s.stamp_ns);
                               }),
                               2, 1));
  job.run();
  sort_by_seq(got);
  EXPECT_EQ(got, sd::sequential(input.records, input.records.size()));
  EXPECT_EQ(latency.count(), got.size());
}

std::shared_ptr<const apps::fraud_detection::markov_model> model() {
  static auto m = std::make_shared<const apps::fraud_detection::markov_model>(
      apps::fraud_detection::markov_model::load(SPATE_SOURCE_DIR
                                                "/data/fraud-detection/model.txt"));
  return m;
}

TEST(fraud_detection, matches_the_sequential_run_for_every_replication) {
  namespace fd = apps::fraud_detection;
  ASSERT_EQ(model()->states(), 18u);
  auto lines = fd::generate_lines(*model(), 30'000, 11, 300);
  lines.insert(lines.begin() + 10, "CARD000001,TX1,XYZ");  // unknown state
  lines.insert(lines.begin() + 20, "no commas here");
  const auto input = apps::parse_lines<fd::transaction>(lines, fd::parser(*model()));
  EXPECT_EQ(input.malformed, 2u);
  EXPECT_EQ(input.records.size(), 30'000u);

  const auto expected = fd::sequential(input.records, 2 * input.records.size(), model());
  ASSERT_GT(expected.size(), 50u) << "the generator should make alerts";
  for (std::size_t predictors : {1, 2, 3, 5}) {
    SCOPED_TRACE(std::to_string(predictors) + " predictors");
    std::vector<fd::alert> got;
    flow::graph job(fd::pipeline(replay(input.records, 0, 2),
                                 flow::sink([&](fd::alert& a) { got.push_back(a); }), model(),
                                 predictors));
    job.run();
    sort_by_seq(got);
    EXPECT_EQ(got, expected);
  }
}

TEST(yahoo, matches_the_sequential_run_with_complete_and_end_of_stream_windows) {
  namespace ysb = apps::yahoo;
  ysb::parameters p;
  p.events_per_second = 2'000;  // 20,000 events per 10 s window
  auto table = std::make_shared<const ysb::campaign_table>(ysb::campaign_table::generate(p, 5));
  auto lines = ysb::generate_lines(*table, 25'000, 5);
  lines.insert(lines.begin() + 7, R"({"ad_id":"not-an-ad","event_type":"view"})");
  lines.insert(lines.begin() + 8, "{not json");
  lines.insert(lines.begin() + 9,
               R"({"ad_id":")" + table->ad_ids[0] + R"(","event_type":"hover"})");
  const auto input = apps::parse_lines<ysb::event>(lines, ysb::parser(*table));
  EXPECT_EQ(input.malformed, 3u);
  ASSERT_EQ(input.records.size(), 25'000u);

  // 10,000 events. A replica that stalls can fall behind the others by what its rings and
  // output windows hold (~1,000 events per replica path at 64-item rings): well within.
  p.lateness_ms = 5'000;
  const std::uint64_t total = 3 * input.records.size();  // 75,000 events: 3.75 windows
  const auto expected = ysb::sequential(input.records, total, *table, p);
  ASSERT_EQ(expected.size(), 4u * p.campaigns);
  EXPECT_TRUE(expected.front().complete);
  EXPECT_FALSE(expected.back().complete);  // the last window ended with the stream
  for (std::size_t replicas : {1, 2, 3}) {
    SCOPED_TRACE(std::to_string(replicas) + " replicas");
    std::vector<ysb::campaign_count> got;
    auto report = std::make_shared<spate::window::window_report>();
    flow::graph_options small_rings;
    small_rings.links.capacity = 64;  // bounds the reordering (see the lateness above)
    flow::graph job(
        ysb::pipeline(flow::make_stage<apps::replay_source<ysb::event>>(
                          std::make_shared<const std::vector<ysb::event>>(input.records), 0, total),
                      flow::sink([&](ysb::campaign_count& c) { got.push_back(c); }), table,
                      replicas, p, report),
        small_rings);
    job.run();
    EXPECT_EQ(report->late_tuples.load(), 0u);
    sort_by_seq(got);
    EXPECT_EQ(got, expected);
  }
}

TEST(linear_road, tolls_alerts_and_answers_match_the_sequential_run_for_every_replication) {
  namespace lr = apps::linear_road;
  auto lines = lr::generate_lines(60'000, 3);
  lines.insert(lines.begin() + 10, "0,1,2,3");                                   // 4 fields
  lines.insert(lines.begin() + 20, "0,1,2,30,0,1,0,7,5279,-1,-1,-1,-1,-1,-1");   // pos not in seg
  lines.insert(lines.begin() + 30, "9,1,2,30,0,1,0,0,10,-1,-1,-1,-1,-1,-1");     // no such type
  lines.insert(lines.begin() + 40, "2,1,2,-1,-1,-1,-1,-1,-1,5,-1,-1,-1,-1,-1");  // not answered
  const auto input = apps::parse_lines<lr::record>(lines, lr::parse);
  EXPECT_EQ(input.malformed, 3u);
  EXPECT_EQ(input.records.size(), 60'001u);
  auto history =
      std::make_shared<const lr::historical_tolls>(lr::historical_tolls::generate(1000, 4, 3));
  // Two passes: the second restarts every road's minutes (the replay rule).
  const auto expected = lr::sequential(input.records, 2 * input.records.size(), history);
  std::size_t charged = 0, alerts = 0, answers = 0;
  for (const auto& n : expected) {
    charged += n.kind == lr::event_kind::toll && n.value > 0;
    alerts += n.kind == lr::event_kind::accident_alert;
    answers += n.kind == lr::event_kind::expenditure;
  }
  EXPECT_GT(charged, 100u) << "congested segments should be tolled";
  EXPECT_GT(alerts, 10u) << "the generator's accidents should be detected";
  EXPECT_GT(answers, 100u);
  for (std::size_t replicas : {1, 2, 3}) {
    SCOPED_TRACE(std::to_string(replicas) + " replicas");
    std::vector<lr::notification> got;
    flow::graph job(lr::pipeline(replay(input.records, 0, 2),
                                 flow::sink([&](lr::notification& n) { got.push_back(n); }),
                                 history, replicas));
    job.run();
    sort_by_seq(got);
    EXPECT_EQ(got, expected);
  }
}

TEST(linear_road, a_stopped_pair_is_an_accident_and_upstream_vehicles_are_alerted) {
  namespace lr = apps::linear_road;
  std::vector<lr::record> records;
  auto report = [&](std::int32_t time, std::int32_t vid, std::int32_t speed,
                    std::int32_t position) {
    records.push_back(lr::record{0, time, vid, speed, 0, 1, 0, position / lr::feet_per_segment,
                                 position, -1, -1});
  };
  for (std::int32_t k = 0; k < 4; ++k) {  // vehicles 1 and 2 stop at one place in segment 3
    report(30 * k, 1, 0, 3 * lr::feet_per_segment + 100);
    report(30 * k, 2, 0, 3 * lr::feet_per_segment + 100);
  }
  report(120, 3, 60, 1 * lr::feet_per_segment);         // upstream, within 4 segments: alerted
  report(120, 4, 60, 9 * lr::feet_per_segment);         // downstream of the accident: not alerted
  report(150, 1, 40, 3 * lr::feet_per_segment + 2000);  // vehicle 1 moves on: cleared
  report(180, 5, 60, 2 * lr::feet_per_segment);         // no accident any more
  const auto out =
      lr::sequential(records, records.size(), std::make_shared<const lr::historical_tolls>());
  std::vector<std::int32_t> alerted;
  for (const auto& n : out)
    if (n.kind == lr::event_kind::accident_alert) {
      alerted.push_back(n.vid);
      EXPECT_EQ(n.segment, 3);
    }
  EXPECT_EQ(alerted, std::vector<std::int32_t>{3});
}

TEST(word_count, running_counts_match_the_sequential_count_for_every_replication) {
  namespace wc = apps::word_count;
  std::vector<std::string> text;
  std::ifstream book(std::string(SPATE_SOURCE_DIR) + "/data/wordcount/book.dat");
  for (std::string l; std::getline(book, l) && text.size() < 600;) text.push_back(l);
  ASSERT_EQ(text.size(), 600u);
  text.insert(text.begin() + 50, "caf\xC3 broken");                            // truncated sequence
  text.insert(text.begin() + 60, "Caf\xC3\xA9 CAF\xC3\x89 \xCE\xB1\xCE\xB2");  // café café αβ
  const auto input = apps::parse_lines<wc::line>(text, wc::parse);
  EXPECT_EQ(input.malformed, 1u);
  const std::uint64_t total = 3 * input.records.size() + 17;  // a partial last pass
  const auto expected = wc::sequential(input.records, total);
  EXPECT_EQ(expected.at("caf\xC3\xA9"), 2u * 3);  // two per pass, not in the partial one
  for (const auto& [w, n] : wc::sequential(input.records, 5)) EXPECT_GT(n, 0u) << w;  // 5 lines
  const auto run = [&](auto counter_kind, int splitters, int counters) {
    using counter_type = typename decltype(counter_kind)::type;
    wc::running_counts_check check;
    flow::graph job(wc::pipeline<counter_type>(
        flow::make_stage<apps::replay_source<wc::line>>(
            std::make_shared<const std::vector<wc::line>>(input.records), 0, total),
        flow::sink([&](wc::word_count& c) { check.add(c); }), std::size_t(splitters),
        std::size_t(counters)));
    job.run();
    EXPECT_EQ(check.out_of_sequence(), 0u);
    EXPECT_TRUE(check.matches(expected));
  };
  for (auto [splitters, counters] : {std::pair{1, 1}, {2, 1}, {2, 3}, {3, 2}}) {
    SCOPED_TRACE(std::to_string(splitters) + " splitters, " + std::to_string(counters) +
                 " counters");
    run(std::type_identity<wc::counter>{}, splitters, counters);
    SCOPED_TRACE("keyed state");
    run(std::type_identity<wc::keyed_counter>{}, splitters, counters);
  }
}

TEST(word_count, the_running_counts_check_sees_a_lost_or_repeated_count) {
  namespace wc = apps::word_count;
  wc::running_counts_check repeated, lost, fine;
  for (std::uint64_t n : {1, 2, 2, 3}) repeated.add(wc::word_count{"a", n});
  for (std::uint64_t n : {1, 3}) lost.add(wc::word_count{"a", n});
  for (std::uint64_t n : {1, 2, 3}) fine.add(wc::word_count{"a", n});
  const wc::word_counts three{{"a", 3}};
  EXPECT_FALSE(repeated.matches(three));
  EXPECT_FALSE(lost.matches(three));
  EXPECT_TRUE(fine.matches(three));
  EXPECT_FALSE(fine.matches(wc::word_counts{{"a", 3}, {"b", 1}}));
}

TEST(fraud_detection, a_model_with_a_short_row_is_refused_by_name) {
  const std::string path = testing::TempDir() + "/bad_model.txt";
  {
    std::ofstream out(path);
    out << "A,B\n0.5,0.5\n1.0\n";
  }
  try {
    (void)apps::fraud_detection::markov_model::load(path);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("row 2 has 1 values, expected 2"), std::string::npos)
        << e.what();
  }
}

}  // namespace
