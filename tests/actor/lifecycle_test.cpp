#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>

#include "test_support.hpp"

using namespace spate_test;

namespace {
struct fail_now {};
struct ping {};
struct fragile : spate::typed_actor<fragile, fail_now, ping> {
  void on(fail_now&) { throw std::runtime_error("sensor offline"); }
  int on(ping&) { return 1; }
};

struct watch {
  spate::actor target;
  bool link;
};
struct query {};
struct observation {
  int exits = 0;
  int downs = 0;
  std::string last_reason;
};
// Links to or monitors a target and records what it is told.
struct watcher : spate::typed_actor<watcher, watch, query> {
  explicit watcher(bool trap) : trap(trap) {}
  void on_start() {
    if (trap) {
      set_exit_handler([this](spate::exit_msg& m) {
        ++seen.exits;
        seen.last_reason = spate::to_string(m.reason);
      });
    }
    set_down_handler([this](spate::down_msg& m) {
      ++seen.downs;
      seen.last_reason = spate::to_string(m.reason);
    });
  }
  void on(watch& w) {
    if (w.link) {
      link_to(w.target);
    } else {
      monitor(w.target);
    }
  }
  observation on(query&) { return seen; }
  bool trap;
  observation seen;
};
}  // namespace

TEST(lifecycle, exception_terminates_the_actor_and_is_reported) {
  std::mutex m;
  std::vector<std::string> reports;
  auto config = quiet_config();
  config.error_reporter = [&](const std::string& s) {
    std::lock_guard lock(m);
    reports.push_back(s);
  };
  spate::actor_system system(config);
  auto f = system.spawn_with<fragile>(
      spate::spawn_options{.name = "thermometer", .detached = false, .pin_to_cpu = {}});
  spate::send(f, fail_now{});
  ASSERT_TRUE(eventually([&] { return f.is_terminated(); }));
  std::lock_guard lock(m);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NE(reports[0].find("thermometer"), std::string::npos);
  EXPECT_NE(reports[0].find("sensor offline"), std::string::npos);
}

TEST(lifecycle, monitor_receives_down_with_the_reason) {
  spate::actor_system system(quiet_config());
  auto f = system.spawn<fragile>();
  auto w = system.spawn<watcher>(false);
  spate::send(w, watch{f, false});
  EXPECT_EQ(spate::request(f, ping{}, 10s).get(), 1);
  // The watch message is handled before the query below (same sender, FIFO).
  spate::request(w, query{}, 10s).get();
  spate::send(f, fail_now{});
  ASSERT_TRUE(eventually([&] { return spate::request(w, query{}, 10s).get().downs == 1; }));
  auto seen = spate::request(w, query{}, 10s).get();
  EXPECT_NE(seen.last_reason.find("unhandled_exception"), std::string::npos);
  EXPECT_NE(seen.last_reason.find("sensor offline"), std::string::npos);
  EXPECT_FALSE(w.is_terminated());
}

TEST(lifecycle, error_exit_propagates_along_links) {
  spate::actor_system system(quiet_config());
  auto f = system.spawn<fragile>();
  auto w1 = system.spawn<watcher>(false);
  auto w2 = system.spawn<watcher>(false);
  spate::send(w1, watch{f, true});
  spate::send(w2, watch{w1, true});  // chain: f - w1 - w2
  spate::request(w1, query{}, 10s).get();
  spate::request(w2, query{}, 10s).get();
  spate::send(f, fail_now{});
  ASSERT_TRUE(eventually([&] { return w1.is_terminated() && w2.is_terminated(); }));
}

TEST(lifecycle, exit_handler_traps_the_exit) {
  spate::actor_system system(quiet_config());
  auto f = system.spawn<fragile>();
  auto w = system.spawn<watcher>(true);
  spate::send(w, watch{f, true});
  spate::request(w, query{}, 10s).get();
  spate::send(f, fail_now{});
  ASSERT_TRUE(eventually([&] { return spate::request(w, query{}, 10s).get().exits == 1; }));
  EXPECT_FALSE(w.is_terminated());
}

TEST(lifecycle, normal_exit_does_not_kill_linked_actors) {
  spate::actor_system system(quiet_config());
  auto quitter = system.spawn([](spate::event_based_actor& self) {
    return spate::behavior{[&self](int) { self.quit(); }};
  });
  auto w = system.spawn<watcher>(false);
  spate::send(w, watch{quitter, true});
  spate::request(w, query{}, 10s).get();
  spate::send(quitter, 1);
  ASSERT_TRUE(eventually([&] { return quitter.is_terminated(); }));
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(w.is_terminated());
}

TEST(lifecycle, linking_to_a_dead_actor_delivers_the_exit_at_once) {
  spate::actor_system system(quiet_config());
  auto f = system.spawn<fragile>();
  spate::send(f, fail_now{});
  ASSERT_TRUE(eventually([&] { return f.is_terminated(); }));
  auto w = system.spawn<watcher>(false);
  spate::send(w, watch{f, true});
  ASSERT_TRUE(eventually([&] { return w.is_terminated(); }));
}

// Threads of ended blocking and detached actors are joined and freed while the program
// runs, not kept until shutdown.
TEST(lifecycle, threads_of_ended_actors_do_not_pile_up) {
  spate::runtime rt(quiet_config());
  spate::actor_system system(rt);
  for (int i = 0; i < 50; ++i) {
    auto b = system.spawn_blocking([](spate::blocking_actor&) {});
    ASSERT_TRUE(eventually([&] { return b.is_terminated(); }));
  }
  // Each spawn joins the ended ones before it: a few at most remain (the last may still be
  // leaving its function).
  EXPECT_LE(system.blocking_thread_count(), 2u);

  struct detached_worker : spate::typed_actor<detached_worker, int> {
    void on(int&) { quit(); }
  };
  for (int i = 0; i < 50; ++i) {
    spate::spawn_options options;
    options.detached = true;
    auto d = system.spawn_with<detached_worker>(options);
    spate::send(d, 1);
    ASSERT_TRUE(eventually([&] { return d.is_terminated(); }));
  }
  EXPECT_LE(rt.dedicated_thread_count(), 2u);
  rt.shutdown();  // joins the rest
  EXPECT_EQ(rt.dedicated_thread_count(), 0u);
}
