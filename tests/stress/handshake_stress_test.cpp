// The stress harness: every wake-up handshake of spate, run many times with random yields
// and sleeps injected between publish and re-check (platform/stress_point.hpp; active in
// builds configured with SPATE_STRESS_HOOKS=ON, the tsan and stress presets).
//
// A lost wake-up shows up as a stall: work published, nobody running to take it. The
// worker pools here park with a one-minute safety timeout, so a lost wake-up is not hidden
// by a periodic wake; a watchdog fails the test when a round makes no progress in time.
//
// Rounds: SPATE_STRESS_ROUNDS (default 1 for CI; the long run in docs/runtime.md uses 200).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "../actor/test_support.hpp"
#include "../exec/link_consumers.hpp"
#include "../faults/fault_helpers.hpp"
#include "spate/actor.hpp"
#include "spate/exec/dedicated_thread.hpp"
#include "spate/exec/detail/parking_event.hpp"
#include "spate/exec/link.hpp"
#include "spate/exec/waiter.hpp"
#include "spate/exec/wake_handshake.hpp"
#include "spate/exec/worker_pool.hpp"
#include "spate/flow.hpp"
#include "spate/flow/wake_timer.hpp"
#include "spate/interop/graph_actor.hpp"
#include "spate/memory/multicast_envelope.hpp"
#include "spate/platform/stress_point.hpp"
#include "spate/reactor.hpp"
#include "spate/state/keyed.hpp"

using namespace std::chrono_literals;

namespace {

int rounds() {
  const char* text = std::getenv("SPATE_STRESS_ROUNDS");
  return text != nullptr ? std::max(1, std::atoi(text)) : 1;
}

// Injection on for the test's duration.
struct inject_delays {
  bool previous = spate::set_stress_injection(true);
  ~inject_delays() { spate::set_stress_injection(previous); }
};

// The watchdog: runs a round's body on a thread of its own and ends the process when it has
// not returned in time (a lost wake-up; the stuck body cannot be cancelled).
using spate::test::within;

spate::scheduler_config no_safety_net(std::size_t threads) {
  auto c = spate::scheduler_config::default_preset();
  c.threads = threads;
  c.park_timeout = std::chrono::microseconds(60'000'000);
  // Park soon, so that nearly every hand-off goes through the park/wake path.
  c.aggressive.attempts = 2;
  c.moderate.attempts = 1;
  return c;
}

// A runtime on exactly that pool (the SPATE_* environment does not apply): graphs run only
// on a runtime.
spate::runtime_config runtime_without_safety_net(std::size_t threads) {
  spate::runtime_config c;
  c.scheduler = no_safety_net(threads);
  c.read_environment = false;
  return c;
}

// ---- activation: notify / go_idle ---------------------------------------------------------

// A unit whose work is a counter that producers raise; each activation takes what is there.
struct counting_unit final : spate::task {
  spate::executor* executor = nullptr;
  spate::wake_handshake activation;
  std::atomic<std::uint64_t> published{0};
  std::uint64_t taken = 0;  // only the running activation
  std::atomic<std::uint64_t> taken_total{0};

  void produce() {
    published.fetch_add(1, std::memory_order_release);
    if (activation.notify()) executor->schedule(this);
  }
  spate::resume_result resume(std::size_t) override {
    taken = published.load(std::memory_order_acquire);
    taken_total.store(taken, std::memory_order_release);
    spate::stress_point();  // "work": producers publish more before this activation idles
    const std::uint64_t seen = taken;
    return activation.go_idle([&] { return published.load(std::memory_order_acquire) != seen; })
               ? spate::resume_result::resume_later
               : spate::resume_result::awaiting;
  }
};

}  // namespace

