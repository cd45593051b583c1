// Keyed state (state/keyed.hpp, state/keyed_store.hpp): handles bound to the current item's
// key inside consume() of a by_key farm's node, against sequential references; rows dropped
// when every state is empty; misuse refused with the state's name.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "../flow/flow_test_support.hpp"
#include "spate/state/keyed.hpp"
#include "spate/state/keyed_store.hpp"

using namespace flow_test;
namespace state = spate::state;

namespace {

struct event {
  std::string user;
  std::int64_t amount = 0;
};

struct tally {
  std::string user;
  std::uint64_t seen = 0;    // events of this user so far, this one included
  std::int64_t largest = 0;  // the largest amount so far
  std::size_t distinct = 0;  // distinct amounts so far
  std::size_t recent = 0;    // amounts kept since the last reset
};

// Every kind of handle: a value, a map and a list, and a reset of the list at 3 entries.
struct per_user : flow::node<event, tally> {
  state::value<std::uint64_t> seen{"seen"};
  state::value<std::int64_t> largest{"largest"};
  state::map<std::int64_t, std::uint32_t> amounts{"amounts"};
  state::list<std::int64_t> recent{"recent"};
  auto state_fields() { return std::tie(seen, largest, amounts, recent); }

  void consume(event& e) {
    const std::uint64_t n = ++seen.get_or_init(0u);
    if (!largest.has_value() || *largest < e.amount) largest.set(e.amount);
    ++amounts[e.amount];
    recent.add(e.amount);
    const std::size_t kept = recent.size();
    if (kept == 3) recent.clear();
    send_next(tally{e.user, n, *largest, amounts.size(), kept});
  }
};

std::vector<event> events(std::size_t n, std::size_t users) {
  std::vector<event> out;
  for (std::size_t i = 0; i < n; ++i) {
    std::string user = "user-";
    user += std::to_string(i * 7 % users);
    out.push_back({std::move(user), static_cast<std::int64_t>(i * 13 % 11)});
  }
  return out;
}

// What per_user sends, computed in one loop.
std::map<std::string, std::vector<tally>> reference(const std::vector<event>& in) {
  struct row {
    std::uint64_t seen = 0;
    std::int64_t largest = 0;
    std::map<std::int64_t, std::uint32_t> amounts;
    std::size_t recent = 0;
  };
  std::map<std::string, row> rows;
  std::map<std::string, std::vector<tally>> out;
  for (const auto& e : in) {
    row& r = rows[e.user];
    ++r.seen;
    if (r.seen == 1 || r.largest < e.amount) r.largest = e.amount;
    ++r.amounts[e.amount];
    const std::size_t kept = ++r.recent;
    if (kept == 3) r.recent = 0;
    out[e.user].push_back({e.user, r.seen, r.largest, r.amounts.size(), kept});
  }
  return out;
}

bool operator==(const tally& a, const tally& b) {
  return std::tie(a.user, a.seen, a.largest, a.distinct, a.recent) ==
         std::tie(b.user, b.seen, b.largest, b.distinct, b.recent);
}

}  // namespace

