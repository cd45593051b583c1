// Replying later (response_promise, delegate) and receive<T>() keeping other messages.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "test_support.hpp"

using namespace spate_test;

namespace {
struct read_total {};
struct add {
  long amount;
};
// The actor that knows the answer.
struct store : spate::typed_actor<store, read_total, add> {
  long on(read_total&) { return total; }
  void on(add& a) { total += a.amount; }
  long total = 0;
};

struct get_total_doubled {};
struct get_total_delegated {};
struct forget_to_answer {};
// Answers after asking the store: a response_promise handed to a continuation.
struct front : spate::typed_actor<front, get_total_doubled, get_total_delegated, forget_to_answer> {
  explicit front(spate::actor_ref<store> s) : backend(std::move(s)) {}
  spate::response_promise<long> on(get_total_doubled&) {
    auto promise = make_response_promise<long>();
    spate::request(backend, read_total{}, std::chrono::seconds(30))
        .then(
            *this, [promise](long total) mutable { promise.deliver(2 * total); },
            [promise](const spate::request_error& e) mutable { promise.fail(e); });
    return promise;
  }
  spate::response_promise<long> on(get_total_delegated&) {
    auto promise = make_response_promise<long>();
    promise.delegate(backend, read_total{});
    EXPECT_FALSE(promise.pending());
    return promise;
  }
  spate::response_promise<int> on(forget_to_answer&) {
    (void)make_response_promise<int>();  // dropped here: the requester must not hang
    return {};
  }
  void on_stop() { backend = nullptr; }
  spate::actor_ref<store> backend;
};
}  // namespace

TEST(response_promise, a_handler_answers_after_asking_another_actor) {
  spate::actor_system system(quiet_config());
  auto s = system.spawn<store>();
  spate::send(s, add{21});
  auto f = system.spawn<front>(s);
  // The response type is the promise's value type, deduced like any typed handler's.
  long doubled = spate::request(f, get_total_doubled{}, 30s).get();
  EXPECT_EQ(doubled, 42);
}

TEST(response_promise, delegate_lets_another_actor_answer) {
  spate::actor_system system(quiet_config());
  auto s = system.spawn<store>();
  spate::send(s, add{7});
  auto f = system.spawn<front>(s);
  EXPECT_EQ(spate::request(f, get_total_delegated{}, 30s).get(), 7);
}

TEST(response_promise, a_dropped_promise_fails_the_request_at_once) {
  spate::actor_system system(quiet_config());
  auto f = system.spawn<front>(system.spawn<store>());
  const auto started = std::chrono::steady_clock::now();
  try {
    spate::request(f, forget_to_answer{}, 60s).get();
    FAIL() << "expected broken_promise";
  } catch (const spate::request_error& e) {
    EXPECT_EQ(e.code(), spate::request_error_code::broken_promise);
    EXPECT_NE(std::string(e.what()).find("forget_to_answer"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);  // not the 60 s time-out
}

TEST(response_promise, works_in_dynamic_actors_and_outside_handlers_is_an_error) {
  spate::actor_system system(quiet_config());
  auto s = system.spawn<store>();
  spate::send(s, add{5});
  auto dynamic = system.spawn([s](spate::event_based_actor& self) {
    return spate::behavior{[&self, s](int factor) {
      auto promise = self.make_response_promise<long>();
      spate::request(s, read_total{}, std::chrono::seconds(30))
          .then(
              self, [promise, factor](long total) mutable { promise.deliver(factor * total); },
              [promise](const spate::request_error& e) mutable { promise.fail(e); });
      return promise;
    }};
  });
  EXPECT_EQ(spate::request<long>(dynamic, 3, 30s).get(), 15);
}

TEST(response_promise, making_one_outside_a_handler_is_an_error) {
  struct misuser : spate::typed_actor<misuser, int> {
    explicit misuser(std::atomic<int>* seen) : seen(seen) {}
    void on_start() {
      try {
        (void)make_response_promise<int>();
      } catch (const std::logic_error& e) {
        seen->store(
            std::string(e.what()).find("outside a message handler") != std::string::npos ? 1 : 2);
      }
    }
    void on(int&) {}
    std::atomic<int>* seen;
  };
  std::atomic<int> seen{0};
  spate::actor_system system(quiet_config());
  system.spawn<misuser>(&seen);
  ASSERT_TRUE(eventually([&] { return seen.load() != 0; }));
  EXPECT_EQ(seen.load(), 1);
}

TEST(blocking_actor, receive_of_a_type_keeps_other_messages_in_order) {
  spate::actor_system system(quiet_config());
  spate::scoped_actor self(system);
  spate::send(spate::actor(self), std::string("first"));
  spate::send(spate::actor(self), 1);
  spate::send(spate::actor(self), std::string("second"));
  spate::send(spate::actor(self), 2.5);
  // The double comes last but is taken first; nothing else is lost or reported.
  EXPECT_EQ(self->receive<double>(), 2.5);
  EXPECT_EQ(self->mailbox_size(), 3u);
  EXPECT_EQ(self->receive<std::string>(), "first");
  EXPECT_EQ(self->receive<std::string>(), "second");
  EXPECT_FALSE(self->receive_for<std::string>(10ms).has_value());
  // A behaviour receive takes the oldest kept message it handles.
  int got = 0;
  EXPECT_TRUE(self->receive_for(30s, [&](int x) { got = x; }));
  EXPECT_EQ(got, 1);
  EXPECT_EQ(self->mailbox_size(), 0u);
  EXPECT_EQ(system.unexpected_messages(), 0u);
}
