// Operator chaining (flow/detail/chain_node.hpp): adjacent single-node stages run as one
// task. Chained and unchained graphs must send the same items in the same order; members
// start, stop and cancel in order; failures name the chain; a full output still suspends
// the chain after the current item.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "flow_test_support.hpp"

using namespace flow_test;
using namespace std::chrono_literals;

namespace {

// The graph's tasks in build order, a chain as "first -> second": node_info::chain names
// the task each node runs in (its first member), and a chain's members are listed together.
std::vector<std::string> task_names(const flow::graph& g) {
  std::vector<std::string> names;
  for (const auto& n : g.nodes()) {
    if (!n.chain.empty() && n.chain != n.name) {
      names.back() += " -> " + n.name;
    } else {
      names.push_back(n.name);
    }
  }
  return names;
}

// The same stages, chained (by default) or each apart: (source, map, filter, flat_map) and a
// sink, over pseudo-random values.
template <class Wrap>
std::vector<std::uint64_t> run_mixed_pipeline(Wrap wrap, std::vector<std::string>* names) {
  spate::runtime rt(runtime_with(workers(2)));
  std::vector<std::uint64_t> out;
  flow::graph g(flow::pipeline(
      wrap(flow::generate<std::uint64_t>(
          50'000,
          [](std::size_t i) { return std::uint64_t{std::minstd_rand(std::uint32_t(i) + 1)()}; })),
      wrap(flow::map([](std::uint64_t& x) { return x * 3 + 1; })),
      wrap(flow::filter([](const std::uint64_t& x) { return x % 5 != 0; })),
      wrap(flow::flat_map<std::uint64_t>([](std::uint64_t& x, auto emit) {
        for (std::uint64_t k = 0; k < x % 3; ++k) emit(x + k);
      })),
      wrap(flow::map([](std::uint64_t& x) { return x ^ 0x5555; })),
      flow::sink([&](std::uint64_t& x) { out.push_back(x); })));
  g.run(rt);
  *names = task_names(g);
  return out;
}

struct as_is {
  template <class S>
  S operator()(S s) const {
    return s;
  }
};
struct apart {
  template <class S>
  auto operator()(S s) const {
    return flow::unchained(std::move(s));
  }
};

}  // namespace

TEST(chaining, chained_and_unchained_graphs_send_the_same_items_in_the_same_order) {
  std::vector<std::string> chained_names, apart_names;
  const auto chained = run_mixed_pipeline(as_is{}, &chained_names);
  const auto separate = run_mixed_pipeline(apart{}, &apart_names);
  // The reference: the same functions in one loop.
  std::vector<std::uint64_t> expected;
  for (std::size_t i = 0; i < 50'000; ++i) {
    const std::uint64_t x = std::uint64_t{std::minstd_rand(std::uint32_t(i) + 1)()} * 3 + 1;
    if (x % 5 == 0) continue;
    for (std::uint64_t k = 0; k < x % 3; ++k) expected.push_back((x + k) ^ 0x5555);
  }
  EXPECT_EQ(chained, expected);
  EXPECT_EQ(separate, expected);
  // A source does not chain to a sink, so the sink stays apart.
  EXPECT_EQ(chained_names,
            (std::vector<std::string>{"source -> map -> filter -> flat_map -> map", "sink"}));
  EXPECT_EQ(apart_names.size(), 6u);
}

TEST(chaining, a_farm_worker_pipeline_is_one_task_per_replica_and_keeps_every_item) {
  spate::runtime rt(runtime_with(workers(2)));
  constexpr std::uint64_t n = 100'000;
  std::atomic<std::uint64_t> sum{0}, count{0};
  flow::graph g(flow::pipeline(
      flow::generate<std::uint64_t>(n, [](std::size_t i) { return std::uint64_t(i); }),
      flow::farm(flow::pipeline(flow::map([](std::uint64_t& x) { return x + 1; }),
                                flow::filter([](const std::uint64_t&) { return true; }),
                                flow::sink([&](std::uint64_t& x) {
                                  sum.fetch_add(x, std::memory_order_relaxed);
                                  count.fetch_add(1, std::memory_order_relaxed);
                                })),
                 3)));
  g.run(rt);
  EXPECT_EQ(count.load(), n);
  EXPECT_EQ(sum.load(), n * (n + 1) / 2);
  EXPECT_EQ(task_names(g), (std::vector<std::string>{"source", "map#0 -> filter#0 -> sink#0",
                                                     "map#1 -> filter#1 -> sink#1",
                                                     "map#2 -> filter#2 -> sink#2"}));
}

