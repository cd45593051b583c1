#include "spate/exec/runtime.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "spate/actor.hpp"
#include "spate/flow.hpp"

using namespace std::chrono_literals;

TEST(runtime_config, order_of_settings_does_not_matter) {
  const char* polling_last[] = {"prog", "--spate.park-timeout-us=500", "--spate.polling=default",
                                "--spate.aggressive-attempts=7"};
  const char* polling_first[] = {"prog", "--spate.polling=default", "--spate.aggressive-attempts=7",
                                 "--spate.park-timeout-us=500"};
  spate::scheduler_config a, b;
  a.apply_command_line(4, polling_last);
  b.apply_command_line(4, polling_first);
  EXPECT_EQ(a.park_timeout.count(), 500);
  EXPECT_EQ(b.park_timeout.count(), 500);
  EXPECT_EQ(a.aggressive.attempts, 7u);
  EXPECT_EQ(b.aggressive.attempts, 7u);
}

TEST(runtime, applies_environment_then_command_line_over_the_program_config) {
  setenv("SPATE_THREADS", "3", 1);
  setenv("SPATE_TASK_BUDGET", "17", 1);
  const char* argv[] = {"prog", "input.txt", "--spate.threads=2"};
  std::vector<std::string> rest;
  auto config = spate::runtime_config::from_command_line(3, argv, &rest);
  config.scheduler.threads = 1;
  config.scheduler.task_budget = 5;
  spate::runtime rt(config);
  unsetenv("SPATE_THREADS");
  unsetenv("SPATE_TASK_BUDGET");
  EXPECT_EQ(rt.pool().size(), 2u);                    // command line beats environment
  EXPECT_EQ(rt.config().scheduler.task_budget, 17u);  // environment beats the program
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0], "input.txt");
}

TEST(runtime, environment_reaches_an_actor_system_and_a_graph_built_without_one) {
  setenv("SPATE_THREADS", "3", 1);
  {
    spate::actor_system system;
    EXPECT_EQ(system.pool().size(), 3u);
  }
  unsetenv("SPATE_THREADS");
}

TEST(runtime, a_bad_setting_names_the_key) {
  spate::runtime_config config;
  config.command_line = {{"threads", "lots"}};
  try {
    spate::runtime rt(config);
    FAIL() << "expected config_error";
  } catch (const spate::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("'threads'"), std::string::npos) << e.what();
  }
}

namespace {
struct where : spate::typed_actor<where, int> {
  void on(int&) { on_pool->store(system().pool().is_worker_thread()); }
  std::atomic<bool>* on_pool = nullptr;
};
}  // namespace

TEST(runtime, actors_and_graphs_share_one_pool) {
  spate::runtime_config config;
  config.scheduler.threads = 2;
  spate::runtime rt(config);
  spate::actor_system actors(rt);
  EXPECT_EQ(&actors.pool(), &rt.pool());
  std::atomic<bool> actor_on_pool{false};
  auto a = actors.spawn<where>();
  a.get()->on_pool = &actor_on_pool;
  spate::send(a, 1);
  std::atomic<int> node_on_pool{0};
  spate::flow::graph g(
      spate::flow::pipeline(spate::flow::generate<int>(100, [](std::size_t i) { return int(i); }),
                            spate::flow::sink([&](int&) {
                              node_on_pool.fetch_add(rt.pool().is_worker_thread() ? 1 : 0);
                            })));
  g.run(rt);
  EXPECT_EQ(node_on_pool.load(), 100);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!actor_on_pool.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(actor_on_pool.load());
}

TEST(runtime, shutdown_stops_attached_models_first_then_timers) {
  spate::runtime_config config;
  config.scheduler.threads = 2;
  config.error_reporter = [](const std::string&) {};
  spate::runtime rt(config);
  spate::actor_system actors(rt);
  auto a = actors.spawn<where>();
  std::atomic<int> fired{0};
  rt.timers().schedule_after(10s, [&] { fired = 1; });
  rt.shutdown();
  EXPECT_TRUE(a.is_terminated());        // step 1: the actor system stopped its actors
  EXPECT_EQ(rt.timers().pending(), 0u);  // step 2: pending timers cancelled
  EXPECT_EQ(fired.load(), 0);
  EXPECT_THROW(actors.spawn<where>(), std::logic_error);
  EXPECT_TRUE(rt.is_shut_down());
  rt.shutdown();  // idempotent
}

namespace {
struct shutter : spate::typed_actor<shutter, int> {
  void on(int&) {
    try {
      system().shutdown();
    } catch (const std::logic_error& e) {
      error->store(true);
      system().request_shutdown();
    }
  }
  std::atomic<bool>* error = nullptr;
};
}  // namespace

TEST(runtime, shutdown_from_inside_an_actor_is_refused_and_request_shutdown_works) {
  spate::actor_system_config config;
  config.scheduler.threads = 2;
  config.error_reporter = [](const std::string&) {};
  spate::actor_system system(config);
  std::atomic<bool> refused{false};
  auto a = system.spawn<shutter>();
  a.get()->error = &refused;
  spate::send(a, 1);
  EXPECT_TRUE(system.await_all_actors_done_for(10s));
  EXPECT_TRUE(refused.load());
  EXPECT_TRUE(a.is_terminated());
}

TEST(runtime, dedicated_threads_are_joined_at_shutdown) {
  spate::runtime rt;
  auto& thread = rt.start_dedicated_thread("test-thread");
  EXPECT_FALSE(thread.is_current_thread());
  rt.shutdown();
  EXPECT_THROW(rt.start_dedicated_thread("late"), std::logic_error);
}
