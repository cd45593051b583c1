// Session windows (window::sessions) against a sequential reference written apart from the
// keeper: same sessions, same contents in arrival order, same per-key order, same late
// counts, on out-of-order random streams where tuples bridge and merge sessions, for both
// function forms and 1 to 4 workers; a hand-made merge; late tuples counted; a keeper's
// checkpoint copy restored mid-stream; processing-time sessions firing on the clock alone.
#include <spate/flow.hpp>
#include <spate/flow/wake_timer.hpp>
#include <spate/window.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

using namespace std::chrono_literals;

namespace spate::window {
namespace {

struct click {
  int user;
  std::uint64_t time;
  std::int64_t value;
};
using values = std::vector<std::int64_t>;
auto values_of = [](const int&, std::span<const click> s) {
  values out;
  for (const click& c : s) out.push_back(c.value);
  return out;
};
auto total =
    incremental<std::int64_t>([](std::int64_t& a, const click& c) { a += c.value; },
                              [](const int&, const std::int64_t& a) { return a; },
                              [](std::int64_t& into, const std::int64_t& from) { into += from; });
auto user_of = [](const click& c) { return c.user; };
auto time_of = [](const click& c) { return c.time; };

template <class R>
using per_key = std::map<int, std::vector<session_result<int, R>>>;

std::ostream& operator<<(std::ostream& out, const values& v) {
  out << '[';
  for (std::int64_t x : v) out << x << ' ';
  return out << ']';
}
template <class R>
std::ostream& operator<<(std::ostream& out, const session_result<int, R>& r) {
  return out << "{key " << r.key << " [" << r.start << ", " << r.end << "] " << r.value
             << (r.complete ? " complete " : " incomplete ") << r.tuples << " tuples}";
}
// Where two runs' results first differ, or "" when they do not.
template <class R>
std::string first_difference(const per_key<R>& got, const per_key<R>& expected) {
  std::ostringstream out;
  if (got.size() != expected.size()) out << got.size() << " keys, expected " << expected.size();
  for (const auto& [key, list] : expected) {
    const auto it = got.find(key);
    if (it == got.end()) return out.str() + " key " + std::to_string(key) + " missing";
    for (std::size_t i = 0; i < std::max(list.size(), it->second.size()); ++i) {
      if (i < list.size() && i < it->second.size() && list[i] == it->second[i]) continue;
      out << " key " << key << " result " << i << ": ";
      if (i < it->second.size()) out << "got " << it->second[i];
      if (i < list.size()) out << " expected " << list[i];
      return out.str();
    }
  }
  return out.str();
}

// Bursts of clicks per user with pauses longer and shorter than the gap, times disordered by
// up to `jitter`.
std::vector<click> bursty_stream(std::size_t n, int users, std::uint64_t jitter, unsigned seed) {
  std::mt19937 random{seed};
  std::vector<click> out;
  std::uint64_t time = 1000;
  for (std::size_t i = 0; i < n; ++i) {
    time += random() % 8 == 0 ? 40 + random() % 80 : random() % 6;  // now and then a pause
    const std::uint64_t t = time - std::min(time, jitter) + random() % (2 * jitter + 1);
    out.push_back({int(random() % users), t, std::int64_t(random() % 100)});
  }
  return out;
}

// The reference: one thread, the emitter's lateness rule, sessions as plain lists.
struct reference_session {
  std::uint64_t start, end;
  std::vector<std::int64_t> values;  // in arrival order
};
struct reference_run {
  per_key<values> out;
  std::uint64_t late = 0, merges = 0;
};
reference_run sequential(const std::vector<click>& in, session_window spec) {
  reference_run run;
  std::map<int, std::vector<reference_session>> open;  // per key, by start
  std::uint64_t newest = 0, next_arrival = 0;
  std::map<int, std::vector<std::vector<std::uint64_t>>> order;  // arrival numbers per session
  auto fire = [&](int key, const reference_session& s, bool complete) {
    run.out[key].push_back({key, s.start, s.end, s.values, complete, s.values.size()});
  };
  for (const click& c : in) {
    const std::uint64_t watermark = newest > spec.lateness ? newest - spec.lateness : 0;
    if (c.time + spec.gap < watermark) {
      ++run.late;
      continue;
    }
    for (auto& [key, sessions] : open) {
      auto& numbers = order[key];
      while (!sessions.empty() && sessions.front().end < watermark) {
        fire(key, sessions.front(), true);
        sessions.erase(sessions.begin());
        numbers.erase(numbers.begin());
      }
    }
    auto& sessions = open[c.user];
    auto& numbers = order[c.user];
    reference_session joined{c.time, c.time + spec.gap, {c.value}};
    std::vector<std::pair<std::uint64_t, std::int64_t>> members{{next_arrival++, c.value}};
    std::size_t touched = 0;
    for (std::size_t i = 0; i < sessions.size();) {
      const reference_session& s = sessions[i];
      if (s.start <= c.time + spec.gap && c.time <= s.end) {
        joined.start = std::min(joined.start, s.start);
        joined.end = std::max(joined.end, s.end);
        for (std::size_t k = 0; k < s.values.size(); ++k)
          members.emplace_back(numbers[i][k], s.values[k]);
        sessions.erase(sessions.begin() + std::ptrdiff_t(i));
        numbers.erase(numbers.begin() + std::ptrdiff_t(i));
        ++touched;
      } else {
        ++i;
      }
    }
    if (touched > 1) run.merges += touched - 1;
    std::sort(members.begin(), members.end());
    joined.values.clear();
    std::vector<std::uint64_t> member_numbers;
    for (auto& [number, value] : members) {
      joined.values.push_back(value);
      member_numbers.push_back(number);
    }
    const auto at = std::find_if(sessions.begin(), sessions.end(), [&](const reference_session& s) {
      return s.start > joined.start;
    });
    numbers.insert(numbers.begin() + (at - sessions.begin()), member_numbers);
    sessions.insert(at, joined);
    newest = std::max(newest, c.time);
  }
  const std::uint64_t watermark = newest > spec.lateness ? newest - spec.lateness : 0;
  for (auto& [key, sessions] : open)
    for (const reference_session& s : sessions) fire(key, s, s.end < watermark);
  return run;
}

per_key<std::int64_t> totals(const per_key<values>& v) {
  per_key<std::int64_t> out;
  for (const auto& [key, list] : v)
    for (const auto& s : list) {
      std::int64_t sum = 0;
      for (std::int64_t x : s.value) sum += x;
      out[key].push_back({key, s.start, s.end, sum, s.complete, s.tuples});
    }
  return out;
}

template <class R, class Pattern>
per_key<R> run_parallel(const std::vector<click>& in, Pattern pattern) {
  per_key<R> out;
  flow::graph job(
      flow::pipeline(flow::from_range(in), std::move(pattern),
                     flow::sink([&](session_result<int, R>& r) { out[r.key].push_back(r); })));
  job.run();
  return out;
}

TEST(session_windows, match_the_sequential_reference_with_merges_and_late_data) {
  struct shape {
    std::uint64_t gap, lateness, jitter;
  };
  const shape shapes[] = {{20, 0, 0}, {20, 30, 25}, {50, 10, 40}, {10, 100, 60}, {200, 5, 10}};
  std::uint64_t merges = 0;
  for (shape sh : shapes) {
    const session_window spec{.gap = sh.gap, .lateness = sh.lateness};
    const auto stream = bursty_stream(3000, 5, sh.jitter, unsigned(sh.gap * 7 + sh.jitter));
    const reference_run expect = sequential(stream, spec);
    merges += expect.merges;
    if (sh.jitter > sh.lateness + sh.gap) {
      EXPECT_GT(expect.late, 0u) << "the stream should have late data";
    }
    const auto expect_total = totals(expect.out);
    for (std::size_t workers : {1, 2, 3, 4}) {
      SCOPED_TRACE("gap " + std::to_string(sh.gap) + " lateness " + std::to_string(sh.lateness) +
                   " jitter " + std::to_string(sh.jitter) + " workers " + std::to_string(workers));
      auto report = std::make_shared<window_report>();
      EXPECT_EQ(first_difference(
                    run_parallel<values>(stream, sessions<click>(spec, user_of, time_of, values_of,
                                                                 workers, {.report = report})),
                    expect.out),
                "");
      EXPECT_EQ(report->late_tuples.load(), expect.late);
      EXPECT_EQ(report->dropped_tuples.load(), expect.late);
      EXPECT_EQ(
          first_difference(run_parallel<std::int64_t>(
                               stream, sessions<click>(spec, user_of, time_of, total, workers)),
                           expect_total),
          "");
    }
  }
  EXPECT_GT(merges, 100u) << "the streams should bridge sessions";
}

TEST(session_windows, a_tuple_that_bridges_two_sessions_merges_them_in_arrival_order) {
  // Gap 50: 0 and 100 are two sessions until 50 arrives, which touches both ([0, 50] and
  // [100, 150]); 300 is a session of its own. Lateness 200 keeps 50 on time.
  const std::vector<click> stream{{7, 0, 1}, {7, 100, 2}, {7, 50, 3}, {7, 300, 4}, {8, 60, 5}};
  const auto out = run_parallel<values>(
      stream,
      sessions<click>(session_window{.gap = 50, .lateness = 200}, user_of, time_of, values_of, 2));
  ASSERT_EQ(out.at(7).size(), 2u);
  EXPECT_EQ(out.at(7)[0], (session_result<int, values>{7, 0, 150, {1, 2, 3}, false, 3}));
  EXPECT_EQ(out.at(7)[1], (session_result<int, values>{7, 300, 350, {4}, false, 1}));
  ASSERT_EQ(out.at(8).size(), 1u);
  EXPECT_EQ(out.at(8)[0].value, values{5});
}

TEST(session_windows, a_late_tuple_is_counted_and_left_out_and_fired_sessions_are_complete) {
  // Gap 10, lateness 0: after 40 the watermark is 40, so the tuple at 5 (its interval ends at
  // 15) is late; the session [0, 20] fired complete before 40 was added.
  const std::vector<click> stream{{1, 0, 1}, {1, 10, 2}, {1, 40, 3}, {1, 5, 4}, {1, 45, 5}};
  auto report = std::make_shared<window_report>();
  const auto out = run_parallel<std::int64_t>(
      stream,
      sessions<click>(session_window{.gap = 10}, user_of, time_of, total, 1, {.report = report}));
  EXPECT_EQ(report->late_tuples.load(), 1u);
  EXPECT_EQ(report->dropped_tuples.load(), 1u);
  ASSERT_EQ(out.at(1).size(), 2u);
  EXPECT_EQ(out.at(1)[0], (session_result<int, std::int64_t>{1, 0, 20, 3, true, 2}));
  EXPECT_EQ(out.at(1)[1], (session_result<int, std::int64_t>{1, 40, 55, 8, false, 2}));
}

TEST(session_windows, a_keeper_restored_from_its_checkpoint_copy_carries_on_alike) {
  using keeper = detail::session_keeper<int, click, decltype(values_of)>;
  static_assert(keeper::checkpointable);
  const session_window spec{.gap = 30, .lateness = 50};
  const auto stream = bursty_stream(2000, 3, 30, 11);
  std::vector<session_result<int, values>> whole, resumed;
  auto emit_to = [](auto& out) { return [&out](auto&& r) { out.push_back(std::move(r)); }; };
  const auto feed = [&](keeper& k, std::size_t from, std::size_t to, auto& out) {
    for (std::size_t i = from; i < to; ++i) {
      k.advance(stream[i].time > 100 ? stream[i].time - 100 : 0, emit_to(out));
      k.add(stream[i].user, stream[i], stream[i].time);
    }
  };
  keeper a(spec, values_of);
  feed(a, 0, 2000, whole);
  a.flush(emit_to(whole));

  keeper b(spec, values_of);
  feed(b, 0, 1100, resumed);
  const auto copy = b.snapshot();
  keeper c(spec, values_of);
  c.restore(copy, [](int) { return true; });
  feed(c, 1100, 2000, resumed);
  c.flush(emit_to(resumed));
  EXPECT_EQ(resumed, whole);

  keeper other_gap(session_window{.gap = 31, .lateness = 50}, values_of);
  EXPECT_THROW(other_gap.restore(copy, [](int) { return true; }), std::runtime_error);
  keeper elsewhere(spec, values_of);
  EXPECT_THROW(elsewhere.restore(copy, [](int) { return false; }), std::runtime_error);
}

TEST(session_windows, a_worker_schedules_about_one_entry_per_session_not_per_tuple) {
  using keeper = detail::session_keeper<int, click, decltype(total)>;
  keeper k(session_window{.gap = 10}, total);
  std::vector<session_result<int, std::int64_t>> fired;
  const auto emit = [&](auto&& r) { fired.push_back(r); };
  for (std::uint64_t t = 0; t < 10'000; ++t) {  // two keys, one long session each
    k.advance(t, emit);
    k.add(int(t % 2), click{int(t % 2), t, 1}, t);
  }
  EXPECT_TRUE(fired.empty());
  EXPECT_EQ(k.scheduled(), 2u);
  k.advance(20'000, emit);  // their entries come up early, are pushed again, then fire
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].tuples + fired[1].tuples, 10'000u);
  EXPECT_EQ(k.scheduled(), 0u);
}

TEST(session_windows, zero_gap_is_refused_by_name) {
  EXPECT_THROW((void)sessions<click>(session_window{.gap = 0}, user_of, time_of, total, 1),
               std::invalid_argument);
  EXPECT_THROW((void)sessions<click>(processing_time_session_window{}, user_of, total, 1),
               std::invalid_argument);
  EXPECT_THROW((void)sessions<click>(session_window{.gap = 1}, user_of, time_of, total, 0),
               std::invalid_argument);
}

// Processing time: sends one click per user, then waits (on its own 1 ms timer) until every
// user's session has fired — which only the emitter's clock can do, as no input arrives —
// then a second click per user, and ends.
struct two_visits : flow::source<click> {
  two_visits(int users, const std::atomic<int>* fired) : users(users), fired(fired) {}
  void on_start() { timer.start(*this, 1ms); }
  bool has_news() const { return timer.due(); }
  flow::produce_status produce() {
    if (!timer.take()) return flow::produce_status::wait;
    if (visit == 0 || (visit == 1 && fired->load() == users)) {
      for (int u = 0; u < users; ++u) send_next(click{u, 0, std::int64_t(visit + 1)});
      ++visit;
    }
    if (visit < 2) return flow::produce_status::wait;
    timer.stop();
    return flow::produce_status::ended;
  }
  int users;
  const std::atomic<int>* fired;
  int visit = 0;
  flow::wake_timer timer;
};

TEST(session_windows, processing_time_sessions_fire_on_the_clock_without_input) {
  constexpr int users = 5;
  std::atomic<int> fired{0};
  per_key<std::int64_t> out;
  flow::graph job(flow::pipeline(
      flow::make_stage<two_visits>(users, &fired),
      sessions<click>(processing_time_session_window{.gap = 20ms}, user_of, total, 2),
      flow::sink([&](session_result<int, std::int64_t>& r) {
        out[r.key].push_back(r);
        fired.fetch_add(1);
      })));
  job.run();
  ASSERT_EQ(out.size(), std::size_t(users));
  for (const auto& [user, list] : out) {
    ASSERT_EQ(list.size(), 2u) << "user " << user;
    EXPECT_EQ(list[0].value, 1);
    EXPECT_TRUE(list[0].complete) << "the first session fired on the clock";
    EXPECT_EQ(list[0].end - list[0].start, std::uint64_t(std::chrono::nanoseconds(20ms).count()));
    EXPECT_EQ(list[1].value, 2);
    EXPECT_GT(list[1].start, list[0].end);
  }
}

}  // namespace
}  // namespace spate::window
