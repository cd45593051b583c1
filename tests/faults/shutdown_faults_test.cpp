// Shutdown and teardown with work in flight: a runtime shut down under a running graph, a
// pool stopped under one, a graph actor with a dedicated-thread node that ends before its
// stream, and misuse that would block a worker.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "fault_helpers.hpp"
#include "spate/actor.hpp"
#include "spate/flow.hpp"
#include "spate/interop/graph_actor.hpp"
#include "spate/exec/dedicated_thread.hpp"
#include "spate/exec/runtime.hpp"
#include "../test_runtime.hpp"

using namespace std::chrono_literals;
using spate::test::eventually;
using spate::test::within;
namespace flow = spate::flow;

namespace {

using spate::test::two_workers;

// A source fed from outside that never gets input: its task is idle, in no queue, so a
// stopping pool has nothing of it to discard.
struct silent_source : flow::node<void, int> {
  flow::produce_status produce() { return flow::produce_status::wait; }
  bool has_news() const { return false; }
};

// Endless items as fast as the sink takes them.
struct endless_source : flow::node<void, int> {
  int next = 0;
  bool produce() {
    send_next(next++);
    return true;
  }
};

}  // namespace

// Defect 5: graphs registered no shutdown step, so runtime::shutdown() left job.wait()
// blocked forever.
TEST(shutdown_faults, runtime_shutdown_ends_running_graphs_and_wait_returns) {
  for (const bool idle : {true, false}) {
    spate::runtime rt{two_workers()};
    std::atomic<long> seen{0};
    flow::graph job = idle ? flow::graph(flow::pipeline(flow::make_stage<silent_source>(),
                                                         flow::sink([&](int) { ++seen; })))
                           : flow::graph(flow::pipeline(flow::make_stage<endless_source>(),
                                                        flow::map([](int& x) { return x + 1; }),
                                                        flow::sink([&](int) { ++seen; })));
    job.start(rt);
    if (!idle) {
      ASSERT_TRUE(eventually([&] { return seen.load() > 1000; }, 10s));
    }
    within(30s, "runtime shutdown with a running graph", [&] {
      rt.shutdown();
      job.wait();
    });
    EXPECT_TRUE(job.finished());
  }
}

// The runtime joins and frees a graph's dedicated threads at shutdown (step 3); the graph
// waited for afterwards must not touch them.
TEST(shutdown_faults, a_graph_with_a_dedicated_thread_node_is_waited_for_after_shutdown) {
  spate::runtime rt{two_workers()};
  std::atomic<long> seen{0};
  flow::graph job(flow::pipeline(flow::make_stage<endless_source>(),
                                 flow::map([](int& x) { return x + 1; }).on_dedicated_thread(),
                                 flow::sink([&](int) { ++seen; })));
  job.start(rt);
  ASSERT_TRUE(eventually([&] { return seen.load() > 1000; }, 10s));
  within(30s, "shutdown, then wait, with a dedicated-thread node", [&] {
    rt.shutdown();
    job.wait();
  });
  EXPECT_EQ(rt.dedicated_thread_count(), 0u);
}

// A wait() already blocked when shutdown begins: the graph's shutdown step must still be
// registered, or the idle graph is never cancelled and the wait never returns.
TEST(shutdown_faults, a_wait_blocked_before_shutdown_returns) {
  spate::runtime rt{two_workers()};
  flow::graph job(flow::pipeline(flow::make_stage<silent_source>().on_dedicated_thread(),
                                 flow::sink([](int) {})));
  job.start(rt);
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    job.wait();
    returned = true;
  });
  std::this_thread::sleep_for(50ms);  // let the waiter block in wait()
  within(30s, "shutdown under a blocked wait()", [&] {
    rt.shutdown();
    waiter.join();
  });
  EXPECT_TRUE(returned.load());
  EXPECT_EQ(rt.dedicated_thread_count(), 0u);
}

TEST(shutdown_faults, runtime_shutdown_with_every_model_running) {
  spate::runtime rt{two_workers()};
  spate::actor_system actors{rt};
  std::atomic<long> pings{0};
  auto echo = actors.spawn([&](spate::event_based_actor& self) {
    return spate::behavior{[&](int n) {
      ++pings;
      spate::send(self.self(), n + 1);  // keeps itself busy forever
    }};
  });
  spate::send(echo, 0);
  flow::graph job(flow::pipeline(flow::make_stage<endless_source>(), flow::sink([](int) {})));
  job.start(rt);
  std::atomic<int> ticks{0};
  rt.timers().schedule_periodic(1ms, 1ms, [&] { ++ticks; });
  ASSERT_TRUE(eventually([&] { return pings.load() > 100 && ticks.load() > 3; }, 10s));
  within(30s, "runtime shutdown with actors, a graph and timers running", [&] {
    rt.shutdown();
    job.wait();
  });
  EXPECT_TRUE(job.finished());
}

