// The reaction scheduler on the shared pool: waking early for physical actions, stopping from
// outside and at runtime shutdown, errors from reactions, spacing policies and traces.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "spate/reactor.hpp"
#include "spate/exec/runtime.hpp"

namespace {

using namespace spate::reactor;
using namespace std::chrono_literals;

spate::runtime_config workers(std::size_t n) {
  spate::runtime_config config;
  config.scheduler.threads = n;
  config.read_environment = false;
  return config;
}

// A program that waits for a far timer and reacts to a physical action in between.
struct waiter : reactor {
  timer far{this, "far", 1h};
  physical_action<int> poke{this, "poke"};
  std::atomic<int> poked{0};
  std::atomic<bool> far_fired{false}, shut_down{false};
  duration poked_at{};
  std::atomic<bool> on_pool_worker{true};
  explicit waiter(context ctx) : reactor(ctx) {
    reaction("far").triggers(far).body([this] { far_fired = true; });
    reaction("poked").triggers(poke).body([this] {
      poked_at = elapsed_logical_time();
      if (!env().runtime().pool().is_worker_thread()) on_pool_worker = false;
      poked += poke.get();
    });
    reaction("bye").triggers(shutdown).body([this] { shut_down = true; });
  }
};

TEST(ReactionScheduler, PhysicalActionFromAnotherThreadWakesAProgramWaitingForATimer) {
  spate::runtime rt{workers(2)};
  environment env{rt};
  auto& w = env.make_top<waiter>("main");
  env.start();
  std::this_thread::sleep_for(20ms);
  std::thread outside([&] { w.poke.schedule(7); });
  outside.join();
  for (int i = 0; i < 2000 && w.poked.load() == 0; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(w.poked.load(), 7);
  EXPECT_FALSE(w.far_fired.load());
  EXPECT_GE(w.poked_at, 20ms);
  EXPECT_LT(w.poked_at, 1h);
  EXPECT_TRUE(w.on_pool_worker.load()) << "reactions run on the runtime's workers";
  env.request_stop();
  env.wait();
  EXPECT_TRUE(w.shut_down.load());
  EXPECT_FALSE(w.far_fired.load());
}

TEST(ReactionScheduler, RuntimeShutdownStopsARunningProgram) {
  spate::runtime rt{workers(2)};
  environment env{rt, {.keep_alive = true}};
  auto& w = env.make_top<waiter>("main");
  env.start();
  rt.shutdown();
  EXPECT_TRUE(env.is_finished());
  EXPECT_TRUE(w.shut_down.load());
}

struct thrower : reactor {
  timer t{this, "t", 0s, 1ms};
  int ticks = 0;
  bool shutdown_ran = false;
  explicit thrower(context ctx) : reactor(ctx) {
    reaction("tick").triggers(t).body([this] {
      if (++ticks == 3) throw std::runtime_error("tick 3 failed");
    });
    reaction("bye").triggers(shutdown).body([this] { shutdown_ran = true; });
  }
};

TEST(ReactionScheduler, AnExceptionInAReactionStopsTheProgramAndIsRethrownNamed) {
  spate::runtime rt{workers(2)};
  environment env{rt, {.fast = true}};
  auto& t = env.make_top<thrower>("main");
  try {
    env.run();
    FAIL() << "run() returned normally";
  } catch (const reaction_error& e) {
    EXPECT_STREQ(e.what(), "reaction 'main.tick' failed at tag (2 ms, 0): tick 3 failed");
    EXPECT_THROW(std::rethrow_if_nested(e), std::runtime_error);  // the original, nested
  }
  EXPECT_EQ(t.ticks, 3);
  EXPECT_TRUE(t.shutdown_ran);
}

struct spaced : reactor {
  physical_action<int> a;
  std::vector<std::pair<int, duration>> seen;
  spaced(context ctx, spacing_policy policy)
      : reactor(ctx), a{this, "a", {.min_spacing = 50ms, .policy = policy}} {
    reaction().triggers(a).body([this] { seen.emplace_back(a.get(), elapsed_logical_time()); });
  }
};

std::vector<std::pair<int, duration>> schedule_three(spacing_policy policy) {
  spate::runtime rt{workers(2)};
  environment env{rt, {.keep_alive = true}};
  auto& s = env.make_top<spaced>("main", policy);
  env.start();
  s.a.schedule(1);
  s.a.schedule(2);
  s.a.schedule(3);
  std::this_thread::sleep_for(200ms);
  env.request_stop();
  env.wait();
  return s.seen;
}

TEST(ReactionScheduler, MinimumSpacingDefersDropsOrReplaces) {
  auto deferred = schedule_three(spacing_policy::defer);
  ASSERT_EQ(deferred.size(), 3u);
  EXPECT_EQ(deferred[0].first, 1);
  EXPECT_EQ(deferred[2].first, 3);
  EXPECT_GE(deferred[1].second - deferred[0].second, 50ms);
  EXPECT_GE(deferred[2].second - deferred[1].second, 50ms);

  auto dropped = schedule_three(spacing_policy::drop);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].first, 1);

  auto replaced = schedule_three(spacing_policy::replace);
  ASSERT_GE(replaced.size(), 1u);
  EXPECT_EQ(replaced.back().first, 3);
  EXPECT_LE(replaced.size(), 2u);  // 2 and 3 replace each other while pending
}

struct traced_chain : reactor {
  timer t{this, "t", 0s, 1ms};
  output<int> out{this, "out"};
  explicit traced_chain(context ctx) : reactor(ctx) {
    reaction("emit").triggers(t).effects(out).body([](port_writer<int>& out) { out.set(1); });
  }
};

TEST(ReactionScheduler, TraceIsChromeTraceEventJson) {
  spate::runtime rt{workers(2)};
  environment env{rt, {.fast = true, .timeout = 4ms, .trace = true}};
  env.make_top<traced_chain>("main");
  env.run();
  std::string json = env.trace_json();
  EXPECT_EQ(json.rfind("{\"traceEvents\":[", 0), 0u) << json;
  EXPECT_NE(json.find("\"name\":\"main.emit\",\"ph\":\"X\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"ph\":\"i\""), std::string::npos) << json;
  std::size_t reactions = 0;
  for (std::size_t at = json.find("main.emit"); at != std::string::npos;
       at = json.find("main.emit", at + 1))
    ++reactions;
  EXPECT_EQ(reactions, 5u);  // ticks at 0, 1, 2, 3 and 4 ms
}

}  // namespace
