// flow::map, routers and flow::generate move items in batches, straight from one ring's
// slots into the next ring's write window (node_task::consume_some, output_port::
// send_many). These tests hold that path to the same promises as the per-item one:
// order, no loss, every object destroyed exactly once, failures cancel cleanly.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include "flow_test_support.hpp"

using namespace flow_test;

namespace {

// A move-only item that counts live objects, so that a leak or a double destruction in
// the rings' windows shows up as a wrong count (and under AddressSanitizer as an error).
std::atomic<long> live_items{0};

struct tracked {
  explicit tracked(std::uint64_t v) : value(std::make_unique<std::uint64_t>(v)) { ++live_items; }
  tracked(tracked&& other) noexcept : value(std::move(other.value)) { ++live_items; }
  tracked& operator=(tracked&& other) noexcept {
    value = std::move(other.value);
    return *this;
  }
  ~tracked() { --live_items; }
  std::unique_ptr<std::uint64_t> value;
};

auto tracked_source(std::uint64_t n) {
  return flow::generate<tracked>(n, [](std::size_t i) { return tracked(i); });
}

}  // namespace

TEST(batch_path, moves_move_only_items_in_order_through_small_channels) {
  spate::runtime rt(runtime_with(workers(2)));
  for (std::size_t capacity : {2u, 16u, 1024u}) {
    flow::graph_options options;
    options.links.capacity = capacity;
    constexpr std::uint64_t n = 50'000;
    auto add_one = flow::map([](tracked& t) {
      ++*t.value;
      return std::move(t);
    });
    std::uint64_t expected = 3, received = 0;
    flow::graph g(
        flow::pipeline(tracked_source(n), add_one, add_one, add_one, flow::sink([&](tracked& t) {
                         ASSERT_NE(t.value, nullptr) << "a moved-from item arrived";
                         EXPECT_EQ(*t.value, expected++);
                         ++received;
                       })),
        options);
    g.run(rt);
    EXPECT_EQ(received, n) << "capacity " << capacity;
  }
  EXPECT_EQ(live_items.load(), 0);
}

TEST(batch_path, farms_of_maps_deliver_every_item_once_fused_and_unfused) {
  spate::runtime rt(runtime_with(workers(2)));
  for (bool fused : {true, false}) {
    flow::graph_options options;
    options.fuse_farms = fused;
    options.links.capacity = 8;
    constexpr std::uint64_t n = 40'000;
    auto pass = flow::map([](tracked& t) { return std::move(t); });
    std::vector<int> seen(n, 0);
    flow::graph g(flow::pipeline(tracked_source(n), flow::farm(pass, 3), flow::farm(pass, 2),
                                 flow::sink([&](tracked& t) { ++seen[*t.value]; })),
                  options);
    g.run(rt);
    for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "item " << i;
  }
  EXPECT_EQ(live_items.load(), 0);
}

TEST(batch_path, an_exception_mid_batch_cancels_and_leaks_nothing) {
  {
    spate::runtime rt(runtime_with(workers(2)));
    auto fail_at = flow::map([](tracked& t) {
                     if (*t.value == 30'000) throw std::runtime_error("bad item 30000");
                     return std::move(t);
                   }).named("checker");
    flow::graph g(flow::pipeline(tracked_source(100'000),
                                 flow::map([](tracked& t) { return std::move(t); }), fail_at,
                                 flow::sink([](tracked&) {})));
    try {
      g.run(rt);
      FAIL() << "expected node_error";
    } catch (const flow::node_error& e) {
      EXPECT_NE(e.node().find("checker"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("bad item 30000"), std::string::npos);
    }
  }
  EXPECT_EQ(live_items.load(), 0);
}

TEST(batch_path, items_per_activation_bounds_what_a_node_handles_before_yielding) {
  spate::runtime rt(runtime_with(workers(2)));
  constexpr std::uint64_t n = 10'000;
  for (std::size_t limit : {8u, 1024u}) {
    flow::graph_options options;
    options.items_per_activation = limit;
    std::uint64_t received = 0;
    flow::graph g(
        flow::pipeline(flow::generate<int>(n, [](std::size_t i) { return int(i); }),
                       flow::map([](int& x) { return x; }), flow::sink([&](int&) { ++received; })),
        options);
    g.run(rt);
    EXPECT_EQ(received, n);
    for (const auto& node : g.nodes()) {
      if (!node.chain.empty() && node.chain != node.name) continue;  // its chain's first counts
      const std::uint64_t handled = node.kind == "source" ? node.items_out : node.items_in;
      EXPECT_GE(node.activations * limit, handled) << node.name << " with limit " << limit;
    }
  }
}

TEST(batch_path, ordered_farm_of_maps_keeps_order_of_move_only_items) {
  spate::runtime rt(runtime_with(workers(2)));
  constexpr std::uint64_t n = 30'000;
  std::uint64_t expected = 0;
  flow::graph g(flow::pipeline(
      tracked_source(n), flow::ordered_farm(flow::map([](tracked& t) { return std::move(t); }), 3),
      flow::sink([&](tracked& t) { EXPECT_EQ(*t.value, expected++); })));
  g.run(rt);
  EXPECT_EQ(expected, n);
  EXPECT_EQ(live_items.load(), 0);
}
