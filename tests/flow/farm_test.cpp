#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "flow_test_support.hpp"

using namespace flow_test;

namespace {

struct keyed {
  std::uint32_t key;
  std::uint32_t value;
  std::size_t replica = 0;  // filled by the worker that handled it
};

struct replica_stamp : flow::node<keyed, keyed> {
  void consume(keyed& k) {
    k.replica = replica_index();
    send_next(std::move(k));
  }
};

auto keyed_source(std::uint32_t n, std::uint32_t keys) {
  return flow::generate<keyed>(n, [keys](std::size_t i) {
    return keyed{std::uint32_t(i % keys), std::uint32_t(i), 0};
  });
}

}  // namespace

TEST(farm, round_robin_spreads_evenly_and_loses_nothing) {
  spate::runtime rt(runtime_with(workers(2)));
  std::map<std::size_t, int> per_replica;
  std::set<std::uint32_t> values;
  // Runs of run_length items per replica: 40'000 is 78 whole rounds of 4 runs and 64
  // items more, so the shares differ by at most one run.
  flow::graph g(flow::pipeline(keyed_source(40'000, 7), flow::farm(replica_stamp{}, 4),
                               flow::sink([&](keyed& k) {
                                 ++per_replica[k.replica];
                                 EXPECT_TRUE(values.insert(k.value).second) << "duplicate";
                               })));
  g.run(rt);
  EXPECT_EQ(values.size(), 40'000u);
  ASSERT_EQ(per_replica.size(), 4u);
  constexpr int run = int(flow::round_robin::run_length);
  for (auto& [r, count] : per_replica) {
    EXPECT_GE(count, 78 * run) << "replica " << r;
    EXPECT_LE(count, 79 * run) << "replica " << r;
  }
}

TEST(farm, by_key_sends_a_key_always_to_the_same_replica) {
  spate::runtime rt(runtime_with(workers(2)));
  std::map<std::uint32_t, std::set<std::size_t>> replicas_of_key;
  std::size_t count = 0;
  flow::graph g(flow::pipeline(
      keyed_source(50'000, 101),
      flow::farm(replica_stamp{}, 5, flow::by_key{[](const keyed& k) { return k.key; }}),
      flow::sink([&](keyed& k) {
        replicas_of_key[k.key].insert(k.replica);
        ++count;
      })));
  g.run(rt);
  EXPECT_EQ(count, 50'000u);
  std::set<std::size_t> used;
  for (auto& [key, rs] : replicas_of_key) {
    EXPECT_EQ(rs.size(), 1u) << "key " << key << " went to several replicas";
    used.insert(*rs.begin());
  }
  EXPECT_GT(used.size(), 1u);
}

TEST(farm, broadcast_gives_every_replica_every_item_from_one_shared_copy) {
  struct counted {
    int value;
    std::shared_ptr<std::atomic<int>> copies;
    counted(int v, std::shared_ptr<std::atomic<int>> c) : value(v), copies(std::move(c)) {}
    counted(const counted& o) : value(o.value), copies(o.copies) { copies->fetch_add(1); }
    counted(counted&&) = default;
    counted& operator=(const counted&) = delete;
    counted& operator=(counted&&) = default;
  };
  struct reader : flow::node<counted, std::pair<std::size_t, int>> {
    void consume(const counted& c) { send_next({replica_index(), c.value}); }
  };
  spate::runtime rt(runtime_with(workers(2)));
  auto copies = std::make_shared<std::atomic<int>>(0);
  std::map<std::size_t, std::vector<int>> seen;
  flow::graph g(flow::pipeline(
      flow::generate<counted>(1000, [copies](std::size_t i) { return counted(int(i), copies); }),
      flow::farm(reader{}, 3, flow::broadcast{}),
      flow::sink([&](std::pair<std::size_t, int>& p) { seen[p.first].push_back(p.second); })));
  g.run(rt);
  ASSERT_EQ(seen.size(), 3u);
  for (auto& [replica, values] : seen) {
    ASSERT_EQ(values.size(), 1000u) << "replica " << replica;
    EXPECT_TRUE(std::is_sorted(values.begin(), values.end()));  // FIFO per edge
  }
  EXPECT_EQ(copies->load(), 0) << "broadcast deep-copied items";
}

TEST(farm, least_loaded_random_and_custom_policies_deliver_everything) {
  spate::runtime rt(runtime_with(workers(2)));
  auto run_with = [&](auto policy, std::map<std::size_t, int>& per_replica) {
    std::size_t count = 0;
    flow::graph g(flow::pipeline(keyed_source(30'000, 3), flow::farm(replica_stamp{}, 3, policy),
                                 flow::sink([&](keyed& k) {
                                   ++per_replica[k.replica];
                                   ++count;
                                 })));
    g.run(rt);
    return count;
  };
  std::map<std::size_t, int> least, random, custom;
  EXPECT_EQ(run_with(flow::least_loaded{}, least), 30'000u);
  EXPECT_EQ(run_with(flow::random_choice{}, random), 30'000u);
  EXPECT_EQ(random.size(), 3u);
  EXPECT_EQ(run_with(flow::custom_policy{[](const keyed& k, std::size_t) { return k.value % 2; }},
                     custom),
            30'000u);
  EXPECT_EQ(custom.size(), 2u);  // replica 2 is never chosen
  EXPECT_EQ(custom[0], 15'000);
}

TEST(farm, ordered_farm_restores_input_order_with_uneven_workers) {
  struct jittery : flow::node<int, int> {
    void consume(int& x) {
      if (std::size_t(x % 97) == replica_index())
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      if (x % 5 != 0) send_next(x * 2);      // some inputs produce nothing
      if (x % 7 == 0) send_next(x * 2 + 1);  // some produce two
    }
  };
  spate::runtime rt(runtime_with(workers(2)));
  std::vector<int> out;
  flow::graph g(flow::pipeline(flow::generate<int>(5000, [](std::size_t i) { return int(i); }),
                               flow::ordered_farm(jittery{}, 4),
                               flow::sink([&](int& x) { out.push_back(x); })));
  g.run(rt);
  std::vector<int> expected;
  for (int x = 0; x < 5000; ++x) {
    if (x % 5 != 0) expected.push_back(x * 2);
    if (x % 7 == 0) expected.push_back(x * 2 + 1);
  }
  EXPECT_EQ(out, expected);
}

TEST(farm, ordered_farm_passes_on_outputs_of_on_start_and_on_stop) {
  // Outputs sent outside consume() belong to no input. They used to carry a stale sequence
  // number, stick at the head of their edge, and hang the collector (spinning meanwhile).
  struct with_greetings : flow::node<int, int> {
    void on_start() { send_next(-1 - int(replica_index())); }  // -1 .. -3
    void consume(int& x) { send_next(x); }
    void on_stop() { send_next(-100 - int(replica_index())); }  // -100 .. -102
  };
  spate::runtime rt(runtime_with(workers(2)));
  std::vector<int> out;
  flow::graph g(flow::pipeline(flow::generate<int>(3000, [](std::size_t i) { return int(i); }),
                               flow::ordered_farm(with_greetings{}, 3),
                               flow::sink([&](int& x) { out.push_back(x); })));
  g.run(rt);
  std::vector<int> items, extras;
  for (int x : out) (x >= 0 ? items : extras).push_back(x);
  ASSERT_EQ(items.size(), 3000u);
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(items[i], i) << "input order lost";
  std::sort(extras.begin(), extras.end());
  EXPECT_EQ(extras, (std::vector<int>{-102, -101, -100, -3, -2, -1}));
}

TEST(farm, pipeline_as_farm_worker_and_farm_inside_pipeline) {
  spate::runtime rt(runtime_with(workers(2)));
  long sum = 0;
  auto worker = flow::pipeline(flow::map([](int& x) { return x + 1; }),
                               flow::farm(flow::map([](int& x) { return x * 2; }), 2));
  flow::graph g(flow::pipeline(flow::generate<int>(10'000, [](std::size_t i) { return int(i); }),
                               flow::farm(worker, 3), flow::sink([&](int& x) { sum += x; })));
  g.run(rt);
  long expected = 0;
  for (long x = 0; x < 10'000; ++x) expected += (x + 1) * 2;
  EXPECT_EQ(sum, expected);
}

// Fusion (paper Sect. 4): a farm after a farm has no router, and neither has the first
// farm, because the source applies its policy; each item crosses one hop per farm.
// Counted from the runtime's own per-node counters.
TEST(farm, fusion_removes_the_routers_in_front_of_farms) {
  spate::runtime rt(runtime_with(workers(2)));
  constexpr std::uint64_t n = 30'000;
  auto hops_per_item = [&](bool fuse, std::size_t& routers) {
    flow::graph_options options;
    options.fuse_farms = fuse;
    auto forward = flow::map([](std::uint64_t& x) { return x; });
    std::uint64_t count = 0;
    flow::graph g(
        flow::pipeline(flow::generate<std::uint64_t>(n, [](std::size_t i) { return i; }),
                       flow::farm(forward, 4), flow::farm(forward, 4), flow::farm(forward, 4),
                       flow::sink([&](std::uint64_t&) { ++count; })),
        options);
    g.run(rt);
    EXPECT_EQ(count, n);
    std::uint64_t received = 0;
    routers = 0;
    for (const auto& node : g.nodes()) {
      received += node.items_in;
      if (node.kind == "router") ++routers;
    }
    return double(received) / double(n);  // nodes each item entered
  };
  std::size_t fused_routers = 0, unfused_routers = 0;
  EXPECT_DOUBLE_EQ(hops_per_item(true, fused_routers), 4.0);     // 3 workers + sink
  EXPECT_DOUBLE_EQ(hops_per_item(false, unfused_routers), 7.0);  // 3 routers + 3 workers + sink
  EXPECT_EQ(fused_routers, 0u);
  EXPECT_EQ(unfused_routers, 3u);
}

// A farm after an ordered farm: the collector applies the next farm's policy (by key here),
// so no router sits between them and the key affinity still holds.
TEST(farm, fused_farm_after_an_ordered_farm_routes_from_the_collector) {
  spate::runtime rt(runtime_with(workers(2)));
  constexpr int n = 20'000;
  std::mutex mutex;
  std::map<int, std::set<std::size_t>> replicas_of_key;
  struct record_replica : flow::node<int, int> {
    record_replica(std::mutex* m, std::map<int, std::set<std::size_t>>* s) : mutex(m), seen(s) {}
    std::mutex* mutex;
    std::map<int, std::set<std::size_t>>* seen;
    void consume(int& x) {
      {
        std::lock_guard lock(*mutex);
        (*seen)[x % 7].insert(replica_index());
      }
      send_next(std::move(x));
    }
  };
  std::vector<int> out;
  flow::graph g(
      flow::pipeline(flow::generate<int>(n, [](std::size_t i) { return int(i); }),
                     flow::ordered_farm(flow::map([](int& x) { return x; }), 3),
                     flow::farm(flow::make_stage<record_replica>(&mutex, &replicas_of_key), 4,
                                flow::by_key([](const int& x) { return x % 7; })),
                     flow::sink([&](int& x) { out.push_back(x); })));
  g.run(rt);
  std::size_t routers = 0;
  for (const auto& node : g.nodes()) routers += node.kind == "router" ? 1 : 0;
  EXPECT_EQ(routers, 1u);  // the ordered farm's own (it numbers the items)
  ASSERT_EQ(out.size(), std::size_t(n));
  std::sort(out.begin(), out.end());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], i);
  ASSERT_EQ(replicas_of_key.size(), 7u);
  for (const auto& [key, replicas] : replicas_of_key) EXPECT_EQ(replicas.size(), 1u) << key;
}

// The source routes straight into a fused farm, so send_next_if sees every replica's
// queue: with replica 0 stuck, round-robin tries the others instead of refusing (paper
// Sect. 3, send_next_if). Replica 0 stays stuck until the source has sent everything; had
// the source waited for it, replica 0 would only let go at its (60 s) deadline. No wall-clock
// bound: under a loaded machine the source's yields between refusals take what they take.
TEST(farm, send_next_if_from_a_source_tries_every_replica_of_a_fused_farm) {
  struct stuck_first_replica : flow::node<int, int> {
    stuck_first_replica(std::atomic<bool>* done, std::atomic<bool>* timed_out)
        : done(done), timed_out(timed_out) {}
    void on_start() { deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60); }
    void consume(int& x) {
      while (replica_index() == 0 && !done->load()) {
        if (std::chrono::steady_clock::now() >= deadline) {
          timed_out->store(true);
          break;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      send_next(std::move(x));
    }
    std::atomic<bool>* done;
    std::atomic<bool>* timed_out;
    std::chrono::steady_clock::time_point deadline;
  };
  spate::runtime rt(runtime_with(workers(2)));
  std::atomic<bool> done{false}, timed_out{false};
  std::atomic<int> refusals{0};
  std::vector<int> out;
  flow::graph g(
      flow::pipeline(flow::make_stage<polite_source>(3000, 4, &refusals, &done),
                     flow::farm(flow::make_stage<stuck_first_replica>(&done, &timed_out), 3),
                     flow::sink([&](int& x) { out.push_back(x); })),
      // Small queues, so that the stuck replica's fills up: behind a router, the source
      // would then wait for it.
      flow::graph_options{.links = {.capacity = 16}});
  g.run(rt);
  EXPECT_FALSE(timed_out.load())
      << "the source waited for the stuck replica instead of trying the others";
  ASSERT_EQ(out.size(), 3000u);
  std::sort(out.begin(), out.end());
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(out[i], i);
}