namespace {
// Logs its lifecycle into a shared journal (one task runs a chain: no lock needed).
struct journaling : flow::node<int, int> {
  journaling(std::string name, std::vector<std::string>* journal, int flush_items = 0)
      : name(std::move(name)), journal(journal), flush_items(flush_items) {}
  void on_start() { journal->push_back(name + ".start"); }
  void consume(int& x) { send_next(x + 1); }
  void on_stop() {
    journal->push_back(name + ".stop");
    for (int i = 0; i < flush_items; ++i) send_next(1000 + i);  // a flush at the end
  }
  std::string name;
  std::vector<std::string>* journal;
  int flush_items;
};
}  // namespace

TEST(chaining, a_chain_starts_downstream_first_stops_upstream_first_and_keeps_flushed_items) {
  spate::runtime rt(runtime_with(workers(2)));
  std::vector<std::string> journal;
  std::vector<int> out;
  flow::graph g(flow::pipeline(flow::generate<int>(3, [](std::size_t i) { return int(i); }),
                               flow::make_stage<journaling>("a", &journal, 2).named("a"),
                               flow::make_stage<journaling>("b", &journal, 1).named("b"),
                               flow::sink([&](int& x) { out.push_back(x); })));
  g.run(rt);
  ASSERT_EQ(task_names(g), (std::vector<std::string>{"source -> a -> b", "sink"}));
  // b is ready before a may send; a's flush reaches b before b flushes.
  EXPECT_EQ(journal, (std::vector<std::string>{"b.start", "a.start", "a.stop", "b.stop"}));
  EXPECT_EQ(out, (std::vector<int>{2, 3, 4, 1001, 1002, 1000}));
}

namespace {
struct cancel_probe : flow::node<std::uint64_t, std::uint64_t> {
  explicit cancel_probe(std::atomic<int>* cancels) : cancels(cancels) {}
  void consume(std::uint64_t& x) { send_next(std::move(x)); }
  void on_cancel() { cancels->fetch_add(1); }
  std::atomic<int>* cancels;
};
}  // namespace