TEST(stress, activation_notify_racing_go_idle_never_strands_work) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "activation notify/go_idle", [] {
      spate::worker_pool pool(no_safety_net(2));
      counting_unit unit;
      unit.executor = &pool;
      pool.schedule(&unit);  // the first activation (the unit starts scheduled)
      // Many short bursts: the end of each burst is a chance for the last notify to land
      // while the unit is still running, which only the re-check after idle can catch.
      constexpr int bursts = 3'000, producers = 2, per_burst = 4;
      std::uint64_t total = 0;
      for (int b = 0; b < bursts; ++b) {
        std::vector<std::thread> threads;
        for (int p = 0; p < producers; ++p) {
          threads.emplace_back([&] {
            for (int i = 0; i < per_burst; ++i) unit.produce();
          });
        }
        for (auto& t : threads) t.join();
        total += producers * per_burst;
        while (unit.taken_total.load(std::memory_order_acquire) != total) {
          std::this_thread::yield();
        }
      }
      // Stop only once the unit is idle for good (its last go_idle returned).
      while (unit.activation.current() != spate::wake_handshake::state::idle) {
        std::this_thread::yield();
      }
      pool.stop();
    });
  }
}

// ---- parking_event: notify / wait_for -----------------------------------------------------

TEST(stress, parking_event_never_loses_a_notify) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "parking_event ping-pong", [] {
      spate::parking_event to_consumer, to_producer;
      std::atomic<int> value{0};
      constexpr int exchanges = 20'000;
      std::thread consumer([&] {
        for (int i = 1; i <= exchanges; ++i) {
          while (value.load(std::memory_order_relaxed) != i) to_consumer.wait();
          to_producer.notify();
        }
      });
      for (int i = 1; i <= exchanges; ++i) {
        value.store(i, std::memory_order_relaxed);
        to_consumer.notify();
        // A notified return must show what the notifier wrote before notify().
        while (!to_producer.wait_for(std::chrono::nanoseconds::max())) {
        }
      }
      consumer.join();
      EXPECT_EQ(value.load(), exchanges);
    });
  }
}

// ---- waiter: a thread's prepare / re-check / commit ---------------------------------------

// Delays land between W1 and W3 (the waiter's publish and re-check) and between the
// notifier's publish and N2. A lost wake-up leaves the waiter asleep with its condition true.
TEST(stress, waiter_never_sleeps_through_its_condition) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "waiter ping-pong", [] {
      spate::waiter to_consumer, to_producer;
      std::atomic<int> value{0}, acked{0};
      constexpr int exchanges = 20'000;
      std::thread consumer([&] {
        for (int i = 1; i <= exchanges; ++i) {
          to_consumer.wait_until([&] { return value.load(std::memory_order_acquire) >= i; });
          acked.store(i, std::memory_order_release);
          to_producer.notify();
        }
      });
      for (int i = 1; i <= exchanges; ++i) {
        value.store(i, std::memory_order_release);
        to_consumer.notify();
        to_producer.wait_until([&] { return acked.load(std::memory_order_acquire) >= i; });
      }
      consumer.join();
      EXPECT_EQ(acked.load(), exchanges);
    });
  }
}

// Many notifiers, one waiter that counts: every published increment is eventually seen.
TEST(stress, waiter_with_many_notifiers_sees_every_publish) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "waiter with four notifiers", [] {
      spate::waiter w;
      std::atomic<int> published{0};
      constexpr int per_thread = 5'000;
      std::vector<std::thread> notifiers;
      for (int t = 0; t < 4; ++t) {
        notifiers.emplace_back([&] {
          for (int i = 0; i < per_thread; ++i) {
            published.fetch_add(1, std::memory_order_release);
            w.notify();
          }
        });
      }
      for (int seen = 1; seen <= 4 * per_thread; seen += 97) {
        w.wait_until([&] { return published.load(std::memory_order_acquire) >= seen; });
      }
      w.wait_until([&] { return published.load(std::memory_order_acquire) == 4 * per_thread; });
      for (auto& t : notifiers) t.join();
    });
  }
}

