#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "flow_test_support.hpp"

using namespace flow_test;

namespace {

struct counting_source : flow::source<std::uint64_t> {
  explicit counting_source(std::uint64_t n) : n(n) {}
  bool produce() {
    send_next(next++);
    return next < n;
  }
  std::uint64_t n, next = 0;
};

// Records how its life went: items seen before on_stop, on_stop calls.
struct lifecycle_probe : flow::node<std::uint64_t, std::uint64_t> {
  explicit lifecycle_probe(std::atomic<int>* stops, std::atomic<std::uint64_t>* seen_at_stop)
      : stops(stops), seen_at_stop(seen_at_stop) {}
  void on_start() { started = true; }
  void consume(std::uint64_t& x) {
    EXPECT_TRUE(started);
    ++seen;
    send_next(std::move(x));
  }
  void on_stop() {
    stops->fetch_add(1);
    seen_at_stop->fetch_add(seen);
  }
  bool started = false;
  std::uint64_t seen = 0;
  std::atomic<int>* stops;
  std::atomic<std::uint64_t>* seen_at_stop;
};

}  // namespace

TEST(pipeline, delivers_everything_in_order_through_lambda_stages) {
  spate::runtime rt(runtime_with(workers(2)));
  constexpr std::uint64_t n = 200'000;
  std::vector<std::uint64_t> out;
  flow::graph g(flow::pipeline(counting_source(n),
                               flow::map([](std::uint64_t& x) { return x * 3; }),
                               flow::filter([](const std::uint64_t& x) { return x % 2 == 0; }),
                               flow::flat_map<std::uint64_t>([](std::uint64_t& x, auto emit) {
                                 emit(x);
                                 emit(x + 1);
                               }),
                               flow::sink([&](std::uint64_t& x) { out.push_back(x); })));
  g.run(rt);
  ASSERT_EQ(out.size(), n);  // half pass the filter, each emitted twice
  for (std::uint64_t i = 0; i < n / 2; ++i) {
    ASSERT_EQ(out[2 * i], 6 * i);
    ASSERT_EQ(out[2 * i + 1], 6 * i + 1);
  }
}

TEST(pipeline, end_of_stream_runs_on_stop_once_per_node_after_draining) {
  spate::runtime rt(runtime_with(workers(2)));
  constexpr std::uint64_t n = 50'000;
  std::atomic<int> stops{0};
  std::atomic<std::uint64_t> seen_at_stop{0};
  std::uint64_t received = 0;
  flow::graph g(
      flow::pipeline(counting_source(n), flow::make_stage<lifecycle_probe>(&stops, &seen_at_stop),
                     flow::farm(flow::make_stage<lifecycle_probe>(&stops, &seen_at_stop), 3),
                     flow::sink([&](std::uint64_t&) { ++received; })));
  g.run(rt);
  EXPECT_EQ(received, n);          // run() returned after the sink finished
  EXPECT_EQ(stops.load(), 1 + 3);  // once per node replica
  EXPECT_EQ(seen_at_stop.load(), 2 * n);
}

TEST(pipeline, many_more_nodes_than_workers_and_tiny_channels_do_not_deadlock) {
  spate::runtime rt(runtime_with(workers(1)));
  flow::graph_options options;
  options.links.capacity = 2;
  constexpr std::uint64_t n = 20'000;
  auto forward = flow::map([](std::uint64_t& x) { return x + 1; });
  std::uint64_t sum = 0, count = 0;
  flow::graph g(
      flow::pipeline(counting_source(n), forward, forward, forward, forward, forward, forward,
                     forward, forward, forward, forward, forward, forward, forward, forward,
                     forward, forward, flow::sink([&](std::uint64_t& x) {
                       sum += x;
                       ++count;
                     })),
      options);
  g.run(rt);
  EXPECT_EQ(count, n);
  EXPECT_EQ(sum, n * (n - 1) / 2 + 16 * n);
}

TEST(pipeline, node_on_a_dedicated_thread) {
  spate::runtime rt(runtime_with(workers(2)));
  std::thread::id node_thread;
  std::uint64_t count = 0;
  auto where = flow::map([&](std::uint64_t& x) {
                 node_thread = std::this_thread::get_id();
                 return x;
               }).on_dedicated_thread();
  flow::graph g(
      flow::pipeline(counting_source(1000), where, flow::sink([&](std::uint64_t&) { ++count; })));
  g.run(rt);
  EXPECT_EQ(count, 1000u);
  EXPECT_NE(node_thread, std::this_thread::get_id());
  EXPECT_NE(node_thread, std::thread::id{});
}