// Three replicas on two workers: each user's tallies, in order, equal the sequential loop's.
TEST(keyed_state, each_key_sees_its_own_state_in_a_by_key_farm) {
  const auto in = events(30'000, 97);
  spate::runtime rt(runtime_with(workers(2)));
  std::map<std::string, std::vector<tally>> got;
  flow::graph g(
      flow::pipeline(flow::generate<event>(in.size(), [&](std::size_t i) { return in[i]; }),
                     flow::farm(per_user{}, 3, flow::by_key{[](const event& e) { return e.user; }}),
                     flow::sink([&](tally& t) { got[t.user].push_back(t); })));
  g.run(rt);
  EXPECT_EQ(got, reference(in));
}

// The store drops a key whose states are all empty after consume(), and keeps it otherwise.
TEST(keyed_state, a_key_whose_states_are_all_empty_is_dropped) {
  state::value<int> v{"v"};
  state::list<int> l{"l"};
  state::keyed_store<std::string, std::tuple<state::value<int>&, state::list<int>&>> store;
  auto fields = std::tie(v, l);
  store.with_key("a", fields, [&] { v.set(1); });
  store.with_key("b", fields, [&] { l.add(2); });
  store.with_key("c", fields, [&] { (void)v.has_value(); });  // only read: nothing kept
  EXPECT_EQ(store.size(), 2u);
  store.with_key("a", fields, [&] {
    EXPECT_EQ(*v, 1);
    v.clear();
  });
  EXPECT_EQ(store.size(), 1u);
  ASSERT_NE(store.find("b"), nullptr);
  EXPECT_EQ(std::get<1>(*store.find("b")), std::vector<int>{2});
  EXPECT_EQ(store.find("a"), nullptr);
  EXPECT_FALSE(v.bound());  // unbound after each item
}

// Unbound also when consume() throws; the row written before the throw stays.
TEST(keyed_state, a_throwing_consume_leaves_the_handles_unbound) {
  state::value<int> v{"v"};
  state::keyed_store<int, std::tuple<state::value<int>&>> store;
  auto fields = std::tie(v);
  EXPECT_THROW(store.with_key(1, fields,
                              [&] {
                                v.set(5);
                                throw std::runtime_error("bad item");
                              }),
               std::runtime_error);
  EXPECT_FALSE(v.bound());
  ASSERT_NE(store.find(1), nullptr);
  EXPECT_EQ(std::get<0>(*store.find(1)), std::optional<int>(5));
}

// A handle used with no current key (on_stop here) fails the graph with the state's name;
// an empty value read with * does the same.
TEST(keyed_state, a_handle_used_outside_consume_fails_naming_the_state) {
  struct totals_on_stop : flow::node<event, void> {
    state::value<std::int64_t> total{"total"};
    auto state_fields() { return std::tie(total); }
    void consume(event& e) { total.get_or_init(0) += e.amount; }
    void on_stop() { (void)*total; }
  };
  spate::runtime rt(runtime_with(workers(2)));
  const auto in = events(10, 3);
  flow::graph g(flow::pipeline(
      flow::generate<event>(in.size(), [&](std::size_t i) { return in[i]; }),
      flow::farm(totals_on_stop{}, 2, flow::by_key{[](const event& e) { return e.user; }})));
  try {
    g.run(rt);
    FAIL() << "expected node_error";
  } catch (const flow::node_error& e) {
    EXPECT_NE(std::string(e.what()).find("'total' used with no current key"), std::string::npos)
        << e.what();
  }

  state::value<int> v{"count"};
  state::keyed_store<int, std::tuple<state::value<int>&>> store;
  auto fields = std::tie(v);
  try {
    store.with_key(1, fields, [&] { (void)*v; });
    FAIL() << "expected logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("value 'count' is empty"), std::string::npos) << e.what();
  }
  EXPECT_THROW(state::value<int>{""}, std::invalid_argument);
}

// Two states with one name, and a keyed node in an ordered farm, are refused when the graph
// is built (when it starts).
TEST(keyed_state, repeated_names_and_ordered_farms_are_refused) {
  struct twice : flow::node<event, void> {
    state::value<int> a{"same"};
    state::list<int> b{"same"};
    auto state_fields() { return std::tie(a, b); }
    void consume(event&) {}
  };
  const auto key = flow::by_key{[](const event& e) { return e.user; }};
  const auto source = flow::generate<event>(1, [](std::size_t) { return event{"u", 1}; });
  spate::runtime rt(runtime_with(workers(2)));
  try {
    flow::graph g(flow::pipeline(source, flow::farm(twice{}, 2, key)));
    g.run(rt);  // a graph is built when it starts
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("named 'same'"), std::string::npos) << e.what();
  }
  try {
    flow::graph g(
        flow::pipeline(source, flow::ordered_farm(per_user{}, 2, key), flow::sink([](tally&) {})));
    g.run(rt);
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("needs a plain by_key farm"), std::string::npos)
        << e.what();
  }
}