namespace {
struct counted_task final : spate::task {
  std::atomic<int>* resumed = nullptr;
  std::atomic<int>* discarded = nullptr;
  spate::resume_result resume(std::size_t) override {
    resumed->fetch_add(1, std::memory_order_relaxed);
    return spate::resume_result::done;
  }
  void discard() noexcept override { discarded->fetch_add(1, std::memory_order_relaxed); }
};
}  // namespace

// A dedicated thread ending while tasks are scheduled on it: each task either runs or is
// discarded, never left in the queue (dedicated_thread.hpp: finished vs schedule).
TEST(stress, dedicated_thread_ending_under_schedule_runs_or_discards_every_task) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "dedicated thread stop racing schedule", [] {
      for (int k = 0; k < 200; ++k) {
        std::atomic<int> resumed{0}, discarded{0};
        std::vector<counted_task> tasks(50);
        {
          spate::dedicated_thread thread("stress");
          std::thread scheduler([&] {
            for (auto& t : tasks) {
              t.resumed = &resumed;
              t.discarded = &discarded;
              thread.schedule(&t);
            }
          });
          thread.stop();
          scheduler.join();
        }
        EXPECT_EQ(resumed.load() + discarded.load(), 50);
      }
    });
  }
}

// A periodic timer re-armed while another worker keeps a far deadline (worker_pool.hpp,
// timers step 4): its ticks keep coming.
TEST(stress, periodic_timer_rearm_reaches_the_keeper) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "periodic timer beside a far deadline", [] {
      spate::scheduler_config config;
      config.threads = 2;
      spate::worker_pool pool(config);
      pool.add_timer(spate::timer_queue::clock::now() + 1h, [] {});
      std::atomic<int> ticks{0};
      const auto id = pool.add_timer(
          spate::timer_queue::clock::now() + 1ms, [&] { ticks.fetch_add(1); }, 1ms);
      while (ticks.load() < 200) std::this_thread::sleep_for(1ms);
      pool.cancel_timer(id);
    });
  }
}

// ---- worker pool: park / wake from outside and inside ------------------------------------

namespace {
struct hop_task final : spate::task {
  spate::worker_pool* pool = nullptr;
  std::atomic<int>* remaining = nullptr;
  int hops = 0;
  spate::resume_result resume(std::size_t) override {
    if (--hops > 0) {
      pool->schedule(this);  // from a worker: the LIFO slot, waking a thief if needed
      return spate::resume_result::awaiting;
    }
    remaining->fetch_sub(1, std::memory_order_acq_rel);
    return spate::resume_result::done;
  }
};
}  // namespace

TEST(stress, worker_pool_wakes_parked_workers_for_outside_and_stolen_work) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "worker park/wake", [] {
      spate::worker_pool pool(no_safety_net(3));  // more workers than cores
      constexpr int tasks = 4'000;
      std::vector<hop_task> work(tasks);
      std::atomic<int> remaining{tasks};
      for (int i = 0; i < tasks; ++i) {
        work[i].pool = &pool;
        work[i].remaining = &remaining;
        work[i].hops = 1 + i % 7;
        pool.schedule(&work[i]);  // from outside: inbox of a parked or running worker
        if (i % 16 == 0) std::this_thread::sleep_for(20us);  // let workers park in between
      }
      while (remaining.load(std::memory_order_acquire) != 0) std::this_thread::sleep_for(100us);
      pool.stop();
    });
  }
}

// ---- link: items and end-of-stream one way, room the other (exec/link.hpp) ---------------

// A reader-thread producer (waiter end) and a task consumer (unit end) through a two-slot
// link, delays injected between every publish and re-check: every item arrives, in order,
// and the end of stream finishes the consumer.
TEST(stress, link_from_a_thread_to_a_task_loses_nothing_and_ends) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "link thread -> task", [] {
      spate::worker_pool pool(no_safety_net(2));
      spate::waiter room;
      spate::link<int> l({.capacity = 2, .notify_batch = 3}, &room);
      spate_test::link_draining_unit consumer(l);
      consumer.set_executor(&pool);
      l.set_consumer(&consumer);
      pool.schedule(&consumer);
      constexpr int n = 20'000;
      for (int i = 0; i < n; ++i) ASSERT_TRUE(l.push_waiting_for_room(i, [] { return false; }));
      l.close();
      while (!consumer.done.load(std::memory_order_acquire)) std::this_thread::sleep_for(100us);
      EXPECT_EQ(consumer.got, spate_test::zero_to(n));
      pool.stop();
    });
  }
}

