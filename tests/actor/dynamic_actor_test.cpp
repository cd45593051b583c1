#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "test_support.hpp"

using namespace spate_test;

TEST(event_based_actor, become_switches_behavior) {
  spate::actor_system system(quiet_config());
  auto a = system.spawn([](spate::event_based_actor& self) {
    return spate::behavior{
        [](int x) { return x + 1; },
        [&self](const std::string&) { self.become(spate::behavior{[](int x) { return x * 10; }}); },
    };
  });
  EXPECT_EQ(spate::request<int>(a, 4, 10s).get(), 5);
  spate::send(a, std::string("switch"));
  EXPECT_EQ(spate::request<int>(a, 4, 10s).get(), 40);
}

TEST(event_based_actor, unexpected_message_is_reported_with_its_type_and_fails_requests) {
  std::vector<std::string> reports;
  std::mutex m;
  spate::actor_system_config config = quiet_config();
  config.error_reporter = [&](const std::string& text) {
    std::lock_guard lock(m);
    reports.push_back(text);
  };
  spate::actor_system system(config);
  auto a = system.spawn([](spate::event_based_actor&) { return spate::behavior{[](int) {}}; });
  try {
    spate::request<int>(a, 2.5, 10s).get();
    FAIL() << "expected request_error";
  } catch (const spate::request_error& e) {
    EXPECT_EQ(e.code(), spate::request_error_code::unexpected_message);
    EXPECT_NE(std::string(e.what()).find("double"), std::string::npos) << e.what();
  }
  EXPECT_EQ(system.unexpected_messages(), 1u);
  std::lock_guard lock(m);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NE(reports[0].find("unexpected message of type double"), std::string::npos);
}

TEST(event_based_actor, class_based_with_state) {
  struct accumulator : spate::event_based_actor {
    spate::behavior make_behavior() override {
      return spate::behavior{[this](int x) { sum += x; },
                             [this](const std::string&) { return sum; }};
    }
    long sum = 0;
  };
  spate::actor_system system(quiet_config());
  auto a = system.spawn<accumulator>();
  for (int i = 1; i <= 1000; ++i) spate::send(a, i);
  EXPECT_EQ(spate::request<long>(a, std::string("sum?"), 10s).get(), 500500);
}

TEST(event_based_actor, spawns_children_at_run_time) {
  // Fibonacci by spawning an actor per call (Savina's Fibonacci shape).
  struct fib_actor : spate::event_based_actor {
    explicit fib_actor(spate::actor parent) : parent(std::move(parent)) {}
    spate::behavior make_behavior() override {
      return spate::behavior{[this](int n) -> void {
        if (n < 2) {
          reply(n);
          return;
        }
        for (int k : {n - 1, n - 2}) spate::send(system().spawn<fib_actor>(self()), k);
        become(spate::behavior{[this](long r) {
          sum += r;
          if (++received == 2) reply(sum);
        }});
      }};
    }
    void reply(long v) {
      spate::send(parent, v);
      quit();
    }
    spate::actor parent;
    long sum = 0;
    int received = 0;
  };
  spate::actor_system system(quiet_config());
  spate::scoped_actor self(system);
  spate::send(system.spawn<fib_actor>(spate::actor(self)), 15);
  auto result = self->receive_for<long>(30s);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, 610);
  EXPECT_TRUE(system.await_all_actors_done_for(30s));
}

TEST(blocking_actor, receive_with_timeout_and_handlers) {
  spate::actor_system system(quiet_config());
  std::atomic<int> got{0};
  std::atomic<bool> timed_out{false};
  auto b = system.spawn_blocking([&](spate::blocking_actor& self) {
    timed_out = !self.receive_for(20ms, [](int) {});
    self.receive_for(30s, [&](int x) { got = x; });
  });
  ASSERT_TRUE(eventually([&] { return timed_out.load(); }));
  spate::send(b, 42);
  system.await_all_actors_done();
  EXPECT_EQ(got.load(), 42);
}
