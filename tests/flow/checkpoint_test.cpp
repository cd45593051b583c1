// Aligned checkpoints of a flow graph (flow/checkpoints.hpp): barriers from the source, a
// by_key farm whose replicas keep keyed state, a sink with state of its own fed by both
// replicas (so it aligns two inputs, one of them slow). A run stopped after a checkpoint
// and started again from it ends with the same state as a run that was never stopped:
// nothing counted twice, nothing lost.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>

#include <algorithm>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "checkpoint_test_support.hpp"
#include "flow_test_support.hpp"
#include "spate/log/log.hpp"
#include "spate/state/keyed.hpp"
#include "spate/window.hpp"

using namespace flow_test;
using namespace checkpoint_test;

TEST(checkpoints, a_graph_takes_them_while_it_runs_and_its_output_is_unchanged) {
  temp_dir dir;
  spate::runtime rt(runtime_with(workers(2)));
  auto out = std::make_shared<highest_count::kept>();
  const std::size_t n = 300'000;
  auto g = counting_job(
      n, out,
      flow::checkpoint_options{.directory = dir.path, .interval = std::chrono::milliseconds(5)});
  g.run(rt);
  EXPECT_EQ(*out, expected(n));
  const auto stats = g.checkpoints();
  EXPECT_GE(stats.completed, 1u);
  EXPECT_EQ(stats.failed, 0u);
  EXPECT_EQ(stats.restored_from, 0u);
}

// Stopped (cancelled) right after a checkpoint, then started again on the same directory:
// the second run resumes from that checkpoint and ends with the exact counts. Three rounds:
// where the barrier meets the slow replica differs from one to the next.
TEST(checkpoints, a_restarted_graph_resumes_from_the_last_checkpoint_exactly) {
  spate::runtime rt(runtime_with(workers(2)));
  const std::size_t n = 400'000;
  for (int round = 0; round < 3; ++round) {
    temp_dir dir;
    const std::uint64_t id = run_until_checkpoints(rt, dir.path, n, 2);
    auto out = std::make_shared<highest_count::kept>();
    auto second = counting_job(n, out, flow::checkpoint_options{.directory = dir.path});
    second.run(rt);
    EXPECT_GE(second.checkpoints().restored_from, id);
    EXPECT_EQ(*out, expected(n)) << "round " << round;
  }
}

// Keyed state moves by key group: a checkpoint of two replicas restores onto three (and
// one), each replica taking the key groups it now owns, and the counts come out exact.
TEST(checkpoints, keyed_state_restores_onto_another_replica_count) {
  spate::runtime rt(runtime_with(workers(2)));
  const std::size_t n = 400'000;
  for (std::size_t replicas : {3, 1}) {
    temp_dir dir;
    const std::uint64_t id = run_until_checkpoints(rt, dir.path, n, 2);
    auto out = std::make_shared<highest_count::kept>();
    auto second = counting_job(n, out, flow::checkpoint_options{.directory = dir.path}, replicas);
    second.run(rt);
    EXPECT_GE(second.checkpoints().restored_from, id) << replicas << " replicas";
    EXPECT_EQ(*out, expected(n)) << replicas << " replicas";
  }
}

// Two farms with keyed state under one name would share their parts: refused at start.
TEST(checkpoints, two_keyed_farms_under_one_name_are_refused) {
  temp_dir dir;
  spate::runtime rt(runtime_with(workers(1)));
  auto out = std::make_shared<highest_count::kept>();
  auto by_value = flow::by_key{[](const int& k) { return k; }};
  struct pass_count : flow::node<count_update, int> {
    void consume(count_update& u) { send_next(int(u.first)); }
  };
  flow::graph g(
      flow::pipeline(flow::generate<int>(10, [](std::size_t i) { return int(i); }),
                     flow::farm(counter{}, 2, by_value), pass_count{},
                     flow::farm(counter{}, 2, by_value), flow::make_stage<highest_count>(out)),
      flow::graph_options{.checkpoints = flow::checkpoint_options{.directory = dir.path}});
  expect_refused(g, rt, "two farms with keyed state are named");
}

