#include <gtest/gtest.h>

#include <atomic>

#include "test_support.hpp"

using namespace spate_test;

namespace {
struct ball {
  std::uint64_t hits;
};
struct player : spate::typed_actor<player, ball, spate::actor_ref<player>> {
  void on(spate::actor_ref<player>& p) { peer = p; }
  void on(ball& b) { spate::send(peer, ball{b.hits + 1}); }
  void on_stop() { peer = nullptr; }  // break the player <-> player cycle
  spate::actor_ref<player> peer;
};
}  // namespace

TEST(shutdown, stops_busy_actors_over_many_cycles) {
  for (int cycle = 0; cycle < 100; ++cycle) {
    spate::actor_system system(quiet_config());
    std::vector<spate::actor_ref<player>> players;
    for (int i = 0; i < 8; ++i) players.push_back(system.spawn<player>());
    for (int i = 0; i < 8; i += 2) {
      spate::send(players[i], players[i + 1]);
      spate::send(players[i + 1], players[i]);
      spate::send(players[i], ball{0});  // ping-pong forever
    }
    auto blocker = system.spawn_blocking([](spate::blocking_actor& self) {
      for (;;) self.receive<int>();  // ends by actor_exited at shutdown
    });
    system.shutdown();
    for (auto& p : players) EXPECT_TRUE(p.is_terminated());
    EXPECT_TRUE(blocker.is_terminated());
    EXPECT_EQ(system.running_actors(), 0u);
  }
}

TEST(shutdown, await_all_actors_done_waits_for_natural_termination) {
  spate::actor_system system(quiet_config());
  std::atomic<int> handled{0};
  for (int i = 0; i < 20; ++i) {
    auto a = system.spawn([&handled](spate::event_based_actor& self) {
      return spate::behavior{[&handled, &self](int) {
        handled.fetch_add(1);
        self.quit();
      }};
    });
    spate::send(a, i);
  }
  system.await_all_actors_done();
  EXPECT_EQ(handled.load(), 20);
  EXPECT_EQ(system.running_actors(), 0u);
}

TEST(shutdown, spawning_after_shutdown_is_an_error) {
  spate::actor_system system(quiet_config());
  system.shutdown();
  EXPECT_THROW(system.spawn<player>(), std::logic_error);
}

TEST(shutdown, messages_pending_at_shutdown_are_counted_not_lost_silently) {
  struct slow : spate::typed_actor<slow, int> {
    explicit slow(std::atomic<int>* handled) : handled(handled) {}
    void on(int&) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      handled->fetch_add(1);
    }
    std::atomic<int>* handled;
  };
  std::atomic<int> handled{0};
  spate::actor_system system(quiet_config());
  auto s = system.spawn<slow>(&handled);
  for (int i = 0; i < 2000; ++i) spate::send(s, i);
  system.shutdown();
  // Every message was either handled or counted as a dead letter; none vanished.
  EXPECT_GT(system.dead_letters(), 0u);
  EXPECT_EQ(handled.load() + system.dead_letters(), 2000u);
}