// A pool stopped under a graph (directly, not through runtime::shutdown(), whose step 1
// cancels the graph first) discards its queued tasks, and each discarded task cancels the
// graph, so the idle ones end too.
TEST(shutdown_faults, a_stopped_pool_ends_a_graph_whose_tasks_are_idle) {
  spate::runtime rt{two_workers()};
  flow::graph job(flow::pipeline(flow::make_stage<silent_source>(), flow::sink([](int) {})));
  job.start(rt);
  std::this_thread::sleep_for(10ms);
  within(30s, "pool stop under an idle graph", [&] {
    job.cancel();  // wakes every task; the pool stops with some of them still queued
    rt.pool().stop();
    job.wait();
  });
  spate::runtime rt2{two_workers()};
  flow::graph job2(flow::pipeline(flow::make_stage<endless_source>(), flow::sink([](int) {})));
  job2.start(rt2);
  within(30s, "pool stop under a busy graph", [&] {
    rt2.pool().stop();
    job2.wait();
  });
}

// Defect 1: a graph actor whose graph has a dedicated-thread node, ended before its stream
// (killed, the system shut down), blocked a worker in ~graph waiting for a task that sat
// in that very worker's LIFO slot.
TEST(shutdown_faults, a_graph_actor_with_a_dedicated_thread_node_ends_before_its_stream) {
  for (int round = 0; round < 20; ++round) {
    spate::runtime_config c = two_workers();
    c.scheduler.threads = 1 + round % 2;
    spate::runtime rt{std::move(c)};
    spate::actor_system system{rt};
    spate::scoped_actor self(system);
    auto g = flow::spawn_graph(
        system,
        flow::pipeline(flow::map([](int& x) { return x * 2; }).on_dedicated_thread(),
                       flow::map([](int& x) { return x + 1; })),
        spate::actor(self));
    for (int i = 0; i < 100; ++i) spate::send(g, i);
    if (round % 2 == 0) {
      g.get()->kill({spate::exit_code::killed, "test"});
    }
    within(30s, "a graph actor with a dedicated-thread node stopping", [&] {
      system.shutdown();
      rt.shutdown();
    });
    EXPECT_EQ(rt.dedicated_thread_count(), 0u);
  }
}

TEST(shutdown_faults, waiting_for_a_graph_on_a_worker_of_its_pool_is_refused) {
  spate::runtime rt{two_workers()};
  flow::graph job(flow::pipeline(flow::make_stage<silent_source>(), flow::sink([](int) {})));
  job.start(rt);
  std::atomic<int> outcome{0};  // 1: refused with logic_error
  rt.timers().schedule_after(1ms, [&] {
    try {
      job.wait();
      outcome = 2;
    } catch (const std::logic_error& e) {
      outcome = std::string(e.what()).find("worker") != std::string::npos ? 1 : 3;
    }
  });
  ASSERT_TRUE(eventually([&] { return outcome.load() != 0; }, 10s));
  EXPECT_EQ(outcome.load(), 1);
  job.cancel();
  job.wait();
}

namespace {
struct counting_task final : spate::task {
  std::atomic<int>* resumed;
  std::atomic<int>* discarded;
  spate::resume_result resume(std::size_t) override {
    resumed->fetch_add(1);
    return spate::resume_result::done;
  }
  void discard() noexcept override { discarded->fetch_add(1); }
};
}  // namespace

TEST(shutdown_faults, a_task_scheduled_on_a_dedicated_thread_after_it_ended_is_discarded) {
  std::atomic<int> resumed{0}, discarded{0};
  counting_task before, after;
  before.resumed = after.resumed = &resumed;
  before.discarded = after.discarded = &discarded;
  spate::dedicated_thread thread("fault-test");
  thread.schedule(&before);
  thread.stop();
  thread.join();
  EXPECT_EQ(resumed.load(), 1);
  thread.schedule(&after);
  EXPECT_EQ(discarded.load(), 1);
}