TEST(chaining, a_failure_inside_a_chain_names_it_and_cancels_every_member) {
  spate::runtime rt(runtime_with(workers(2)));
  std::atomic<int> cancels{0};
  flow::graph g(flow::pipeline(
      flow::source_from([i = std::uint64_t{0}]() mutable { return std::optional(i++); }),
      flow::make_stage<cancel_probe>(&cancels).named("before"),
      flow::map([](std::uint64_t& x) -> std::uint64_t {
        if (x == 5'000) throw std::runtime_error("bad record 5000");
        return x;
      }).named("parser"),
      flow::make_stage<cancel_probe>(&cancels).named("after"), flow::sink([](std::uint64_t&) {})));
  try {
    g.run(rt);
    FAIL() << "expected node_error";
  } catch (const flow::node_error& e) {
    EXPECT_EQ(e.node(), "parser") << "the member that threw, not its chain";
    EXPECT_NE(std::string(e.what()).find("bad record 5000"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cancels.load(), 2) << "both chained probes let go on cancel";
}

TEST(chaining, cancel_ends_an_endless_chain_whose_sink_is_slow) {
  spate::runtime rt(runtime_with(workers(2)));
  std::atomic<std::uint64_t> received{0};
  flow::graph g(flow::pipeline(flow::source_from(
                                   [i = std::uint64_t{0}]() mutable { return std::optional(i++); }),
                               flow::flat_map<std::uint64_t>([](std::uint64_t& x, auto emit) {
                                 for (int k = 0; k < 100; ++k)
                                   emit(x);  // fills the sink's link at once
                               }),
                               flow::sink([&](std::uint64_t&) {
                                 received.fetch_add(1);
                                 std::this_thread::sleep_for(10us);
                               })),
                flow::graph_options{.links = {.capacity = 64}});
  g.start(rt);
  while (received.load() < 1000) std::this_thread::sleep_for(1ms);
  const auto before = std::chrono::steady_clock::now();
  g.cancel();
  g.wait();
  EXPECT_LT(std::chrono::steady_clock::now() - before, 5s);
  // The chain waited on its full output (it suspends, it does not spin or drop).
  std::uint64_t blocked = 0;
  for (const auto& n : g.nodes()) {
    if (n.name == "source") blocked = n.output_blocked;  // the chain's task's
  }
  EXPECT_GT(blocked, 0u);
}

TEST(chaining, a_stage_with_a_place_of_its_own_is_not_chained) {
  spate::runtime rt(runtime_with(workers(2)));
  std::uint64_t count = 0;
  flow::graph g(flow::pipeline(
      flow::generate<std::uint64_t>(1000, [](std::size_t i) { return std::uint64_t(i); }),
      flow::map([](std::uint64_t& x) { return x; }).on_dedicated_thread(),
      flow::map([](std::uint64_t& x) { return x; })
          .named("linked")
          .with_input_links({.capacity = 16}),
      flow::map([](std::uint64_t& x) { return x; }).named("last"),
      flow::sink([&](std::uint64_t&) { ++count; })));
  g.run(rt);
  EXPECT_EQ(count, 1000u);
  EXPECT_EQ(task_names(g), (std::vector<std::string>{"source", "map", "linked", "last -> sink"}));
}

TEST(chaining, a_dedicated_thread_set_on_a_chained_member_is_refused_by_name) {
  spate::runtime rt(runtime_with(workers(2)));
  auto second = flow::map([](int& x) { return x; }).named("second");
  second.options.dedicated_thread = true;  // by hand: still a chainable stage type
  flow::graph g(flow::pipeline(flow::generate<int>(10, [](std::size_t i) { return int(i); }),
                               second, flow::sink([](int&) {})));
  try {
    g.run(rt);
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stage 'second' is chained to 'source'"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("flow::unchained"), std::string::npos) << e.what();
  }
}

namespace {
// A node with a snapshot: a chain could not hold it, so it stays a task of its own.
struct summing : flow::node<int, int> {
  void consume(int& x) {
    total += x;
    send_next(std::move(x));
  }
  long snapshot_state() const { return total; }
  void restore_state(long t) { total = t; }
  long total = 0;
};
}  // namespace

TEST(chaining, a_node_with_state_of_its_own_is_not_chained) {
  spate::runtime rt(runtime_with(workers(2)));
  flow::graph g(flow::pipeline(
      flow::generate<int>(10, [](std::size_t i) { return int(i); }),
      flow::map([](int& x) { return x; }), flow::make_stage<summing>().named("summing"),
      flow::map([](int& x) { return x; }).named("after"), flow::sink([](int&) {})));
  g.run(rt);
  EXPECT_EQ(task_names(g), (std::vector<std::string>{"source -> map", "summing", "after -> sink"}));
}

namespace {
// One replica's share of 0..count-1: every replica_count()-th item from its replica_index().
struct share_source : flow::source<std::uint64_t> {
  static constexpr bool parallel_source = true;
  explicit share_source(std::uint64_t count) : count(count) {}
  void on_start() { next = replica_index(); }
  bool produce() {
    if (next >= count) return false;
    send_next(std::uint64_t(next));
    next += replica_count();
    return next < count;
  }
  std::uint64_t count, next = 0;
};
}  // namespace

TEST(chaining, a_farm_of_sources_is_a_parallel_source_each_replica_chained_to_its_stages) {
  spate::runtime rt(runtime_with(workers(2)));
  constexpr std::uint64_t n = 90'001;
  std::vector<std::uint64_t> seen;
  flow::graph g(
      flow::pipeline(flow::farm(flow::pipeline(flow::make_stage<share_source>(n).named("share"),
                                               flow::map([](std::uint64_t& x) { return x * 2; })),
                                3),
                     flow::sink([&](std::uint64_t& x) { seen.push_back(x); })));
  g.run(rt);
  EXPECT_EQ(task_names(g), (std::vector<std::string>{"share#0 -> map#0", "share#1 -> map#1",
                                                     "share#2 -> map#2", "sink"}));
  ASSERT_EQ(seen.size(), n);
  // Each replica's items arrive in its own order; together, each item exactly once.
  std::vector<std::uint64_t> last(3, 0);
  std::vector<bool> first(3, true);
  for (std::uint64_t x : seen) {
    const std::uint64_t i = x / 2, r = i % 3;
    if (!first[r]) {
      EXPECT_GT(i, last[r]);
    }
    first[r] = false;
    last[r] = i;
  }
  std::sort(seen.begin(), seen.end());
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 2 * i);
}

TEST(chaining, each_chained_node_keeps_its_counters_and_the_topology_shows_the_chain) {
  spate::runtime rt(runtime_with(workers(2)));
  flow::graph g(flow::pipeline(
      flow::generate<int>(1000, [](std::size_t i) { return int(i); }).named("numbers"),
      flow::filter([](const int& x) { return x % 4 == 0; }).named("quarter"),
      flow::flat_map<int>([](int& x, auto emit) {
        emit(x);
        emit(x);
        emit(x);
      }).named("thrice"),
      flow::sink([](int&) {}).named("out")));
  g.run(rt);
  const auto t = g.topology();
  ASSERT_EQ(t.nodes.size(), 4u);
  const auto& n = t.nodes;
  EXPECT_EQ(n[0].name, "numbers");
  EXPECT_EQ(n[0].items_out, 1000u);
  EXPECT_EQ(n[1].name, "quarter");
  EXPECT_EQ(n[1].items_in, 1000u);
  EXPECT_EQ(n[1].items_out, 250u);
  EXPECT_EQ(n[2].name, "thrice");
  EXPECT_EQ(n[2].items_in, 250u);
  EXPECT_EQ(n[2].items_out, 750u);
  EXPECT_EQ(n[3].name, "out");
  EXPECT_EQ(n[3].items_in, 750u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(n[k].chain, "numbers") << n[k].name;
  EXPECT_EQ(n[3].chain, "");
  // Chained members are joined by capacity-0 "chained" edges; the link leaves the last one.
  ASSERT_EQ(t.edges.size(), 3u);
  EXPECT_EQ(t.edges[0].from, 0u);
  EXPECT_EQ(t.edges[0].to, 1u);
  EXPECT_EQ(t.edges[0].route, "chained");
  EXPECT_EQ(t.edges[0].capacity, 0u);
  EXPECT_EQ(t.edges[1].from, 1u);
  EXPECT_EQ(t.edges[1].to, 2u);
  EXPECT_EQ(t.edges[2].from, 2u);
  EXPECT_EQ(t.edges[2].to, 3u);
  EXPECT_GT(t.edges[2].capacity, 0u);

  // One-to-one members (map) pass whole batches through the chain's apply(): counted too.
  flow::graph maps(flow::pipeline(
      flow::generate<int>(1000, [](std::size_t i) { return int(i); }).named("numbers"),
      flow::map([](int& x) { return x + 1; }).named("plus"),
      flow::map([](int& x) { return x * 2; }).named("twice"), flow::sink([](int&) {})));
  maps.run(rt);
  for (const auto& node : maps.nodes()) {
    if (node.kind != "source") {
      EXPECT_EQ(node.items_in, 1000u) << node.name;
    }
    if (node.kind != "sink") {
      EXPECT_EQ(node.items_out, 1000u) << node.name;
    }
  }
}

namespace {
// Catches everything its send throws, as a careless node might: a chained node's failure
// must not be swallowed by the node before it.
struct swallowing : flow::node<int, int> {
  void consume(int& x) {
    try {
      send_next(std::move(x));
    } catch (...) {
      ++swallowed;
    }
  }
  int swallowed = 0;
};

struct lifecycle_probe : flow::node<int, int> {
  lifecycle_probe(std::string name, std::vector<std::string>* journal, bool fail_on_start)
      : name(std::move(name)), journal(journal), fail_on_start(fail_on_start) {}
  void on_start() {
    if (fail_on_start) throw std::runtime_error(name + " cannot start");
  }
  void consume(int& x) { send_next(std::move(x)); }
  void on_cancel() { journal->push_back(name + ".cancel"); }
  std::string name;
  std::vector<std::string>* journal;
  bool fail_on_start;
};
}  // namespace

TEST(chaining, a_failure_is_raised_after_the_sending_node_returns_so_it_cannot_swallow_it) {
  spate::runtime rt(runtime_with(workers(2)));
  flow::graph g(flow::pipeline(flow::generate<int>(100, [](std::size_t i) { return int(i); }),
                               flow::make_stage<swallowing>().named("swallowing"),
                               flow::map([](int& x) -> int {
                                 if (x == 7) throw std::runtime_error("bad 7");
                                 return x;
                               }).named("checker"),
                               flow::sink([](int&) {})));
  try {
    g.run(rt);
    FAIL() << "the failure was swallowed";
  } catch (const flow::node_error& e) {
    EXPECT_EQ(e.node(), "checker");
    EXPECT_NE(std::string(e.what()).find("bad 7"), std::string::npos) << e.what();
  }
}

TEST(chaining, on_cancel_reaches_only_the_members_that_started) {
  spate::runtime rt(runtime_with(workers(2)));
  std::vector<std::string> journal;
  flow::graph g(
      flow::pipeline(flow::generate<int>(10, [](std::size_t i) { return int(i); }),
                     flow::make_stage<lifecycle_probe>("first", &journal, false).named("first"),
                     flow::make_stage<lifecycle_probe>("second", &journal, true).named("second"),
                     flow::sink([](int&) {})));
  EXPECT_THROW(g.run(rt), flow::node_error);
  // "second" starts first and throws: it hears on_cancel (its on_start was called), "first"
  // never started and hears nothing.
  EXPECT_EQ(journal, (std::vector<std::string>{"second.cancel"}));
}

namespace {
// Sends bursts with send_next_if; a refusal ends the burst, and the item is sent again later.
struct bursty_polite_source : flow::source<int> {
  bursty_polite_source(int count, std::atomic<int>* refusals) : count(count), refusals(refusals) {}
  bool produce() {
    for (int k = 0; k < 256 && next < count; ++k) {
      int item = next;
      if (!send_next_if(std::move(item), 8)) {
        EXPECT_EQ(item, next);  // still ours
        refusals->fetch_add(1);
        break;
      }
      ++next;
    }
    return next < count;
  }
  int count;
  std::atomic<int>* refusals;
  int next = 0;
};
}  // namespace

// Inside a chain there is no queue to measure: send_next_if refuses while the chain's output
// holds items back for a full link (max_queue_length is not consulted).
TEST(chaining, send_next_if_in_a_chain_refuses_while_the_chains_output_is_full) {
  spate::runtime rt(runtime_with(workers(2)));
  std::atomic<int> refusals{0};
  std::vector<int> out;
  flow::graph g(
      flow::pipeline(flow::make_stage<bursty_polite_source>(20'000, &refusals).named("polite"),
                     flow::map([](int& x) { return x; }), flow::sink([&](int& x) {
                       if (x % 64 == 0) std::this_thread::sleep_for(20us);
                       out.push_back(x);
                     })),
      flow::graph_options{.links = {.capacity = 16}});
  g.run(rt);
  ASSERT_EQ(out.size(), 20'000u);
  for (int i = 0; i < 20'000; ++i) ASSERT_EQ(out[std::size_t(i)], i);
  EXPECT_GT(refusals.load(), 0) << "the chained source was never held back";
  EXPECT_EQ(g.nodes().at(1).chain, "polite") << "the map must be chained to the source";
}
