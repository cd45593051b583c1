#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "test_support.hpp"

using namespace spate_test;

namespace {

struct tagged {
  std::uint32_t sender;
  std::uint32_t sequence;
};
struct get_total {};
struct report {
  std::uint64_t total;
  bool in_order;
};

// Checks FIFO order per sender and counts everything it receives.
struct order_checker : spate::typed_actor<order_checker, tagged, get_total> {
  explicit order_checker(std::size_t senders) : next(senders, 0) {}
  void on(tagged& m) {
    if (m.sequence != next[m.sender]) in_order = false;
    next[m.sender] = m.sequence + 1;
    ++total;
  }
  report on(get_total&) { return {total, in_order}; }
  std::vector<std::uint32_t> next;
  std::uint64_t total = 0;
  bool in_order = true;
};

struct hop {
  std::uint32_t left;
};
struct relay : spate::typed_actor<relay, hop, spate::actor> {
  void on(spate::actor& n) { next = n; }
  void on(hop& h) {
    if (h.left == 0) {
      done->fetch_add(1);
    } else {
      spate::send(next, hop{h.left - 1});
    }
  }
  void on_stop() { next = nullptr; }  // the ring is a cycle of handles
  spate::actor next;
  std::atomic<int>* done = nullptr;
};

}  // namespace

TEST(typed_actor, keeps_per_sender_order_and_loses_nothing_under_contention) {
  spate::actor_system system(quiet_config());
  constexpr std::uint32_t senders = 4, per_sender = 100'000;
  auto checker = system.spawn<order_checker>(senders);
  std::vector<std::thread> threads;
  for (std::uint32_t s = 0; s < senders; ++s) {
    threads.emplace_back([&, s] {
      for (std::uint32_t i = 0; i < per_sender; ++i) spate::send(checker, tagged{s, i});
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(eventually([&] { return checker.mailbox_size() == 0; }));
  report r = spate::request(checker, get_total{}, 30s).get();
  EXPECT_EQ(r.total, std::uint64_t(senders) * per_sender);
  EXPECT_TRUE(r.in_order);
}

TEST(typed_actor, actors_sending_to_actors_on_the_pool) {
  spate::actor_system system(quiet_config());
  std::atomic<int> done{0};
  constexpr int ring_size = 50;
  std::vector<spate::actor_ref<relay>> ring;
  for (int i = 0; i < ring_size; ++i) {
    ring.push_back(system.spawn<relay>());
    ring.back().get()->done = &done;  // before any message: set-up only
  }
  for (int i = 0; i < ring_size; ++i) spate::send(ring[i], spate::actor(ring[(i + 1) % ring_size]));
  for (int i = 0; i < 10; ++i) spate::send(ring[i], hop{10'000});
  ASSERT_TRUE(eventually([&] { return done.load() == 10; }));
}

TEST(typed_actor, untyped_handle_converts_at_run_time_or_reports_unexpected) {
  spate::actor_system system(quiet_config());
  auto checker = system.spawn<order_checker>(1);
  spate::actor untyped = checker;
  spate::send(untyped, tagged{0, 0});
  spate::send(untyped, std::string("not accepted"));
  ASSERT_TRUE(eventually([&] { return system.unexpected_messages() == 1; }));
  report r = spate::request(checker, get_total{}, 10s).get();
  EXPECT_EQ(r.total, 1u);
}

TEST(typed_actor, high_priority_overtakes_queued_normal_messages) {
  struct normal_msg {
    int v;
  };
  struct urgent_msg {
    int v;
  };
  struct gate {};
  struct recorder : spate::typed_actor<recorder, gate, normal_msg, urgent_msg> {
    void on(gate&) {
      entered->store(true);
      while (!open->load()) std::this_thread::yield();
    }
    void on(normal_msg& m) { seen->push_back(m.v); }
    void on(urgent_msg& m) { seen->push_back(-m.v); }
    std::atomic<bool>* open = nullptr;
    std::atomic<bool>* entered = nullptr;
    std::vector<int>* seen = nullptr;
  };
  spate::actor_system system(quiet_config());
  std::atomic<bool> open{false};
  std::atomic<bool> entered{false};
  std::vector<int> seen;
  auto r = system.spawn<recorder>();
  r.get()->open = &open;
  r.get()->seen = &seen;
  r.get()->entered = &entered;
  spate::send(r, gate{});
  const bool busy = eventually([&] { return entered.load(); });
  if (!busy) open = true;  // let shutdown finish before failing
  ASSERT_TRUE(busy);
  for (int i = 1; i <= 5; ++i) spate::send(r, normal_msg{i});
  spate::send(spate::message_priority::high, r, urgent_msg{1});
  open = true;
  ASSERT_TRUE(eventually([&] { return r.mailbox_size() == 0; }));
  system.shutdown();  // joins: `seen` is stable now
  EXPECT_EQ(seen, (std::vector<int>{-1, 1, 2, 3, 4, 5}));
}

TEST(typed_actor, detached_actor_runs_on_its_own_thread) {
  struct where {};
  struct probe : spate::typed_actor<probe, where> {
    std::thread::id on(where&) { return std::this_thread::get_id(); }
  };
  spate::actor_system system(quiet_config());
  spate::spawn_options options;
  options.detached = true;
  auto detached = system.spawn_with<probe>(options);
  auto pooled = system.spawn<probe>();
  const auto detached_thread = spate::request(detached, where{}, 10s).get();
  for (int i = 0; i < 20; ++i) {
    EXPECT_NE(spate::request(pooled, where{}, 10s).get(), detached_thread);
    EXPECT_EQ(spate::request(detached, where{}, 10s).get(), detached_thread);
  }
}
