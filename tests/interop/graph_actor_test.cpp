#include <gtest/gtest.h>

#include "../actor/test_support.hpp"
#include "../flow/flow_test_support.hpp"
#include "spate/actor.hpp"
#include "spate/interop/graph_actor.hpp"

using namespace flow_test;

TEST(graph_actor, actors_feed_a_graph_and_receive_its_output) {
  spate::actor_system_config config;
  config.scheduler.threads = 2;
  spate::actor_system system(config);
  spate::scoped_actor self(system);
  auto squares =
      flow::spawn_graph(system,
                        flow::pipeline(flow::farm(flow::map([](int& x) { return long(x) * x; }), 3),
                                       flow::filter([](const long& x) { return x % 2 == 0; })),
                        spate::actor(self));
  // Two independent senders (an actor and this thread) feed it.
  auto feeder = system.spawn([squares](spate::event_based_actor& me) {
    return spate::behavior{[squares, &me](int n) {
      for (int i = 1000; i < 1000 + n; ++i) spate::send(squares, i);
      me.quit();
    }};
  });
  spate::send(feeder, 1000);
  for (int i = 0; i < 1000; ++i) spate::send(squares, i);
  system.await_all_actors_done_for(std::chrono::seconds(0));
  // The feeder finishes before the end of stream is sent.
  while (!feeder.is_terminated()) std::this_thread::yield();
  spate::send(squares, flow::end_of_stream{});
  long sum = 0;
  int count = 0;
  bool ended = false;
  while (!ended) {
    ASSERT_TRUE(self->receive_for(
        std::chrono::seconds(30),
        [&](long v) {
          sum += v;
          ++count;
        },
        [&](flow::end_of_stream&) { ended = true; }));
  }
  long expected = 0;
  int expected_count = 0;
  for (long i = 0; i < 2000; ++i) {
    if ((i * i) % 2 == 0) {
      expected += i * i;
      ++expected_count;
    }
  }
  EXPECT_EQ(count, expected_count);
  EXPECT_EQ(sum, expected);
  EXPECT_TRUE(system.await_all_actors_done_for(std::chrono::seconds(30)));
}

TEST(graph_actor, a_failing_node_terminates_the_actor_with_a_reason_naming_it) {
  spate::actor_system_config config;
  config.scheduler.threads = 2;
  std::atomic<int> reports{0};
  config.error_reporter = [&](const std::string& text) {
    if (text.find("bad item") != std::string::npos) reports.fetch_add(1);
  };
  spate::actor_system system(config);
  spate::scoped_actor self(system);
  auto g = flow::spawn_graph(system, flow::pipeline(flow::map([](int& x) {
                                                      if (x == 3)
                                                        throw std::runtime_error("bad item");
                                                      return x;
                                                    }).named("checker")),
                             spate::actor(self));
  std::atomic<bool> down{false};
  std::string reason;
  auto watcher = system.spawn([g, &down, &reason](spate::event_based_actor& me) {
    me.monitor(g);
    me.set_down_handler([&down, &reason, &me](spate::down_msg& m) {
      reason = m.reason.message;
      down = true;
      me.quit();
    });
    return spate::behavior{[](int) {}};
  });
  spate::send(watcher, 0);  // let it run its set-up before the failure
  for (int i = 0; i < 10; ++i) spate::send(g, i);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!down.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(down.load()) << "the graph actor did not terminate";
  EXPECT_NE(reason.find("checker"), std::string::npos) << reason;
  EXPECT_NE(reason.find("bad item"), std::string::npos) << reason;
  EXPECT_EQ(reports.load(), 1);
  EXPECT_TRUE(g.is_terminated());
  const auto before = system.dead_letters();
  spate::send(g, 42);  // later items are dead letters, not a pile-up
  EXPECT_EQ(system.dead_letters(), before + 1);
}

TEST(graph_actor, input_is_bounded_and_the_backlog_shows_in_mailbox_size) {
  spate::actor_system_config config;
  config.scheduler.threads = 2;
  spate::actor_system system(config);
  spate::scoped_actor self(system);
  std::atomic<bool> gate_open{false};
  flow::graph_options options;
  options.links.capacity = 8;
  auto g = flow::spawn_graph(system, flow::map([&](int& x) {
                               while (!gate_open.load()) std::this_thread::yield();
                               return x;
                             }),
                             spate::actor(self), options);
  constexpr int items = 1000;
  for (int i = 0; i < items; ++i) spate::send(g, i);
  // The graph holds at most its input ring, one edge and the item in the closed gate; the
  // rest stays in the mailbox, and mailbox_size() counts mailbox and ring alike.
  const std::size_t in_graph_at_most = 8 + 8 + 1;
  ASSERT_TRUE(spate_test::eventually([&] { return g.mailbox_size() <= std::size_t(items); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_GE(g.mailbox_size(), items - in_graph_at_most);
  EXPECT_LE(g.mailbox_size(), std::size_t(items));
  spate::send(g, flow::end_of_stream{});
  gate_open = true;
  int next = 0;
  bool ended = false;
  while (!ended) {
    ASSERT_TRUE(self->receive_for(
        std::chrono::seconds(30), [&](int v) { EXPECT_EQ(v, next++); },
        [&](flow::end_of_stream&) { ended = true; }));
  }
  EXPECT_EQ(next, items);
  EXPECT_TRUE(system.await_all_actors_done_for(std::chrono::seconds(30)));
  EXPECT_EQ(system.dead_letters(), 0u);
}
