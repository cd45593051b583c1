#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <string>

#include "test_support.hpp"

using namespace spate_test;

namespace {
struct square {
  int x;
};
struct boom {};
struct calculator : spate::typed_actor<calculator, square, boom> {
  int on(square& s) { return s.x * s.x; }
  void on(boom&) { throw std::runtime_error("division by zero"); }
};

struct ask {
  spate::actor_ref<calculator> target;
  int x;
};
struct result_of_ask {};
// Requests from inside an actor and keeps the answer (or the error) in its state.
struct asker : spate::typed_actor<asker, ask, result_of_ask> {
  void on(ask& a) {
    spate::request(a.target, square{a.x}, std::chrono::seconds(10))
        .then(
            *this, [this](int v) { answer = v; },
            [this](const spate::request_error& e) { error = e.what(); });
  }
  std::string on(result_of_ask&) { return error.empty() ? std::to_string(answer) : error; }
  int answer = -1;
  std::string error;
};
}  // namespace

TEST(request, typed_response_type_is_deduced) {
  spate::actor_system system(quiet_config());
  auto calc = system.spawn<calculator>();
  int r = spate::request(calc, square{12}, 10s).get();
  EXPECT_EQ(r, 144);
}

TEST(request, from_inside_an_actor_with_then) {
  spate::actor_system system(quiet_config());
  auto calc = system.spawn<calculator>();
  auto a = system.spawn<asker>();
  spate::send(a, ask{calc, 7});
  ASSERT_TRUE(eventually([&] { return spate::request(a, result_of_ask{}, 10s).get() == "49"; }));
}

TEST(request, times_out_when_nobody_answers) {
  // Declared before the system, whose destructor joins the actor that reads it; set on
  // every way out of the test, or that join would wait forever.
  std::atomic<bool> release{false};
  struct release_on_exit {
    std::atomic<bool>& flag;
    ~release_on_exit() { flag = true; }
  };
  spate::actor_system system(quiet_config());
  const release_on_exit releaser{release};
  // A blocking actor that never reads its mailbox until told to stop.
  auto silent = system.spawn_blocking([&](spate::blocking_actor&) {
    while (!release.load()) std::this_thread::sleep_for(1ms);
  });
  const auto start = std::chrono::steady_clock::now();
  try {
    spate::request<int>(silent, 1, 50ms).get();
    FAIL() << "expected a time-out";
  } catch (const spate::request_error& e) {
    EXPECT_EQ(e.code(), spate::request_error_code::timeout);
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, 50ms);
}

TEST(request, to_a_dead_actor_fails_at_once_and_sends_are_counted) {
  spate::actor_system system(quiet_config());
  auto calc = system.spawn<calculator>();
  EXPECT_THROW(spate::request(calc, boom{}, 10s).get(), spate::request_error);
  ASSERT_TRUE(eventually([&] { return calc.is_terminated(); }));
  try {
    spate::request(calc, square{2}, 10s).get();
    FAIL() << "expected dead_actor";
  } catch (const spate::request_error& e) {
    EXPECT_EQ(e.code(), spate::request_error_code::dead_actor);
  }
  const auto before = system.dead_letters();
  spate::send(calc, square{3});
  spate::send(calc, square{4});
  EXPECT_EQ(system.dead_letters(), before + 2);
}

TEST(request, handler_exception_fails_the_request_with_the_message) {
  spate::actor_system system(quiet_config());
  auto calc = system.spawn<calculator>();
  try {
    spate::request(calc, boom{}, 10s).get();
    FAIL() << "expected handler_failed";
  } catch (const spate::request_error& e) {
    EXPECT_EQ(e.code(), spate::request_error_code::handler_failed);
    EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos) << e.what();
  }
}

TEST(request, blocking_get_on_a_worker_thread_is_refused) {
  spate::actor_system system(quiet_config());
  auto calc = system.spawn<calculator>();
  auto a = system.spawn([calc](spate::event_based_actor&) {
    return spate::behavior{[calc](int) -> std::string {
      try {
        spate::request(calc, square{1}, std::chrono::seconds(1)).get();
        return "no error";
      } catch (const std::logic_error& e) {
        return e.what();
      }
    }};
  });
  const auto text = spate::request<std::string>(a, 0, 10s).get();
  EXPECT_NE(text.find("worker thread"), std::string::npos) << text;
}

TEST(request, null_handle_is_rejected) {
  spate::actor_ref<calculator> none;
  EXPECT_THROW(spate::send(none, square{1}), std::invalid_argument);
}

TEST(request, then_cancels_its_timeout_timer_when_the_reply_comes) {
  spate::actor_system system(quiet_config());
  auto calc = system.spawn<calculator>();
  auto a = system.spawn<asker>();
  for (int i = 0; i < 100; ++i) spate::send(a, ask{calc, i});
  ASSERT_TRUE(eventually([&] { return spate::request(a, result_of_ask{}, 10s).get() == "9801"; }));
  // Every request was answered: none of their 10 s time-out timers may stay pending (each
  // holds its request until it fires or is cancelled).
  EXPECT_TRUE(eventually([&] { return system.timers().pending() == 0; }, std::chrono::seconds(5)));
}

