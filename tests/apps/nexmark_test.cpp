// Nexmark (examples/apps/nexmark): the generator against the suite's rules (event mix, ids,
// hot auctions and bidders, sizes, event time, out-of-order groups, determinism), the events
// file (round trip; malformed and truncated lines counted by line), and each query's graph
// against a reference written apart from it, as a plain loop over the same events that
// transcribes the query's SQL, for several replica counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../../examples/apps/common/text_input.hpp"
#include "../../examples/apps/nexmark/generator.hpp"
#include "../../examples/apps/nexmark/queries.hpp"
#include "../../examples/apps/nexmark/windowed_queries.hpp"
#include "../temp_dir.hpp"

namespace flow = spate::flow;
namespace nx = apps::nexmark;

namespace {

const nx::generator& default_generator() {
  static const nx::generator g;
  return g;
}

TEST(nexmark_generator, follows_the_suites_event_mix_ids_and_times) {
  const nx::generator& g = default_generator();
  const auto events = nx::generate(g, 50'000);
  std::int64_t persons = 0, auctions = 0, bids = 0;
  std::int64_t next_person = nx::first_person_id, next_auction = nx::first_auction_id;
  std::int64_t hot_auction_bids = 0, hot_bidder_bids = 0;
  std::size_t bid_bytes = 0;
  for (std::size_t n = 0; n < events.size(); ++n) {
    const nx::event& e = events[n];
    ASSERT_EQ(e.seq, n);
    // 10 million events a second of event time, from the base time: 10,000 a millisecond.
    ASSERT_EQ(e.date_time(), g.config().base_time_ms + std::int64_t(n / 10'000)) << n;
    const std::int64_t rem = std::int64_t(n % 50);
    if (const nx::person* p = e.as_person()) {
      ASSERT_EQ(rem, 0) << n;
      ASSERT_EQ(p->id, next_person++) << "person ids are consecutive";
      ASSERT_EQ(p->state.size(), 2u);
      ASSERT_EQ(p->credit_card.size(), 19u) << p->credit_card;
      ASSERT_NE(p->email_address.find('@'), std::string::npos);
      ++persons;
    } else if (const nx::auction* a = e.as_auction()) {
      ASSERT_TRUE(rem >= 1 && rem <= 3) << n;
      ASSERT_EQ(a->id, next_auction++) << "auction ids are consecutive";
      ASSERT_GE(a->category, 10);
      ASSERT_LE(a->category, 14);
      ASSERT_GT(a->reserve, a->initial_bid);
      ASSERT_LT(a->seller, next_person + 10) << "a seller is a person that exists (or soon will)";
      ++auctions;
    } else {
      const nx::bid& b = *e.as_bid();
      ASSERT_GE(rem, 4) << n;
      ASSERT_GE(b.auction, nx::first_auction_id);
      ASSERT_LT(b.auction, next_auction + 10) << "a bid is for an auction that exists";
      ASSERT_GE(b.bidder, nx::first_person_id);
      ASSERT_LT(b.bidder, next_person + 10) << "a bidder is a person that exists";
      ASSERT_GE(b.price, 100);
      ASSERT_LE(b.price, 100'000'000);
      ASSERT_TRUE(b.url.starts_with("https://www.nexmark.com/")) << b.url;
      // The hot auction is the first of the newest hundred, the hot bidder the second person.
      const std::int64_t last_auction = next_auction - 1 - nx::first_auction_id;
      hot_auction_bids += b.auction == (last_auction / 100) * 100 + nx::first_auction_id;
      const std::int64_t last_person = next_person - 1 - nx::first_person_id;
      hot_bidder_bids += b.bidder == (last_person / 100) * 100 + 1 + nx::first_person_id;
      // 32 bytes of numbers and a padding that brings the average to 100 (54 to 81 bytes).
      ASSERT_GE(b.extra.size(), 54u);
      ASSERT_LE(b.extra.size(), 81u);
      bid_bytes += 32 + b.extra.size();
      ++bids;
    }
  }
  EXPECT_EQ(persons, 1'000);
  EXPECT_EQ(auctions, 3'000);
  EXPECT_EQ(bids, 46'000);
  // Hot ratio 2: half of the bids go to the hot auction (a few more by chance); 4: three in
  // four bidders are the hot one.
  EXPECT_NEAR(double(hot_auction_bids) / double(bids), 0.5, 0.05);
  EXPECT_NEAR(double(hot_bidder_bids) / double(bids), 0.75, 0.05);
  EXPECT_NEAR(double(bid_bytes) / double(bids), 100.0, 3.0);
}

// At 1,000 events a second an auction is open for 1 ms to twice the time the next 1,666
// events take (the suite's numInFlightAuctions × 50 / 3), 3.3 s; hot sellers, hot channels and
// channel ids in urls come in the suite's shares; padding is the suite's ('H' to 'z').
TEST(nexmark_generator, follows_the_suites_auction_spans_sellers_channels_and_padding) {
  const nx::generator g(nx::generator_config{.first_event_rate = 1'000});
  std::int64_t auctions = 0, hot_sellers = 0, span_sum = 0, bids = 0, hot_channel_bids = 0;
  std::int64_t channel_bids = 0, with_id = 0;
  std::set<char> padding;
  for (std::uint64_t n = 0; n < 100'000; ++n) {
    const nx::event e = g.at(n);
    if (const nx::auction* a = e.as_auction()) {
      const std::int64_t span = a->expires - a->date_time;
      ASSERT_GE(span, 1);
      ASSERT_LE(span, 2 * 1'666);
      span_sum += span;
      const std::int64_t last_person = std::int64_t(n / 50);
      hot_sellers += a->seller == (last_person / 100) * 100 + nx::first_person_id;
      ++auctions;
    } else if (const nx::bid* b = e.as_bid()) {
      ++bids;
      const auto& hot = nx::generator::hot_channels;
      if (std::find(hot.begin(), hot.end(), b->channel) != hot.end()) {
        ++hot_channel_bids;
        EXPECT_EQ(b->url.find("channel_id"), std::string::npos) << "hot channels carry no id";
      } else {
        ASSERT_TRUE(b->channel.starts_with("channel-")) << b->channel;
        const std::int64_t i = std::stoll(b->channel.substr(8));
        ++channel_bids;
        if (const auto id = nx::channel_id_in(b->url)) {
          ++with_id;
          EXPECT_EQ(*id, std::to_string(nx::generator::channel_id_of(i))) << b->url;
        }
      }
      padding.insert(b->extra.begin(), b->extra.end());
    }
  }
  EXPECT_NEAR(double(span_sum) / double(auctions), 1'666.0, 120.0);
  EXPECT_NEAR(double(hot_sellers) / double(auctions), 0.75, 0.05);
  EXPECT_NEAR(double(hot_channel_bids) / double(bids), 0.5, 0.03);
  EXPECT_NEAR(double(with_id) / double(channel_bids), 0.9, 0.05);
  // |Integer.reverse(i)|: 1 reverses to INT_MIN, which Math.abs leaves negative
  EXPECT_EQ(nx::generator::channel_id_of(1), std::int64_t(INT32_MIN));
  EXPECT_EQ(nx::generator::channel_id_of(2), std::int64_t(1) << 30);
  EXPECT_EQ(nx::generator::channel_id_of(3), 1'073'741'824);  // |0xC0000000 as int32|
  EXPECT_EQ(*padding.begin(), 'H');
  EXPECT_EQ(*padding.rbegin(), 'z');
}

TEST(nexmark_generator, is_deterministic_per_event_and_seed) {
  const nx::generator a, b;
  const nx::generator other_seed(nx::generator_config{.seed = 7});
  std::size_t differ = 0;
  for (std::uint64_t n : {0ull, 1ull, 4ull, 49ull, 12'345ull, 999'999ull, 50ull}) {
    EXPECT_EQ(nx::to_line(a.at(n)), nx::to_line(b.at(n))) << n;
    differ += nx::to_line(a.at(n)) != nx::to_line(other_seed.at(n));
  }
  EXPECT_GE(differ, 6u) << "another seed makes other events";
}

TEST(nexmark_generator, out_of_order_groups_permute_each_group) {
  const nx::generator g(
      nx::generator_config{.first_event_rate = 1'000, .out_of_order_group_size = 10});
  std::vector<std::int64_t> times;
  for (std::uint64_t n = 0; n < 1000; ++n) times.push_back(g.at(n).date_time());
  std::size_t inversions = 0;
  for (std::size_t i = 0; i < times.size(); i += 10) {
    std::vector<std::int64_t> group(times.begin() + std::ptrdiff_t(i),
                                    times.begin() + std::ptrdiff_t(i + 10));
    for (std::size_t k = 1; k < 10; ++k) inversions += group[k] < group[k - 1];
    std::sort(group.begin(), group.end());
    for (std::size_t k = 0; k < 10; ++k)  // the group holds exactly its own 10 times
      ASSERT_EQ(group[k], g.config().base_time_ms + std::int64_t(i + k)) << i;
  }
  EXPECT_GT(inversions, 50u) << "the groups are out of order";
}

TEST(nexmark_generator, refuses_a_bad_config_naming_the_field) {
  try {
    nx::generator g(nx::generator_config{.bid_proportion = 0});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("proportion"), std::string::npos) << e.what();
  }
  EXPECT_THROW(nx::generator(nx::generator_config{.first_event_rate = 0}), std::invalid_argument);
}

TEST(nexmark_events_file, round_trips_and_counts_malformed_lines_by_number) {
  const auto events = nx::generate(default_generator(), 5'000);
  std::vector<std::string> lines;
  for (const auto& e : events) lines.push_back(nx::to_line(e));
  auto parsed = apps::parse_lines<nx::event>(lines, nx::parse_line);
  ASSERT_EQ(parsed.records.size(), events.size());
  EXPECT_EQ(parsed.malformed, 0u);
  for (std::size_t i = 0; i < events.size(); ++i) ASSERT_EQ(parsed.records[i].data, events[i].data);

  lines.insert(lines.begin() + 10, "B,1001,2001,x,Google,https://a,1,pad");  // bad price
  lines.insert(lines.begin() + 20, "Q,1,2,3");                               // unknown kind
  lines.insert(lines.begin() + 30, "P,1000,Peter Smith,a@b.com");            // fields missing
  lines.push_back(lines[40].substr(0, lines[40].size() / 2));                // truncated last line
  parsed = apps::parse_lines<nx::event>(lines, nx::parse_line);
  EXPECT_EQ(parsed.records.size(), events.size());
  EXPECT_EQ(parsed.malformed, 4u);
  ASSERT_EQ(parsed.malformed_examples.size(), 4u);
  EXPECT_TRUE(parsed.malformed_examples[0].starts_with("line 11: "))
      << parsed.malformed_examples[0];
  EXPECT_TRUE(parsed.malformed_examples[1].starts_with("line 21: "));
  EXPECT_TRUE(parsed.malformed_examples[2].starts_with("line 31: "));

  // A CRLF line holds the same event; a price the queries cannot scale exactly is malformed.
  const auto blank = apps::parse_lines<nx::event>({"\r", ""}, nx::parse_line);
  EXPECT_EQ(blank.malformed, 0u) << "blank lines, LF or CRLF, are not records";
  EXPECT_TRUE(blank.records.empty());
  const auto crlf = nx::parse_line(nx::to_line(events[7]) + "\r");
  ASSERT_TRUE(crlf.has_value());
  EXPECT_EQ(crlf->data, events[7].data);
  EXPECT_FALSE(nx::parse_line("B,1001,2001,1000000000000001,Google,https://a,1,pad"));
  EXPECT_FALSE(nx::parse_line("B,1001,2001,-5,Google,https://a,1,pad"));
  EXPECT_TRUE(nx::parse_line("B,1001,2001,1000000000000000,Google,https://a,1,"));

  nx::event bad;
  nx::bid comma;
  comma.channel = "a,b";
  bad.data = comma;
  try {
    (void)nx::to_line(bad);
    FAIL() << "a comma was written";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bid.channel"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- the queries

template <class Row>
void sort_by_seq(std::vector<Row>& rows) {
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.seq < b.seq; });
}

// The query's graph, fed by the generator, for 1 to 3 replicas: exactly the reference's rows.
template <class Row, class Query>
void expect_graph_matches(Query query, const std::vector<Row>& expected, std::uint64_t count) {
  for (std::size_t replicas : {1u, 2u, 3u}) {
    SCOPED_TRACE(std::to_string(replicas) + " replicas");
    std::vector<Row> got;
    flow::graph job(nx::pipeline(flow::make_stage<nx::generator_source>(default_generator(), count),
                                 query, flow::sink([&](Row& r) { got.push_back(std::move(r)); }),
                                 replicas));
    job.run();
    EXPECT_EQ(got.size(), expected.size());
    sort_by_seq(got);
    EXPECT_TRUE(got == expected) << "the rows differ from the reference";
  }
}

constexpr std::uint64_t query_events = 20'000;

TEST(nexmark_queries, q0_passes_every_bid_through) {
  std::vector<nx::q0_row> expected;
  for (nx::event& e : nx::generate(default_generator(), query_events)) {
    if (const nx::bid* b = e.as_bid())
      expected.push_back({b->auction, b->bidder, b->price, b->date_time, b->extra, e.seq, 0});
  }
  ASSERT_GT(expected.size(), 18'000u);
  expect_graph_matches(nx::q0(), expected, query_events);
}

TEST(nexmark_queries, q1_converts_every_bids_price_to_euros) {
  std::vector<nx::q1_row> expected;
  for (nx::event& e : nx::generate(default_generator(), query_events)) {
    if (const nx::bid* b = e.as_bid()) {
      // 0.908 * price, DECIMAL(23, 3): price (cents) * 908 thousandths
      expected.push_back({b->auction, b->bidder, b->price * 908, b->date_time, b->extra, e.seq, 0});
    }
  }
  expect_graph_matches(nx::q1(), expected, query_events);
}

TEST(nexmark_queries, q2_selects_the_bids_of_every_123rd_auction) {
  std::vector<nx::q2_row> expected;
  std::set<std::int64_t> auctions;
  for (nx::event& e : nx::generate(default_generator(), 200'000)) {
    if (const nx::bid* b = e.as_bid(); b && b->auction % 123 == 0) {
      expected.push_back({b->auction, b->price, e.seq, 0});
      auctions.insert(b->auction);
    }
  }
  ASSERT_GE(auctions.size(), 3u) << "the selection should select something";
  expect_graph_matches(nx::q2(), expected, 200'000);
}

TEST(nexmark_queries, q13_joins_each_bid_with_the_side_input) {
  std::vector<nx::q13_row> expected;
  for (nx::event& e : nx::generate(default_generator(), query_events)) {
    if (const nx::bid* b = e.as_bid()) {
      // side_input.txt holds "i,i" for i in [0, 10000): the value is MOD(auction, 10000)
      expected.push_back({b->auction, b->bidder, b->price, b->date_time,
                          std::to_string(b->auction % 10'000), e.seq, 0});
    }
  }
  expect_graph_matches(nx::q13(), expected, query_events);
  // A negative auction (from a file) matches no key of the side input: no row.
  auto negative = nx::parse_line("B,-5,2001,100,Google,https://a,1,pad");
  ASSERT_TRUE(negative.has_value());
  nx::q13_row row;
  EXPECT_FALSE(nx::q13_of(*negative, row));
}

// q14 over bids at every hour of a day (the generator at 2 events a second from midnight UTC;
// every 10th event, 5 s apart, for 24 hours), so that all three times of day occur.
TEST(nexmark_queries, q14_keeps_mid_priced_bids_with_their_time_of_day_and_cs) {
  const nx::generator day(nx::generator_config{.first_event_rate = 2});
  constexpr std::uint64_t count = 24 * 3'600 / 5;
  std::vector<nx::event> events;
  for (std::uint64_t n = 0; n < count; ++n) {
    nx::event e = day.at(n * 10);
    e.seq = n;
    events.push_back(std::move(e));
  }
  std::vector<nx::q14_row> expected;
  std::set<std::string_view> types;
  for (nx::event& e : events) {
    const nx::bid* b = e.as_bid();
    if (b == nullptr) continue;
    const double euros = 0.908 * double(b->price);
    if (!(euros > 1'000'000 && euros < 50'000'000)) continue;
    const std::time_t seconds = b->date_time / 1000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    const std::string_view type = utc.tm_hour >= 8 && utc.tm_hour <= 18   ? "dayTime"
                                  : utc.tm_hour <= 6 || utc.tm_hour >= 20 ? "nightTime"
                                                                          : "otherTime";
    types.insert(type);
    std::int64_t cs = 0;
    for (char c : b->extra) cs += c == 'c';
    expected.push_back(
        {b->auction, b->bidder, b->price * 908, type, b->date_time, b->extra, cs, e.seq, 0});
  }
  ASSERT_EQ(types.size(), 3u) << "the day should hold every time of day";
  ASSERT_GT(expected.size(), 100u);
  for (std::size_t replicas : {1u, 3u}) {
    std::vector<nx::q14_row> got;
    flow::graph job(nx::pipeline(flow::from_range(events), nx::q14(),
                                 flow::sink([&](nx::q14_row& r) { got.push_back(std::move(r)); }),
                                 replicas));
    job.run();
    sort_by_seq(got);
    EXPECT_TRUE(got == expected) << replicas << " replicas: " << got.size() << " rows vs "
                                 << expected.size();
  }
}

TEST(nexmark_queries, q21_adds_the_channel_id_and_drops_bids_without_one) {
  std::vector<nx::q21_row> expected;
  std::size_t dropped = 0, by_name = 0;
  for (nx::event& e : nx::generate(default_generator(), query_events)) {
    const nx::bid* b = e.as_bid();
    if (b == nullptr) continue;
    std::string lower = b->channel;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    const std::map<std::string, std::string> hot = {
        {"apple", "0"}, {"google", "1"}, {"facebook", "2"}, {"baidu", "3"}};
    std::optional<std::string> id;
    if (auto it = hot.find(lower); it != hot.end()) {
      id = it->second;
      ++by_name;
    } else if (const auto at = b->url.find("&channel_id="); at != std::string::npos) {
      const std::string rest = b->url.substr(at + 12);
      id = rest.substr(0, rest.find('&'));
    }
    if (!id) {
      ++dropped;
      continue;
    }
    expected.push_back({b->auction, b->bidder, b->price, b->channel, *id, e.seq, 0});
  }
  ASSERT_GT(dropped, 0u) << "some channels' urls carry no id";
  ASSERT_GT(by_name, 0u);
  expect_graph_matches(nx::q21(), expected, query_events);
}

TEST(nexmark_queries, q22_splits_the_url_into_its_directories) {
  std::vector<nx::q22_row> expected;
  for (nx::event& e : nx::generate(default_generator(), query_events)) {
    const nx::bid* b = e.as_bid();
    if (b == nullptr) continue;
    std::vector<std::string> parts;  // SPLIT_INDEX(url, '/', i): part i, from 0
    std::string part;
    for (char c : b->url + '/') {
      if (c == '/') {
        parts.push_back(part);
        part.clear();
      } else {
        part += c;
      }
    }
    ASSERT_GE(parts.size(), 6u) << b->url;
    expected.push_back(
        {b->auction, b->bidder, b->price, b->channel, parts[3], parts[4], parts[5], e.seq, 0});
  }
  expect_graph_matches(nx::q22(), expected, query_events);
  EXPECT_EQ(nx::split_index("a/b", '/', 2), std::nullopt) << "no such part: NULL";
  EXPECT_EQ(nx::split_index("a//b", '/', 1), std::string());
  EXPECT_EQ(nx::channel_id_in("channel_id=7&x=1"), "7") << "at the start of the url";
  EXPECT_EQ(nx::channel_id_in("a?xchannel_id=7"), std::nullopt) << "not after '&'";
}

TEST(nexmark_queries, a_graph_fed_from_the_events_file_gives_the_generators_rows) {
  spate::test::temp_dir dir("nexmark");
  const auto path = dir.path / "events.csv";
  {
    std::ofstream out(path);
    for (std::uint64_t n = 0; n < 10'000; ++n)
      out << nx::to_line(default_generator().at(n)) << '\n';
  }
  auto input = apps::parse_file<nx::event>(path.string(), nx::parse_line);
  ASSERT_EQ(input.malformed, 0u);
  ASSERT_EQ(input.records.size(), 10'000u);
  for (std::size_t i = 0; i < input.records.size(); ++i) input.records[i].seq = i;
  std::uint64_t from_file = 0, from_generator = 0;
  flow::graph replayed(nx::pipeline(
      flow::make_stage<apps::replay_source<nx::event>>(
          std::make_shared<const std::vector<nx::event>>(std::move(input.records)), 0, 10'000),
      nx::q0(), flow::sink([&](nx::q0_row& r) { from_file += r.digest(); }), 2));
  replayed.run();
  flow::graph generated(
      nx::pipeline(flow::make_stage<nx::generator_source>(default_generator(), 10'000), nx::q0(),
                   flow::sink([&](nx::q0_row& r) { from_generator += r.digest(); }), 2));
  generated.run();
  EXPECT_EQ(from_file, from_generator);
}

// q11 at 500 events per second of event time, so that 30,000 events span a minute and
// bidders' sessions (10 s gap) break: the reference groups each bidder's bids in time order
// and cuts where two are more than 10 s apart.
TEST(nexmark_queries, q11_counts_each_bidders_bids_per_session) {
  const nx::generator slow(nx::generator_config{.first_event_rate = 500});
  constexpr std::uint64_t events = 30'000;
  std::map<std::int64_t, std::vector<std::int64_t>> times;  // per bidder, in arrival order
  std::vector<nx::event> all;
  for (nx::event& e : nx::generate(slow, events)) {
    if (const nx::bid* b = e.as_bid()) times[b->bidder].push_back(b->date_time);
    all.push_back(e);
  }
  std::vector<nx::q11_row> expected;
  for (auto& [bidder, list] : times) {
    ASSERT_TRUE(std::is_sorted(list.begin(), list.end())) << "the reference assumes time order";
    std::size_t first = 0;
    for (std::size_t i = 1; i <= list.size(); ++i)
      if (i == list.size() || list[i] - list[i - 1] > 10'000) {
        expected.push_back({bidder, std::int64_t(i - first), list[first], list[i - 1] + 10'000, 0});
        first = i;
      }
  }
  ASSERT_GT(expected.size(), times.size() + 100) << "sessions should break";
  const auto by_bidder_and_start = [](std::vector<nx::q11_row>& rows) {
    std::sort(rows.begin(), rows.end(), [](const nx::q11_row& a, const nx::q11_row& b) {
      return std::pair(a.bidder, a.start) < std::pair(b.bidder, b.start);
    });
  };
  by_bidder_and_start(expected);
  auto sequential = nx::q11_sequential(all);
  by_bidder_and_start(sequential);
  EXPECT_TRUE(sequential == expected) << "the benchmark's one-thread loop";
  for (std::size_t workers : {1u, 2u, 3u}) {
    SCOPED_TRACE(std::to_string(workers) + " session workers");
    std::vector<nx::q11_row> got;
    flow::graph job(flow::pipeline(flow::make_stage<nx::generator_source>(slow, events),
                                   nx::q11(workers),
                                   flow::sink([&](nx::q11_row& r) { got.push_back(r); })));
    job.run();
    by_bidder_and_start(got);
    EXPECT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected) << "the rows differ from the reference";
  }
}

}  // namespace