// A keyed replica and a node with its own state under one name would write one part.
TEST(checkpoints, a_keyed_replica_and_a_node_under_one_name_are_refused) {
  temp_dir dir;
  spate::runtime rt(runtime_with(workers(1)));
  auto out = std::make_shared<highest_count::kept>();
  flow::graph g(
      flow::pipeline(flow::generate<int>(10, [](std::size_t i) { return int(i); }),
                     flow::farm(flow::as_stage(counter{}).named("agg"), 2,
                                flow::by_key{[](const int& k) { return k; }}),
                     flow::make_stage<highest_count>(out).named("agg#1")),
      flow::graph_options{.checkpoints = flow::checkpoint_options{.directory = dir.path}});
  expect_refused(g, rt, "two nodes with state are named 'agg#1'");
}

// The newest checkpoint damaged (a part cut short): the restart uses the one before it,
// says which file it skipped, and still ends exactly.
TEST(checkpoints, a_damaged_newest_checkpoint_falls_back_to_the_previous_one) {
  spate::runtime rt(runtime_with(workers(2)));
  const std::size_t n = 400'000;
  temp_dir dir;
  run_until_checkpoints(rt, dir.path, n, 3);
  std::vector<fs::path> complete;
  for (const auto& entry : fs::directory_iterator(dir.path)) {
    if (fs::exists(entry.path() / "MANIFEST")) complete.push_back(entry.path());
  }
  std::sort(complete.begin(), complete.end());
  ASSERT_EQ(complete.size(), 2u);  // retain = 2
  fs::path part;
  for (const auto& entry : fs::directory_iterator(complete.back())) {
    if (entry.path().filename().string().rfind("part-", 0) == 0) part = entry.path();
  }
  ASSERT_FALSE(part.empty());
  fs::resize_file(part, fs::file_size(part) / 2);

  std::vector<std::string> warnings;
  std::mutex warnings_mutex;
  spate::log::scoped_sink capture([&](const spate::log::record& r) {
    const std::lock_guard lock(warnings_mutex);
    warnings.emplace_back(r.text);
  });
  auto out = std::make_shared<highest_count::kept>();
  auto second = counting_job(n, out, flow::checkpoint_options{.directory = dir.path});
  second.run(rt);
  const std::uint64_t older = std::stoull(complete.front().filename().string().substr(4));
  EXPECT_EQ(second.checkpoints().restored_from, older);
  EXPECT_EQ(*out, expected(n));
  const std::lock_guard lock(warnings_mutex);
  const std::string name = part.filename().string();
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(),
                          [&](const std::string& w) {
                            return w.find(name) != std::string::npos &&
                                   w.find("truncated") != std::string::npos;
                          }))
      << "no warning names " << name;
}

TEST(checkpoints, a_source_without_a_position_is_refused_by_name) {
  temp_dir dir;
  spate::runtime rt(runtime_with(workers(1)));
  int left = 3;
  flow::graph g(
      flow::pipeline(flow::source_from([&]() -> std::optional<int> {
                       if (left == 0) return std::nullopt;
                       return left--;
                     }),
                     flow::sink([](int&) {})),
      flow::graph_options{.checkpoints = flow::checkpoint_options{.directory = dir.path}});
  expect_refused(g, rt, "without checkpoint_position()");
}