// Markers (link M1..M3) from a thread to a task, with delays between each post and the
// consumer's re-check: every marker posted is met at its position, nothing is lost.
TEST(stress, link_markers_from_a_thread_are_all_met_at_their_positions) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "link markers", [] {
      spate::worker_pool pool(no_safety_net(2));
      spate::waiter room;
      spate::link<int> l({.capacity = 2, .notify_batch = 3}, &room);
      spate_test::marker_recording_unit consumer(l);
      consumer.set_executor(&pool);
      l.set_consumer(&consumer);
      pool.schedule(&consumer);
      constexpr int n = 20'000;
      const auto posted = spate_test::push_with_markers(l, n, 5);
      while (!consumer.done.load(std::memory_order_acquire)) std::this_thread::sleep_for(100us);
      EXPECT_EQ(consumer.got, spate_test::zero_to(n));
      EXPECT_EQ(consumer.markers, posted);
      EXPECT_FALSE(posted.empty());
      pool.stop();
    });
  }
}

// Both ends threads (waiters), the consumer popping one item at a time (pop_and_release).
TEST(stress, link_between_two_threads_loses_nothing_and_ends) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "link thread -> thread", [] {
      spate::waiter room, items;
      spate::link<int> l({.capacity = 2, .notify_batch = 2}, &room, &items);
      constexpr int n = 20'000;
      std::thread producer([&] {
        for (int i = 0; i < n; ++i) l.push_waiting_for_room(i, [] { return false; });
        l.close();
      });
      const auto got = spate_test::drain_on_this_thread(l, items);
      producer.join();
      EXPECT_EQ(got, spate_test::zero_to(n));
    });
  }
}

// ---- flow: producer waits for room / consumer wakes, by key over many edges, EOS ---------

namespace {
namespace flow = spate::flow;

struct add_one : flow::node<std::uint64_t, std::uint64_t> {
  void consume(std::uint64_t& v) { send_next(v + 1); }
};
}  // namespace

TEST(stress, flow_graph_with_tiny_rings_delivers_everything_and_ends) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "flow producer-wait / consumer-wake / end of stream", [] {
      spate::runtime rt(runtime_without_safety_net(3));
      constexpr std::uint64_t n = 30'000;
      std::uint64_t sum = 0, count = 0;
      flow::graph_options options;
      options.links.capacity = 2;  // nearly every send waits for room
      options.items_per_activation = 3;
      flow::graph g(
          flow::pipeline(
              flow::generate<std::uint64_t>(n, [](std::size_t i) { return i; }),
              flow::farm(add_one{}, 3, flow::by_key{[](const std::uint64_t& v) { return v / 5; }}),
              flow::farm(add_one{}, 2, flow::least_loaded{}), flow::sink([&](std::uint64_t& v) {
                sum += v;
                ++count;
              })),
          options);
      g.run(rt);
      EXPECT_EQ(count, n);
      EXPECT_EQ(sum, n * (n - 1) / 2 + 2 * n);
    });
  }
}

namespace {
// Keyed state in a by_key farm, and a sink with state of its own: both snapshotted at
// every barrier.
struct count_per_key : flow::node<std::uint64_t, std::uint64_t> {
  spate::state::value<std::uint64_t> seen{"seen"};
  auto state_fields() { return std::tie(seen); }
  void consume(std::uint64_t& v) {
    ++seen.get_or_init(0u);
    send_next(v + 1);
  }
};
struct counting_sink : flow::node<std::uint64_t, void> {
  std::uint64_t* sum;
  std::uint64_t* count;
  std::uint64_t kept = 0;
  counting_sink(std::uint64_t* s, std::uint64_t* c) : sum(s), count(c) {}
  void consume(std::uint64_t& v) {
    *sum += v;
    ++*count;
    ++kept;
  }
  std::uint64_t snapshot_state() const { return kept; }
  void restore_state(std::uint64_t k) { kept = k; }
};
}  // namespace

