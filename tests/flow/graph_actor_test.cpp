#include <gtest/gtest.h>

#include "flow_test_support.hpp"
#include "spate/actor.hpp"

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