// A checkpoint that cannot be written (files may not grow past 64 bytes: EFBIG) fails the
// graph with the default tolerable_failures = 0, naming the file and the OS reason; the
// failed checkpoint's directory is removed.
TEST(checkpoints, a_write_that_fails_fails_the_graph_naming_the_file_and_the_reason) {
  temp_dir dir;
  spate::runtime rt(runtime_with(workers(2)));
  auto out = std::make_shared<highest_count::kept>();
  auto g = counting_job(
      2'000'000, out,
      flow::checkpoint_options{.directory = dir.path, .interval = std::chrono::milliseconds(5)});
  struct limit_file_size {
    rlimit before{};
    void (*handler)(int) = nullptr;
    limit_file_size() {
      ::getrlimit(RLIMIT_FSIZE, &before);
      handler = std::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead
      rlimit small = before;
      small.rlim_cur = 64;
      ::setrlimit(RLIMIT_FSIZE, &small);
    }
    ~limit_file_size() {
      ::setrlimit(RLIMIT_FSIZE, &before);
      std::signal(SIGXFSZ, handler);
    }
  };
  try {
    const limit_file_size limit;
    g.run(rt);
    FAIL() << "the graph ended without the failure";
  } catch (const flow::node_error& e) {
    EXPECT_EQ(e.node(), "checkpoint coordinator");
    const std::string what = e.what();
    EXPECT_NE(what.find("part-"), std::string::npos) << what;
    EXPECT_NE(what.find("File too large"), std::string::npos) << what;
  }
  EXPECT_EQ(g.checkpoints().failed, 1u);
  EXPECT_EQ(g.checkpoints().completed, 0u);
  for (const auto& entry : fs::directory_iterator(dir.path)) {
    EXPECT_EQ(entry.path().filename().string().rfind("chk-", 0), std::string::npos)
        << entry.path() << " left behind";
  }
}

namespace {
// Passes values on, now and then slowly, so an ordered farm's replicas finish out of turn.
struct uneven_pass : flow::node<std::uint64_t, std::uint64_t> {
  void consume(std::uint64_t& v) {
    if (v % 1000 == replica_index()) std::this_thread::sleep_for(std::chrono::microseconds(100));
    send_next(std::uint64_t(v));
  }
};
// Checks the values come in order 0, 1, 2, ...: the next one expected and how many broke it
// (its own state, checkpointed).
struct in_order : flow::node<std::uint64_t, void> {
  using kept = std::pair<std::uint64_t, std::uint64_t>;
  std::shared_ptr<kept> out;
  kept now{0, 0};
  explicit in_order(std::shared_ptr<kept> o) : out(std::move(o)) {}
  void consume(std::uint64_t& v) {
    if (v != now.first) ++now.second;
    now.first = v + 1;
  }
  kept snapshot_state() const { return now; }
  void restore_state(kept k) { now = k; }
  void on_stop() { *out = now; }
};
}  // namespace

// An ordered farm's collector aligns the barrier on its three inputs: restarted from a
// checkpoint, the sink goes on from exactly the value after the last one it had.
TEST(checkpoints, an_ordered_farm_resumes_in_order_without_a_gap_or_a_repeat) {
  spate::runtime rt(runtime_with(workers(2)));
  const std::size_t n = 300'000;
  temp_dir dir;
  auto job = [&](std::shared_ptr<in_order::kept> out, flow::checkpoint_options c) {
    return flow::graph(
        flow::pipeline(flow::generate<std::uint64_t>(n, [](std::size_t i) { return i; }),
                       flow::ordered_farm(uneven_pass{}, 3), flow::make_stage<in_order>(out)),
        flow::graph_options{.links = {.capacity = 64}, .checkpoints = std::move(c)});
  };
  std::promise<void> reached;
  std::atomic<int> completions{0};
  auto first_out = std::make_shared<in_order::kept>();
  auto first = job(first_out, {.directory = dir.path,
                               .interval = std::chrono::milliseconds(5),
                               .on_complete = [&](std::uint64_t) {
                                 if (++completions == 2) reached.set_value();
                               }});
  first.start(rt);
  reached.get_future().get();
  first.cancel();
  first.wait();

  auto out = std::make_shared<in_order::kept>();
  auto second = job(out, {.directory = dir.path});
  second.run(rt);
  EXPECT_NE(second.checkpoints().restored_from, 0u);
  EXPECT_EQ(*out, (in_order::kept{n, 0}));
}