// Checkpoint barriers every millisecond through tiny rings: three keyed replicas feeding an
// ordered farm (its router aligns three inputs, its collector two), then a fused farm and a
// sink aligning two each. Delays between publish and re-check hit the aligning nodes' idle
// re-check (markers counted before they were examined, held inputs left out): a missed
// wake-up hangs.
TEST(stress, flow_barriers_through_tiny_rings_align_and_lose_nothing) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "flow checkpoint barriers", [round] {
      spate::runtime rt(runtime_without_safety_net(3));
      constexpr std::uint64_t n = 30'000;
      std::uint64_t sum = 0, count = 0;
      const auto dir =
          std::filesystem::temp_directory_path() /
          ("spate-stress-barriers-" + std::to_string(::getpid()) + "-" + std::to_string(round));
      flow::graph_options options;
      options.links.capacity = 2;
      options.items_per_activation = 3;
      options.checkpoints =
          flow::checkpoint_options{.directory = dir, .interval = std::chrono::milliseconds(1)};
      flow::graph g(
          flow::pipeline(flow::generate<std::uint64_t>(n, [](std::size_t i) { return i; }),
                         flow::farm(count_per_key{}, 3,
                                    flow::by_key{[](const std::uint64_t& v) { return v / 5; }}),
                         flow::ordered_farm(add_one{}, 2),
                         flow::farm(add_one{}, 2, flow::least_loaded{}),
                         flow::make_stage<counting_sink>(&sum, &count)),
          options);
      g.run(rt);
      EXPECT_EQ(count, n);
      EXPECT_EQ(sum, n * (n - 1) / 2 + 3 * n);
      EXPECT_EQ(g.checkpoints().failed, 0u);
      EXPECT_GE(g.checkpoints().completed, 1u);
      std::filesystem::remove_all(dir);
    });
  }
}

TEST(stress, flow_cancel_racing_the_stream_ends_every_task) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "flow cancel", [] {
      spate::runtime rt(runtime_without_safety_net(2));
      for (int attempt = 0; attempt < 20; ++attempt) {
        flow::graph_options options;
        options.links.capacity = 4;
        flow::graph g(flow::pipeline(
                          flow::generate<std::uint64_t>(1'000'000, [](std::size_t i) { return i; }),
                          flow::farm(add_one{}, 2), flow::sink([](std::uint64_t&) {})),
                      options);
        g.start(rt);
        std::this_thread::sleep_for(std::chrono::microseconds(50 * attempt));
        g.cancel();
        g.wait();  // every task must end: a stranded one hangs here
        EXPECT_TRUE(g.finished());
      }
    });
  }
}

// ---- wake_timer: ticks racing a node's go_idle, stop racing a tick, cancel then destroy ----
// (flow/wake_timer.hpp). Ticks every 100 us into a node that has no input in between: each
// tick must wake it (the source ends only once the node has taken `wanted` ticks). The
// cancelled graphs are destroyed after their runtime, so their timers are only detached.