TEST(request, a_request_dropped_without_a_reply_still_ends) {
  // A sink destroyed unanswered (its message lost with a mailbox) fails the continuation:
  // a request always ends with a value, an error or a time-out.
  spate::actor_system system(quiet_config());
  auto a = system.spawn<asker>();
  std::atomic<int> errors{0};
  struct catcher : spate::typed_actor<catcher, int> {
    void on(int&) {
      auto sink = std::make_shared<spate::response_sink>("lost");
      sink->set_continuation(
          self(), [](std::any&) {},
          [this](const spate::request_error& e) {
            if (e.code() == spate::request_error_code::dead_actor) errors->fetch_add(1);
          });
    }  // the only reference goes here
    std::atomic<int>* errors = nullptr;
  };
  auto c = system.spawn<catcher>();
  c.get()->errors = &errors;
  spate::send(c, 1);
  EXPECT_TRUE(eventually([&] { return errors.load() == 1; }, std::chrono::seconds(10)));
}

TEST(request, a_maximal_timeout_means_no_timeout_not_an_immediate_one) {
  spate::actor_system system(quiet_config());
  auto calc = system.spawn<calculator>();
  // now() + nanoseconds::max() used to overflow into the past: the request timed out at once.
  int r = spate::request(calc, square{9}, std::chrono::nanoseconds::max()).get();
  EXPECT_EQ(r, 81);
}

namespace {
// Asks `target` for an int with a 50 ms time-out from inside an actor; the error's text goes
// to `failed`.
struct go {
  spate::actor target;
};
struct impatient : spate::typed_actor<impatient, go> {
  void on(go& g) {
    spate::request<int>(g.target, 1, std::chrono::milliseconds(50))
        .then(
            *this, [](int) {},
            [this](const spate::request_error& e) {
              failed->set_value(spate::to_string(e.code()) + ": " + e.what());
            });
  }
  std::promise<std::string>* failed = nullptr;
};
}  // namespace

// Issue 23: "request 'int' timed out" did not say to whom, nor after how long.
TEST(request, a_timeout_names_the_target_and_the_timeout) {
  spate::actor_system system(quiet_config());
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  // Never reads its mailbox until released: every request to it times out.
  auto silent =
      system.spawn_blocking([released](spate::blocking_actor&) { released.wait(); }, "silent");
  const std::string target = "actor 'silent' (id " + std::to_string(silent.id()) + ")";
  try {
    spate::request<int>(silent, 1, 50ms).get();
    FAIL() << "expected a time-out";
  } catch (const spate::request_error& e) {
    EXPECT_EQ(e.code(), spate::request_error_code::timeout);
    EXPECT_EQ(std::string(e.what()), "request 'int' to " + target + " timed out after 50 ms");
  }
  // The same text through then(), where the timer fails the request.
  std::promise<std::string> failed;
  auto asker = system.spawn<impatient>();
  asker.get()->failed = &failed;  // before any message: set-up only
  spate::send(asker, go{silent});
  EXPECT_EQ(failed.get_future().get(),
            "timeout: request 'int' to " + target + " timed out after 50 ms");
  release.set_value();
}

TEST(request, an_unnamed_target_is_named_by_its_id_and_other_units_are_kept) {
  EXPECT_EQ(spate::response_sink::describe_target("", 7), "actor 7");
  EXPECT_EQ(spate::response_sink::describe_target("pinger", 7), "actor 'pinger' (id 7)");
  spate::response_sink seconds("ping", "actor 7", std::chrono::seconds(2));
  EXPECT_STREQ(seconds.timeout_error().what(), "request 'ping' to actor 7 timed out after 2 s");
  spate::response_sink micros("ping", "actor 7", std::chrono::microseconds(1500));
  EXPECT_STREQ(micros.timeout_error().what(), "request 'ping' to actor 7 timed out after 1500 us");
  EXPECT_EQ(micros.timeout_error().code(), spate::request_error_code::timeout);
}

TEST(request, every_error_code_has_a_name) {
  EXPECT_EQ(spate::to_string(spate::request_error_code::timeout), "timeout");
  EXPECT_EQ(spate::to_string(spate::request_error_code::dead_actor), "dead_actor");
  EXPECT_EQ(spate::to_string(spate::request_error_code::unexpected_message), "unexpected_message");
  EXPECT_EQ(spate::to_string(spate::request_error_code::handler_failed), "handler_failed");
  EXPECT_EQ(spate::to_string(spate::request_error_code::broken_promise), "broken_promise");
  // An out-of-range value (a corrupted or future code) still prints.
  EXPECT_EQ(spate::to_string(static_cast<spate::request_error_code>(99)), "unknown");
}
