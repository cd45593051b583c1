// Typed handles by interface: callers see message and response types, not the actor class.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace spate_test;

// What a caller would see in a header: messages and the interface, nothing else.
struct increment {
  int by;
};
struct get_count {};
struct reset {};
using counter_api = spate::actor_interface<void(increment), long(get_count), void(reset)>;

// What only the spawning code sees.
namespace {
struct counter : spate::typed_actor<counter, increment, get_count, reset, std::string> {
  void on(increment& i) {
    n += i.by;
    order.push_back(i.by);
  }
  long on(get_count&) { return n; }
  int on(reset&) { return std::exchange(n, 0) > 0 ? 1 : 0; }  // void in the interface
  void on(std::string&) {}                                    // not in the interface
  long n = 0;
  std::vector<int> order;
};

// Uses the handle without knowing `counter`.
long add_all(const spate::typed_handle<counter_api>& c, int count) {
  for (int i = 1; i <= count; ++i) spate::send(c, increment{i});
  return spate::request(c, get_count{}, std::chrono::seconds(30)).get();
}
}  // namespace

TEST(typed_handle, sends_and_requests_through_the_interface) {
  spate::actor_system system(quiet_config());
  auto impl = system.spawn<counter>();
  spate::typed_handle<counter_api> c = impl;
  static_assert(std::is_same_v<decltype(spate::request(c, get_count{}, 1s).get()), long>);
  static_assert(std::is_same_v<decltype(spate::request(c, reset{}, 1s)), spate::response<void>>);
  EXPECT_EQ(add_all(c, 100), 5050);
  spate::request(c, reset{}, 30s).get();  // void in the interface: completion only
  EXPECT_EQ(spate::request(c, get_count{}, 30s).get(), 0);
  EXPECT_EQ(c.id(), impl.id());
  EXPECT_EQ(c.untyped(), spate::actor(impl));
  EXPECT_FALSE(c.is_terminated());
  // Order per sender is the mailbox's: the handle adds no reordering.
  std::vector<int> expected;
  for (int i = 1; i <= 100; ++i) expected.push_back(i);
  EXPECT_EQ(impl.get()->order, expected);  // read after a reply: the actor is idle
}

TEST(typed_handle, null_handle_is_an_error_that_names_the_call) {
  spate::typed_handle<counter_api> none;
  EXPECT_FALSE(none);
  try {
    spate::send(none, increment{1});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("spate::send: null actor handle"), std::string::npos);
  }
}

TEST(typed_handle, a_terminated_actor_fails_requests_with_dead_actor) {
  spate::actor_system system(quiet_config());
  spate::typed_handle<counter_api> c = system.spawn<counter>();
  c.untyped().get()->kill({spate::exit_code::killed, "test"});
  ASSERT_TRUE(eventually([&] { return c.is_terminated(); }));
  try {
    spate::request(c, get_count{}, 30s).get();
    FAIL();
  } catch (const spate::request_error& e) {
    EXPECT_EQ(e.code(), spate::request_error_code::dead_actor);
  }
}