namespace {
struct ticked : flow::node<std::uint64_t, std::uint64_t> {
  explicit ticked(std::atomic<int>* taken) : taken(taken) {}
  void on_start() { timer.start(*this, std::chrono::microseconds(100)); }
  bool has_news() const { return timer.due(); }
  void on_news() {
    if (timer.take()) taken->fetch_add(1, std::memory_order_relaxed);
  }
  void consume(std::uint64_t& v) { send_next(v + 0); }
  void on_stop() { timer.stop(); }
  std::atomic<int>* taken;
  flow::wake_timer timer;
};
struct wait_for_ticks : flow::source<std::uint64_t> {
  wait_for_ticks(std::atomic<int>* taken, int wanted) : taken(taken), wanted(wanted) {}
  void on_start() { timer.start(*this, std::chrono::microseconds(300)); }
  bool has_news() const { return timer.due(); }
  flow::produce_status produce() {
    if (!timer.take()) return flow::produce_status::wait;
    send_next(sent++);
    if (taken->load(std::memory_order_relaxed) < wanted) return flow::produce_status::wait;
    timer.stop();
    return flow::produce_status::ended;
  }
  std::atomic<int>* taken;
  int wanted;
  std::uint64_t sent = 0;
  flow::wake_timer timer;
};
}  // namespace

TEST(stress, wake_timer_ticks_wake_an_idle_node_and_stop_cleanly) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "wake_timer tick / go_idle / stop", [] {
      spate::runtime rt(runtime_without_safety_net(3));
      for (int attempt = 0; attempt < 30; ++attempt) {
        std::atomic<int> taken{0};
        std::uint64_t received = 0;
        flow::graph g(flow::pipeline(flow::make_stage<wait_for_ticks>(&taken, 20),
                                     flow::make_stage<ticked>(&taken),
                                     flow::sink([&](std::uint64_t&) { ++received; })));
        g.run(rt);
        EXPECT_GE(taken.load(), 20);
        EXPECT_GE(received, 1u);
      }
    });
    within(60s, "wake_timer cancelled, destroyed after its runtime", [] {
      std::vector<std::unique_ptr<flow::graph>> graphs;
      std::atomic<int> taken{0};
      {
        spate::runtime rt(runtime_without_safety_net(2));
        for (int attempt = 0; attempt < 10; ++attempt) {
          graphs.push_back(std::make_unique<flow::graph>(
              flow::pipeline(flow::make_stage<wait_for_ticks>(&taken, 1 << 30),
                             flow::make_stage<ticked>(&taken), flow::sink([](std::uint64_t&) {}))));
          graphs.back()->start(rt);
          std::this_thread::sleep_for(std::chrono::microseconds(100 * attempt));
          graphs.back()->cancel();
          graphs.back()->wait();
          EXPECT_TRUE(graphs.back()->finished());
        }
      }
      graphs.clear();  // the timers' shared blocks outlive the runtime; nodes only detach
    });
  }
}

// ---- actors: messages racing the idle transition, shutdown racing sends -------------------

namespace {
struct ping {
  std::uint32_t n;
};
struct counter_actor : spate::typed_actor<counter_actor, ping> {
  void on(ping&) { received->fetch_add(1, std::memory_order_relaxed); }
  std::atomic<std::uint64_t>* received = nullptr;
};
}  // namespace

TEST(stress, actor_messages_racing_idle_are_all_handled) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "actor send / go idle", [] {
      spate::actor_system_config config;
      config.scheduler = no_safety_net(2);
      spate::actor_system system(config);
      std::atomic<std::uint64_t> received{0};
      std::vector<spate::actor_ref<counter_actor>> actors;
      for (int i = 0; i < 8; ++i) {
        actors.push_back(system.spawn<counter_actor>());
        actors.back().get()->received = &received;
      }
      constexpr int senders = 3, per_sender = 8'000;
      std::vector<std::thread> threads;
      for (int s = 0; s < senders; ++s) {
        threads.emplace_back([&, s] {
          for (int i = 0; i < per_sender; ++i) {
            spate::send(actors[(i + s) % actors.size()], ping{std::uint32_t(i)});
            if (i % 32 == 0) std::this_thread::sleep_for(1us);
          }
        });
      }
      for (auto& t : threads) t.join();
      while (received.load() != std::uint64_t(senders) * per_sender) {
        std::this_thread::sleep_for(100us);
      }
      system.shutdown();
    });
  }
}

