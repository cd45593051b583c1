// Defect 8: a window pattern cancelled or failing with tuples in flight leaked every
// multicast envelope still in the emitter's output buffer or an edge (the message held a raw
// pointer). Every tuple copy is counted: after the graph is gone none may be left, with
// either tuple memory (LeakSanitizer checks the blocks in the asan build).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>

#include "../test_runtime.hpp"
#include "fault_helpers.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/flow.hpp"
#include "spate/window.hpp"

using namespace std::chrono_literals;
namespace flow = spate::flow;
using spate::test::eventually;
namespace window = spate::window;

namespace {

std::atomic<long> live_tuples{0};

// A tuple that owns heap memory and counts its live copies.
struct counted_tuple {
  int key = 0;
  std::string payload;
  counted_tuple(int key, std::string payload) : key(key), payload(std::move(payload)) {
    ++live_tuples;
  }
  counted_tuple(const counted_tuple& o) : key(o.key), payload(o.payload) { ++live_tuples; }
  counted_tuple(counted_tuple&& o) noexcept : key(o.key), payload(std::move(o.payload)) {
    ++live_tuples;
  }
  counted_tuple& operator=(const counted_tuple&) = default;
  counted_tuple& operator=(counted_tuple&&) = default;
  ~counted_tuple() { --live_tuples; }
};

using spate::test::two_workers;

template <class Result = window::window_result<int, std::size_t>, class Pattern>
void run_and_fail(Pattern pattern, bool cancel_instead, bool fuse_farms = true) {
  live_tuples = 0;
  spate::runtime rt{two_workers()};
  std::atomic<long> results{0};
  {
    flow::graph job(flow::pipeline(flow::generate<counted_tuple>(
                                       200'000,
                                       [](std::size_t i) {
                                         return counted_tuple(int(i % 17),
                                                              std::string(64, char('a' + i % 26)));
                                       }),
                                   std::move(pattern), flow::sink([&](const Result&) {
                                     // Slow enough that the emitter's rings fill behind it.
                                     std::this_thread::sleep_for(20us);
                                     if (++results == 500 && !cancel_instead)
                                       throw std::runtime_error("sink failed");
                                   })),
                    flow::graph_options{.links = {.capacity = 64}, .fuse_farms = fuse_farms});
    job.start(rt);
    if (cancel_instead) {
      ASSERT_TRUE(eventually([&] { return results.load() >= 500; }, 10s));
      job.cancel();
      job.wait();
    } else {
      EXPECT_THROW(job.wait(), flow::node_error);
    }
  }
  // The last task to end destroys the graph's nodes and edges on its worker right after
  // wait() returned; joining the workers waits for that.
  rt.shutdown();
  EXPECT_EQ(live_tuples.load(), 0) << "tuple copies never destroyed";
}

auto key_of = [](const counted_tuple& t) { return t.key; };
auto count_bytes = [](const int&, std::span<const counted_tuple> w) {
  std::size_t n = 0;
  for (const auto& t : w) n += t.payload.size();
  return n;
};

}  // namespace

TEST(window_faults, a_failing_graph_releases_every_envelope_in_flight) {
  for (auto memory : {window::tuple_memory::slab, window::tuple_memory::heap}) {
    SCOPED_TRACE(memory == window::tuple_memory::slab ? "slab" : "heap");
    const window::count_window spec{.length = 50, .slide = 5};
    run_and_fail(
        window::window_farming<counted_tuple>(spec, key_of, count_bytes, 3, {.memory = memory}),
        false);
    run_and_fail(
        window::key_partitioning<counted_tuple>(spec, key_of, count_bytes, 2, {.memory = memory}),
        false);
  }
}

// Without fusion a router sits between the emitter and the workers, and its output buffer
// holds messages too: they are released before the emitter (and its pool) is destroyed.
TEST(window_faults, a_failing_unfused_graph_releases_what_its_router_buffers) {
  for (auto memory : {window::tuple_memory::slab, window::tuple_memory::heap}) {
    SCOPED_TRACE(memory == window::tuple_memory::slab ? "slab" : "heap");
    const window::count_window spec{.length = 50, .slide = 5};
    run_and_fail(
        window::window_farming<counted_tuple>(spec, key_of, count_bytes, 3, {.memory = memory}),
        false, false);
    run_and_fail(
        window::key_partitioning<counted_tuple>(spec, key_of, count_bytes, 2, {.memory = memory}),
        true, false);
  }
}

