#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../faults/fault_helpers.hpp"
#include "flow_test_support.hpp"

using namespace flow_test;
using namespace std::chrono_literals;

TEST(failure, exception_in_a_node_stops_the_graph_and_run_rethrows_with_the_node_name) {
  spate::runtime rt(runtime_with(workers(2)));
  auto parse = flow::map([](std::uint64_t& x) -> std::uint64_t {
                 if (x == 12'345) throw std::runtime_error("bad record 12345");
                 return x;
               }).named("parser");
  std::uint64_t received = 0;
  // An endless source: only cancellation can end this graph.
  flow::graph g(flow::pipeline(
      flow::source_from([i = std::uint64_t{0}]() mutable { return std::optional(i++); }),
      flow::farm(parse, 3), flow::farm(flow::map([](std::uint64_t& x) { return x; }), 2),
      flow::sink([&](std::uint64_t&) { ++received; })));
  try {
    g.run(rt);
    FAIL() << "expected node_error";
  } catch (const flow::node_error& e) {
    EXPECT_NE(e.node().find("parser"), std::string::npos) << e.node();
    EXPECT_NE(std::string(e.what()).find("bad record 12345"), std::string::npos) << e.what();
    EXPECT_THROW(std::rethrow_exception(e.original()), std::runtime_error);
  }
}

TEST(failure, exception_in_on_start_or_on_stop_is_reported_too) {
  struct bad_stop : flow::node<int, void> {
    void consume(int&) {}
    void on_stop() { throw std::logic_error("flush failed"); }
  };
  spate::runtime rt(runtime_with(workers(2)));
  flow::graph g(
      flow::pipeline(flow::generate<int>(10, [](std::size_t i) { return int(i); }), bad_stop{}));
  EXPECT_THROW(g.run(rt), flow::node_error);
}

// The finish hook runs on the thread that ended the graph, and wait() returns only after it
// has: the owner may then destroy what the hook uses (a test's promise on its stack did, and
// crashed once in hundreds of runs).
TEST(failure, wait_returns_after_the_finish_hook_has_returned) {
  spate::runtime rt(runtime_with(workers(2)));
  for (int round = 0; round < 2; ++round) {
    std::atomic<bool> hook_done{false};
    flow::graph g(flow::pipeline(flow::generate<int>(100, [](std::size_t i) { return int(i); }),
                                 flow::sink([](int&) {})));
    g.start(rt, [&](const std::string&) {
      std::this_thread::sleep_for(50ms);
      hook_done = true;
    });
    if (round == 1) g.cancel();  // the hook of a cancelled run too
    try {
      g.wait();
    } catch (const std::exception&) {
    }
    EXPECT_TRUE(hook_done) << "round " << round;
  }
}

// A cancel racing the graph's own end: whichever ends the run, the hook runs exactly once
// and before wait() returns (the hook of a run that ends while a cancel wakes its tasks is
// run by that cancel; it was once lost when the run ended between the cancel's last two
// steps). Many rounds, a few items each, so the end and the cancel meet; the stress hooks
// (ThreadSanitizer build) shuffle them further.
TEST(failure, a_cancel_racing_the_end_runs_the_hook_once_before_wait_returns) {
  spate::runtime rt(runtime_with(workers(2)));
  for (int round = 0; round < 300; ++round) {
    std::atomic<int> hooks{0};
    flow::graph g(
        flow::pipeline(flow::generate<int>(round % 7, [](std::size_t i) { return int(i); }),
                       flow::sink([](int&) {})));
    g.start(rt, [&](const std::string&) { hooks.fetch_add(1); });
    g.cancel();
    try {
      g.wait();
    } catch (const std::exception&) {
    }
    ASSERT_EQ(hooks.load(), 1) << "round " << round;
  }
}

TEST(backpressure, slow_sink_keeps_items_in_flight_bounded) {
  spate::runtime rt(runtime_with(workers(2)));
  flow::graph_options options;
  options.links.capacity = 16;
  std::atomic<std::uint64_t> produced{0};
  std::uint64_t consumed = 0, max_in_flight = 0;
  constexpr std::uint64_t n = 3000;
  flow::graph g(
      flow::pipeline(flow::generate<std::uint64_t>(n,
                                                   [&](std::size_t i) {
                                                     produced.fetch_add(1);
                                                     return std::uint64_t(i);
                                                   }),
                     flow::map([](std::uint64_t& x) { return x; }), flow::sink([&](std::uint64_t&) {
                       ++consumed;
                       max_in_flight = std::max(max_in_flight, produced.load() - consumed);
                       std::this_thread::sleep_for(std::chrono::microseconds(50));
                     })),
      options);
  g.run(rt);
  EXPECT_EQ(consumed, n);
  // Two edges of 16 slots, plus one item per node being handled or waiting in a buffer.
  EXPECT_LE(max_in_flight, 2u * 16 + 4);
  std::uint64_t blocked = 0;
  for (const auto& node : g.nodes()) blocked += node.output_blocked;
  EXPECT_GT(blocked, 0u) << "the source never had to wait";
}

TEST(backpressure, send_next_if_reports_a_full_queue_and_keeps_the_item) {
  spate::runtime rt(runtime_with(workers(2)));
  std::atomic<int> refusals{0};
  std::atomic<bool> finished{false};
  std::vector<int> out;
  flow::graph g(flow::pipeline(flow::make_stage<polite_source>(2000, 4, &refusals, &finished),
                               flow::sink([&](int& x) {
                                 out.push_back(x);
                                 std::this_thread::sleep_for(std::chrono::microseconds(20));
                               })));
  g.run(rt);
  ASSERT_EQ(out.size(), 2000u);
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(out[i], i);
  EXPECT_GT(refusals.load(), 0);
}

TEST(failure, a_pool_stopped_under_a_running_graph_frees_its_queued_tasks) {
  // LeakSanitizer checks this one: tasks still queued when the pool stops are discarded,
  // and each must drop its reference to the graph's state.
  std::atomic<std::uint64_t> count{0};
  auto rt = std::make_unique<spate::runtime>(runtime_with(workers(2)));
  auto g = std::make_unique<flow::graph>(flow::pipeline(
      flow::generate<std::uint64_t>(100'000'000, [](std::size_t i) { return i; }),
      flow::farm(flow::map([](std::uint64_t& x) { return x + 1; }), 4),
      flow::sink([&](std::uint64_t&) { count.fetch_add(1, std::memory_order_relaxed); })));
  g->start(*rt);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  rt->pool().stop();  // the graph is still running: its queued tasks are discarded
  EXPECT_LT(count.load(), 100'000'000u);
  g->cancel();  // wakes the idle ones: a stopped pool discards what is scheduled to it
  EXPECT_TRUE(g->finished()) << "every task must have finished or been discarded";
  g.reset();
  rt.reset();
}

// The stall report: printed when nothing moved for a whole period, never for a slow job
// that keeps moving, and once per stall.
TEST(stall_report, only_a_graph_without_progress_is_reported) {
  spate::runtime rt(runtime_with(workers(2)));
  flow::graph_options options;
  options.stall_report_after = std::chrono::milliseconds(60);
  // Progress is counted per activation; one item per activation makes every item count.
  options.items_per_activation = 1;
  {  // slow but steady: an item every 10 ms for ~400 ms
    flow::graph g(flow::pipeline(flow::source_from([i = 0]() mutable -> std::optional<int> {
                                   std::this_thread::sleep_for(std::chrono::milliseconds(10));
                                   return i < 40 ? std::optional(i++) : std::nullopt;
                                 }),
                                 flow::sink([](int&) {})),
                  options);
    testing::internal::CaptureStderr();
    g.run(rt);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  {  // stuck for ~400 ms in one item, then done
    flow::graph g(flow::pipeline(flow::source_from([i = 0]() mutable -> std::optional<int> {
                                   if (i == 1)
                                     std::this_thread::sleep_for(std::chrono::milliseconds(400));
                                   return i < 3 ? std::optional(i++) : std::nullopt;
                                 }).named("sleepy"),
                                 flow::sink([](int&) {})),
                  options);
    testing::internal::CaptureStderr();
    g.run(rt);
    const std::string report = testing::internal::GetCapturedStderr();
    const std::string headline = "for 60 ms no item moved and no activation ended";
    EXPECT_NE(report.find(headline), std::string::npos) << report;
    EXPECT_NE(report.find("sleepy"), std::string::npos) << report;
    // Once per stall, not once per period.
    EXPECT_EQ(report.find(headline, report.find(headline) + 1), std::string::npos) << report;
  }
}

// A thread feeding a graph through a link (flow::link_source) and waiting for room when the
// graph fails: the cancelled source abandons the link, and the producer's push returns false
// instead of waiting for room that will never come.
TEST(failure, a_producer_waiting_on_a_cancelled_graphs_link_is_let_go) {
  spate::test::within(60s, "producer on a cancelled graph's link", [] {
    spate::runtime rt(runtime_with(workers(2)));
    spate::waiter room;
    auto in = std::make_shared<spate::link<int>>(spate::link_options{.capacity = 4}, &room);
    flow::graph g(
        flow::pipeline(flow::make_stage<flow::link_source<int>>(in), flow::sink([](int& x) {
                         if (x == 10) throw std::runtime_error("sink gives up");
                       })));
    g.start(rt);
    auto pushed = std::async(std::launch::async, [&] {
      int n = 0;
      while (n < 1'000'000 && in->push_waiting_for_room(n, [] { return false; })) ++n;
      return n;
    });
    ASSERT_EQ(pushed.wait_for(30s), std::future_status::ready)
        << "the producer still waits for room in the link of a failed graph";
    EXPECT_LT(pushed.get(), 1'000'000);
    EXPECT_TRUE(in->is_abandoned());
    EXPECT_THROW(g.wait(), std::runtime_error);
  });
}

// graph_options::links sizes every edge; a stage's with_input_links sizes the edges into it.
TEST(backpressure, a_stage_sizes_its_own_input_links) {
  spate::runtime rt(runtime_with(workers(2)));
  std::vector<int> out;
  flow::graph g(flow::pipeline(flow::generate<int>(10'000, [](std::size_t i) { return int(i); }),
                               flow::farm(flow::map([](int& x) {
                                            return x;
                                          }).with_input_links({.capacity = 8, .notify_batch = 3}),
                                          2),
                               flow::sink([&](int& x) { out.push_back(x); })),
                flow::graph_options{.links = {.capacity = 64}});
  g.run(rt);
  ASSERT_EQ(out.size(), 10'000u);
  std::sort(out.begin(), out.end());
  for (int i = 0; i < 10'000; ++i) ASSERT_EQ(out[std::size_t(i)], i);
  std::size_t small = 0, large = 0;
  for (const auto& e : g.topology().edges) {
    if (e.capacity == 8) ++small;
    if (e.capacity == 64) ++large;
  }
  EXPECT_EQ(small, 2u);  // source -> each farm replica (fused: no router)
  EXPECT_EQ(large, 2u);  // each replica -> sink
}