TEST(stress, shutdown_racing_sends_ends_cleanly) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "shutdown racing sends", [] {
      std::atomic<std::uint64_t> received{0};
      std::atomic<std::uint64_t> sent{0};
      std::atomic<bool> stop{false};
      std::vector<std::thread> threads;
      spate::actor_system_config config;
      config.scheduler = no_safety_net(2);
      config.error_reporter = [](const std::string&) {};
      spate::actor_system system(config);
      {
        auto target = system.spawn<counter_actor>();
        target.get()->received = &received;
        for (int s = 0; s < 2; ++s) {
          threads.emplace_back([&stop, &sent, target] {
            while (!stop.load(std::memory_order_relaxed)) {
              spate::send(target, ping{0});
              sent.fetch_add(1, std::memory_order_relaxed);
            }
          });
        }
        std::this_thread::sleep_for(2ms);
        system.request_shutdown();  // kills the target while the senders keep sending
        ASSERT_TRUE(spate_test::eventually([&] { return target.is_terminated(); }));
        std::this_thread::sleep_for(1ms);  // senders go on sending to a terminated actor
        stop.store(true);
        for (auto& t : threads) t.join();
        threads.clear();
        const auto before = system.dead_letters();
        spate::send(target, ping{0});
        sent.fetch_add(1);
        EXPECT_EQ(system.dead_letters(), before + 1);  // a send after termination is counted
      }
      // Every message was handled or counted as a dead letter: also those that raced the
      // termination's drain (counted when the last handle lets the actor go).
      EXPECT_TRUE(spate_test::eventually([&] {
        return received.load() + system.dead_letters() == sent.load();
      })) << "received "
          << received.load() << " + dead letters " << system.dead_letters() << " != sent "
          << sent.load();
      system.shutdown();
    });
  }
}

// ---- graph actor: a bounded input ring between an actor and the graph's feed source -----
// Both directions are wake handshakes: the actor pushes and wakes the source; the
// source pops and, at the half mark, wakes the actor that stopped taking items.

TEST(stress, graph_actor_input_full_and_drained_loses_nothing) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "graph actor bounded input", [] {
      spate::actor_system_config config;
      config.scheduler = no_safety_net(2);
      spate::actor_system system(config);
      spate::scoped_actor self(system);
      flow::graph_options options;
      options.links.capacity = 2;  // the actor stops at nearly every item
      options.items_per_activation = 3;
      auto g = flow::spawn_graph(system, flow::map([](std::uint64_t& v) { return v + 1; }),
                                 spate::actor(self), options);
      constexpr std::uint64_t n = 5'000;
      for (std::uint64_t i = 0; i < n; ++i) spate::send(g, i);
      spate::send(g, flow::end_of_stream{});
      std::uint64_t next = 1;
      bool ended = false;
      while (!ended) {
        ASSERT_TRUE(self->receive_for(
            30s, [&](std::uint64_t v) { EXPECT_EQ(v, next++); },
            [&](flow::end_of_stream&) { ended = true; }));
      }
      EXPECT_EQ(next, n + 1);
      EXPECT_EQ(system.dead_letters(), 0u);
    });
  }
}

// ---- reactors: physical actions from other threads racing the advancer's decision to wait
// (reactor/detail/reaction_scheduler.hpp, "Who may advance time"), and precise-mode
// predecessors racing to release a join (the pending counters).

namespace {
struct ticking_half : spate::reactor::reactor {
  spate::reactor::timer tick{this, "tick", 0ns, 200us};
  spate::reactor::output<int> out{this, "out"};
  explicit ticking_half(context ctx) : reactor(ctx) {
    reaction().triggers(tick).effects(out).body(
        [](spate::reactor::port_writer<int>& out) { out.set(1); });
  }
};
struct physical_fan_in : spate::reactor::reactor {
  spate::reactor::physical_action<int> poke{this, "poke"};
  ticking_half left{{this, "left"}}, right{{this, "right"}};
  std::atomic<long> received{0};
  long joins = 0, ticks = 0;
  explicit physical_fan_in(context ctx) : reactor(ctx) {
    reaction().triggers(poke).body([this] { received += poke.get(); });
    // A same-tag join of two reactions that may run on different workers.
    reaction().triggers(left.out, right.out).body([this] {
      ++ticks;
      if (left.out.is_present() && right.out.is_present()) ++joins;
    });
  }
};
}  // namespace