TEST(pipeline, can_run_twice_with_fresh_nodes) {
  spate::runtime rt(runtime_with(workers(2)));
  std::uint64_t count = 0;
  flow::graph g(flow::pipeline(counting_source(100), flow::sink([&](std::uint64_t&) { ++count; })));
  g.run(rt);
  g.run(rt);
  EXPECT_EQ(count, 200u);
}

TEST(pipeline, run_from_a_worker_of_the_same_pool_is_refused) {
  spate::runtime rt(runtime_with(workers(2)));
  std::atomic<bool> refused{false};
  struct probe final : spate::task {
    spate::runtime* rt;
    std::atomic<bool>* refused;
    spate::resume_result resume(std::size_t) override {
      flow::graph g(flow::pipeline(counting_source(1), flow::sink([](std::uint64_t&) {})));
      try {
        g.run(*rt);
      } catch (const std::logic_error&) {
        refused->store(true);
      }
      return spate::resume_result::done;
    }
  } t;
  t.rt = &rt;
  t.refused = &refused;
  rt.pool().schedule(&t);
  for (int i = 0; i < 5000 && !refused.load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(refused.load());
}

// graph_options::measure_busy_time: the node that does the work is the one reported busy,
// and no node is busier than the run was long. Off by default: all zeros.
TEST(pipeline, busy_time_points_at_the_slow_node) {
  spate::runtime rt(runtime_with(workers(2)));
  auto run = [&](bool measure) {
    flow::graph_options options;
    options.measure_busy_time = measure;
    flow::graph g(
        flow::pipeline(counting_source(20),
                       flow::ordered_farm(flow::map([](std::uint64_t& x) { return x; }), 2),
                       flow::sink([](std::uint64_t&) {
                         std::this_thread::sleep_for(std::chrono::milliseconds(2));
                       }).named("slow")),
        options);
    const auto start = std::chrono::steady_clock::now();
    g.run(rt);
    const auto wall = std::chrono::steady_clock::now() - start;
    return std::make_pair(g.nodes(), wall);
  };
  const auto [measured, wall] = run(true);
  std::chrono::nanoseconds slow{0}, others{0};
  for (const auto& node : measured) {
    EXPECT_LE(node.busy, wall) << node.name;
    (node.name == "slow" ? slow : others) += node.busy;
  }
  EXPECT_GE(slow, std::chrono::milliseconds(40));  // 20 items x 2 ms of sleep
  EXPECT_LT(others, slow);
  for (const auto& node : run(false).first) EXPECT_EQ(node.busy.count(), 0) << node.name;
}

TEST(pipeline, destroying_a_running_graph_cancels_and_waits_for_it) {
  // The graph owns the threads of its dedicated nodes: destroyed while they ran, it freed
  // them under the nodes (a use after free under AddressSanitizer).
  spate::runtime rt(runtime_with(workers(2)));
  std::atomic<std::uint64_t> count{0};
  {
    auto slow = flow::map([&](std::uint64_t& x) {
                  std::this_thread::sleep_for(std::chrono::microseconds(10));
                  return x;
                }).on_dedicated_thread();
    flow::graph g(flow::pipeline(counting_source(1'000'000), slow,
                                 flow::sink([&](std::uint64_t&) { count.fetch_add(1); })));
    g.start(rt);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }                                     // no wait(), no cancel()
  EXPECT_LT(count.load(), 1'000'000u);  // it was cancelled, not run to the end
  const auto after = count.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(count.load(), after);  // and nothing of it runs any more
}

TEST(pipeline, generic_lambdas_with_the_input_type_named) {
  spate::runtime rt(runtime_with(workers(2)));
  long total = 0;
  flow::graph g(flow::pipeline(flow::generate<int>(100, [](std::size_t i) { return int(i); }),
                               flow::map<int>([](auto& x) { return long(x) * 2; }),
                               flow::filter<long>([](const auto& x) { return x % 4 == 0; }),
                               flow::sink<long>([&](auto& x) { total += x; })));
  g.run(rt);
  long expected = 0;
  for (long i = 0; i < 100; ++i) {
    if ((2 * i) % 4 == 0) expected += 2 * i;
  }
  EXPECT_EQ(total, expected);
}
