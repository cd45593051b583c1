#pragma once
// What the checkpoint tests share: a keyed counter, its keys, a job that counts them, a run
// cancelled after its checkpoints, a temporary directory and a check that a graph is
// refused at start.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "../temp_dir.hpp"
#include "flow_test_support.hpp"
#include "spate/state/keyed.hpp"

namespace checkpoint_test {

using namespace flow_test;  // flow = spate::flow, runtime_with, workers
namespace state = spate::state;
namespace fs = std::filesystem;
using spate::test::temp_dir;

using count_update = std::pair<int, std::int64_t>;
using counts = std::map<int, std::int64_t>;

// Counts items per key in keyed state; sends each key's running count. Replica 0 is slow
// now and then, so the sink's input from replica 1 reaches each barrier first.
struct counter : flow::node<int, count_update> {
  state::value<std::int64_t> count{"count"};
  auto state_fields() { return std::tie(count); }
  void consume(int& key) {
    const std::int64_t n = ++count.get_or_init(0);
    if (replica_index() == 0 && n % 64 == 0)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    send_next({key, n});
  }
};

inline int key_of(std::size_t i) {
  return static_cast<int>(i * 7919 % 101);
}

// Keeps the highest count seen per key and how many updates it received (its own state,
// checkpointed); hands them over at the end. The highest counts forgive an update seen twice;
// the number received does not: a snapshot taken before both inputs reached the barrier
// would hold updates the restart then replays.
struct highest_count : flow::node<count_update, void> {
  using kept = std::pair<counts, std::int64_t>;
  std::shared_ptr<kept> out;
  kept now;
  explicit highest_count(std::shared_ptr<kept> o) : out(std::move(o)) {}
  void consume(count_update& u) {
    std::int64_t& h = now.first[u.first];
    if (u.second > h) h = u.second;
    ++now.second;
  }
  kept snapshot_state() const { return now; }
  void restore_state(kept k) { now = std::move(k); }
  void on_stop() { *out = now; }
};

inline highest_count::kept expected(std::size_t n) {
  highest_count::kept k;
  for (std::size_t i = 0; i < n; ++i) ++k.first[key_of(i)];
  k.second = static_cast<std::int64_t>(n);
  return k;
}

// The job: generate -> farm(counter, by key, 2) -> highest_count; keyed state in memory,
// or in `backend`.
inline flow::graph counting_job(std::size_t n, std::shared_ptr<highest_count::kept> out,
                                std::optional<flow::checkpoint_options> checkpoints,
                                std::size_t replicas = 2,
                                std::shared_ptr<state::keyed_state_backend> backend = nullptr) {
  return flow::graph(
      flow::pipeline(flow::generate<int>(n, [](std::size_t i) { return key_of(i); }),
                     flow::farm(counter{}, replicas, flow::by_key{[](const int& k) { return k; }}),
                     flow::make_stage<highest_count>(out)),
      flow::graph_options{.links = {.capacity = 64},
                          .checkpoints = std::move(checkpoints),
                          .keyed_state_backend = std::move(backend)});
}

// Runs the job until `count` checkpoints are complete, then cancels it (a crash, as far as
// the checkpoints can tell); returns the last one's id.
inline std::uint64_t run_until_checkpoints(
    spate::runtime& rt, const fs::path& dir, std::size_t n, int count,
    std::shared_ptr<state::keyed_state_backend> backend = nullptr) {
  std::promise<std::uint64_t> reached;
  std::atomic<int> completions{0};
  auto out = std::make_shared<highest_count::kept>();
  auto g = counting_job(n, out,
                        flow::checkpoint_options{
                            .directory = dir,
                            .interval = std::chrono::milliseconds(5),
                            .on_complete =
                                [&](std::uint64_t id) {
                                  if (++completions == count) reached.set_value(id);
                                },
                        },
                        2, std::move(backend));
  g.start(rt);
  const std::uint64_t id = reached.get_future().get();
  g.cancel();
  g.wait();
  EXPECT_EQ(out->second, 0);  // cancelled: no on_stop
  return id;
}

// The graph does not start: std::invalid_argument whose text holds `reason`.
inline void expect_refused(flow::graph& g, spate::runtime& rt, const std::string& reason) {
  try {
    g.run(rt);
    FAIL() << "started";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
}

}  // namespace checkpoint_test