TEST(window_faults, a_cancelled_graph_releases_every_envelope_in_flight) {
  for (auto memory : {window::tuple_memory::slab, window::tuple_memory::heap}) {
    SCOPED_TRACE(memory == window::tuple_memory::slab ? "slab" : "heap");
    const window::count_window spec{.length = 50, .slide = 5};
    run_and_fail(
        window::window_farming<counted_tuple>(spec, key_of, count_bytes, 3, {.memory = memory}),
        true);
    run_and_fail(
        window::key_partitioning<counted_tuple>(spec, key_of, count_bytes, 2, {.memory = memory}),
        true);
  }
}

// Sessions move each tuple to its worker inside the message: a failing or cancelled graph
// destroys the tuples its rings still hold. Time runs one per tuple, and each key's tuples
// are 17 apart, so with a gap of 8 every tuple is a session that fires at once.
TEST(window_faults, a_failing_or_cancelled_session_graph_leaves_no_tuple_behind) {
  std::atomic<std::uint64_t> clock{0};
  const auto arrival = [&clock](const counted_tuple&) { return clock.fetch_add(1); };
  using session = window::session_result<int, std::size_t>;
  for (bool cancel : {false, true}) {
    SCOPED_TRACE(cancel ? "cancelled" : "failed");
    run_and_fail<session>(window::sessions<counted_tuple>(window::session_window{.gap = 8}, key_of,
                                                          arrival, count_bytes, 2),
                          cancel);
  }
}

// A session function that throws fails the graph, naming the worker, and loses no tuple.
TEST(window_faults, a_throwing_session_function_fails_the_graph_by_name) {
  live_tuples = 0;
  spate::runtime rt{two_workers()};
  {
    std::uint64_t time = 0;
    flow::graph job(flow::pipeline(
        flow::generate<counted_tuple>(
            10'000, [](std::size_t i) { return counted_tuple(int(i % 5), std::string(8, 'x')); }),
        window::sessions<counted_tuple>(
            window::session_window{.gap = 3}, key_of,
            [&time](const counted_tuple&) { return time++; },
            [](const int& key, std::span<const counted_tuple> s) -> std::size_t {
              if (key == 3) throw std::runtime_error("no sessions for key 3");
              return s.size();
            },
            2),
        flow::sink([](const window::session_result<int, std::size_t>&) {})));
    try {
      job.run(rt);
      ADD_FAILURE() << "the graph did not fail";
    } catch (const flow::node_error& e) {
      EXPECT_NE(std::string(e.what()).find("session_worker"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("no sessions for key 3"), std::string::npos) << e.what();
    }
  }
  rt.shutdown();
  EXPECT_EQ(live_tuples.load(), 0) << "tuple copies never destroyed";
}

// A late output that throws fails the graph, naming the emitter it ran on, and loses no tuple.
TEST(window_faults, a_throwing_late_output_fails_the_graph_by_name) {
  live_tuples = 0;
  spate::runtime rt{two_workers()};
  {
    std::uint64_t n = 1000;  // every tenth tuple 100 behind: late for every window
    flow::graph job(flow::pipeline(
        flow::generate<counted_tuple>(
            10'000, [](std::size_t i) { return counted_tuple(int(i % 5), std::string(8, 'x')); }),
        window::key_partitioning<counted_tuple>(
            window::time_window{.length = 10, .slide = 10}, key_of,
            [&n](const counted_tuple&) { return ++n % 10 == 0 ? n * 7 - 100 : n * 7; }, count_bytes,
            2, {.late = window::late_to<counted_tuple>([](counted_tuple&&) {
                  throw std::runtime_error("no room for late tuples");
                })}),
        flow::sink([](const window::window_result<int, std::size_t>&) {})));
    try {
      job.run(rt);
      ADD_FAILURE() << "the graph did not fail";
    } catch (const flow::node_error& e) {
      EXPECT_NE(std::string(e.what()).find("kp_emitter"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("no room for late tuples"), std::string::npos)
          << e.what();
    }
  }
  rt.shutdown();
  EXPECT_EQ(live_tuples.load(), 0) << "tuple copies never destroyed";
}