TEST(stress, reactor_physical_actions_racing_the_advancer_are_all_delivered) {
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "reactor physical actions", [] {
      spate::runtime_config config;
      config.scheduler = no_safety_net(2);
      spate::runtime rt(config);
      spate::reactor::environment_options options;
      options.keep_alive = true;
      spate::reactor::environment env{rt, options};
      auto& program = env.make_top<physical_fan_in>("main");
      env.start();
      constexpr int per_thread = 1'500;  // each its own tag: ~10 ms apiece under TSAN
      std::vector<std::thread> senders;
      for (int t = 0; t < 3; ++t)
        senders.emplace_back([&] {
          for (int i = 0; i < per_thread; ++i) {
            program.poke.schedule(1);
            if (i % 64 == 0) std::this_thread::sleep_for(50us);
          }
        });
      for (auto& s : senders) s.join();
      for (int i = 0; i < 30'000 && program.received.load() < 3 * per_thread; ++i)
        std::this_thread::sleep_for(1ms);
      env.request_stop();
      env.wait();
      EXPECT_EQ(program.received.load(), 3 * per_thread);
      EXPECT_EQ(program.joins, program.ticks);  // both halves of every tick met at the join
      EXPECT_GT(program.ticks, 0);
    });
  }
}

// ---- multicast_envelope: concurrent releases, the last one frees ---------------------------

namespace {
// Counts its destructions, so a double free or a missed one shows.
struct counted_value {
  static inline std::atomic<int> alive{0};
  int payload;
  explicit counted_value(int p) : payload(p) { alive.fetch_add(1); }
  ~counted_value() { alive.fetch_sub(1); }
};
}  // namespace

TEST(stress, envelope_releases_racing_free_each_tuple_once) {
  using spate::memory::multicast_envelope;
  inject_delays on;
  for (int round = 0; round < rounds(); ++round) {
    within(60s, "envelope releases", [] {
      constexpr std::size_t receivers = 3;
      constexpr int tuples = 2'000;
      spate::memory::slab_pool pool{
          {.block_size = spate::memory::envelope_block_size<counted_value>,
           .alignment = spate::memory::envelope_alignment<counted_value>,
           .blocks_per_slab = 16,
           .releasers = receivers}};
      std::vector<multicast_envelope<counted_value>*> made;
      for (int i = 0; i < tuples; ++i)
        made.push_back(multicast_envelope<counted_value>::make(&pool, receivers, i));
      std::atomic<int> start{0}, bad_reads{0};
      std::vector<std::thread> threads;
      for (std::size_t r = 0; r < receivers; ++r)
        threads.emplace_back([&, r] {
          start.fetch_add(1);
          while (start.load() != int(receivers)) std::this_thread::yield();
          // Receivers walk the tuples in different orders, so every position of the last
          // release happens.
          for (int k = 0; k < tuples; ++k) {
            const int i = r % 2 == 0 ? k : tuples - 1 - k;
            if (made[std::size_t(i)]->value().payload != i) bad_reads.fetch_add(1);
            made[std::size_t(i)]->release(r);
          }
        });
      for (auto& t : threads) t.join();
      EXPECT_EQ(bad_reads.load(), 0);
      EXPECT_EQ(counted_value::alive.load(), 0);  // each destroyed exactly once
      // Every block came back: the next `tuples` envelopes need no new slab.
      const auto slabs = pool.stats().slabs;
      for (int i = 0; i < tuples; ++i)
        multicast_envelope<counted_value>::make(&pool, 1, i)->release(0);
      EXPECT_EQ(pool.stats().slabs, slabs);
      EXPECT_EQ(counted_value::alive.load(), 0);
    });
  }
}
