// Faults injected into every kind of user code a reactor program runs: reaction bodies,
// startup and shutdown reactions, deadline handlers, reactor constructors run by a mutation,
// physical actions scheduled from outside threads, and an error reporter that throws. None
// may terminate the process or hang environment::run(); the exception run() throws names the
// reaction and the tag and nests the original; later failures are counted and reported; and
// what runs after a failure is the same on 1, 2 and 4 workers in both scheduling modes
// (docs/reactors.md, "When a reaction throws").
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "spate/exec/runtime.hpp"
#include "spate/reactor.hpp"

namespace {

using namespace spate::reactor;
using namespace std::chrono_literals;

// What the runtime's error reporter received.
struct reports {
  std::mutex mutex;
  std::vector<std::string> texts;
  void add(const std::string& text) {
    std::lock_guard lock(mutex);
    texts.push_back(text);
  }
  std::vector<std::string> all() {
    std::lock_guard lock(mutex);
    return texts;
  }
};

spate::runtime_config workers(std::size_t n, reports* to) {
  spate::runtime_config config;
  config.scheduler.threads = n;
  config.read_environment = false;
  config.error_reporter = [to](const std::string& text) {
    if (to != nullptr) to->add(text);
  };
  return config;
}

// Levels mode runs every tag sparse; precise mode chooses per tag, so it is also run with
// sparse tags forced, to meet each fault on that path too.
struct configuration {
  std::size_t workers;
  scheduling_mode mode;
  sparse_tags sparse = sparse_tags::automatic;
};
const configuration all_configurations[] = {{1, scheduling_mode::levels},
                                            {1, scheduling_mode::precise},
                                            {2, scheduling_mode::levels},
                                            {2, scheduling_mode::precise},
                                            {4, scheduling_mode::levels},
                                            {4, scheduling_mode::precise},
                                            {2, scheduling_mode::precise, sparse_tags::always}};
std::string name_of(const configuration& c) {
  return std::to_string(c.workers) + " workers, " +
         (c.mode == scheduling_mode::levels ? "levels" : "precise") +
         (c.sparse == sparse_tags::always ? ", sparse tags" : "");
}

// What reactions saw, as "ms+step who: what", sorted (reactions of one tag run in any order).
struct event_log {
  std::mutex mutex;
  std::vector<std::tuple<std::int64_t, microstep, std::string, std::string>> entries;
  void add(const reactor& r, const std::string& what) {
    const tag t = r.current_tag();
    std::lock_guard lock(mutex);
    entries.emplace_back((t.time - r.start_time()) / 1ms, t.step, r.fully_qualified_name(), what);
  }
  std::string canonical() {
    std::lock_guard lock(mutex);
    auto sorted = entries;
    std::sort(sorted.begin(), sorted.end());
    std::ostringstream out;
    for (auto& [ms, step, who, what] : sorted)
      out << ms << '+' << step << ' ' << who << ": " << what << '\n';
    return out.str();
  }
};

struct custom_error : std::runtime_error {
  int at;
  explicit custom_error(int at) : std::runtime_error("boom at " + std::to_string(at)), at(at) {}
};

// ---------------------------------------------------------------- a reaction body throws

struct source : reactor {
  timer tick{this, "tick", 0ms, 1ms};
  output<int> out{this, "out"};
  event_log* log;
  source(context ctx, event_log* log) : reactor(ctx), log(log) {
    reaction("emit").triggers(tick).effects(out).body(
        [this](port_writer<int>& out) { out.set(static_cast<int>(elapsed_logical_time() / 1ms)); });
    reaction("bye").triggers(shutdown).body([this] { this->log->add(*this, "shutdown"); });
  }
};

struct sink : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  event_log* log;
  sink(context ctx, event_log* log) : reactor(ctx), log(log) {
    reaction().triggers(in).body(
        [this] { this->log->add(*this, "first " + std::to_string(in.get())); });
    // reaction_2: sets its output, then throws at 12 ms.
    reaction().triggers(in).effects(out).body([this](port_writer<int>& out) {
      if (in.get() == 12) {
        out.set(-1);
        throw custom_error(12);
      }
      out.set(in.get());
    });
    reaction("bye").triggers(shutdown).body([this] { this->log->add(*this, "shutdown"); });
  }
};

struct downstream : reactor {
  input<int> in{this, "in"};
  event_log* log;
  downstream(context ctx, event_log* log) : reactor(ctx), log(log) {
    reaction("see").triggers(in).body(
        [this] { this->log->add(*this, "saw " + std::to_string(in.get())); });
  }
};

struct bystander : reactor {
  timer tick{this, "tick", 0ms, 1ms};
  event_log* log;
  bystander(context ctx, event_log* log) : reactor(ctx), log(log) {
    reaction("tick").triggers(tick).body([this] {
      if (elapsed_logical_time() >= 11ms) this->log->add(*this, "tick");
    });
  }
};

struct failing_pipeline : reactor {
  source src;
  sink snk;
  downstream after;
  bystander other;
  failing_pipeline(context ctx, event_log* log)
      : reactor(ctx),
        src{{this, "source"}, log},
        snk{{this, "sink"}, log},
        after{{this, "after"}, log},
        other{{this, "other"}, log} {
    connect(src.out, snk.in);
    connect(snk.out, after.in);
  }
};

TEST(ReactorFaults, AReactionsExceptionNamesItAndItsTagAndNestsTheOriginal) {
  std::string reference;
  for (int round = 0; round < 3; ++round)
    for (const configuration& c : all_configurations) {
      reports errors;
      spate::runtime rt{workers(c.workers, &errors)};
      event_log log;
      {
        environment env{rt, {.mode = c.mode, .sparse = c.sparse, .fast = true, .timeout = 1s}};
        env.make_top<failing_pipeline>("main", &log);
        try {
          env.run();
          FAIL() << "run() returned normally (" << name_of(c) << ")";
        } catch (const reaction_error& e) {
          EXPECT_STREQ(e.what(),
                       "reaction 'main.sink.reaction_2' failed at tag (12 ms, 0): boom at 12")
              << name_of(c);
          EXPECT_EQ(e.reaction_name(), "main.sink.reaction_2");
          EXPECT_EQ(e.elapsed(), 12ms);
          EXPECT_EQ(e.failed_at().step, 0u);
          EXPECT_EQ(e.later_failures(), 0u);
          try {
            std::rethrow_if_nested(e);
            ADD_FAILURE() << "nothing nested";
          } catch (const custom_error& original) {
            EXPECT_EQ(original.at, 12);  // the user's own type, still catchable
          }
          try {
            std::rethrow_exception(e.original());
          } catch (const custom_error& original) {
            EXPECT_EQ(original.at, 12);
          }
        }
      }
      const std::string text = log.canonical();
      // The failing tag finished: the parallel reaction and the failed reaction's reader ran
      // (it saw what the reaction set before throwing); shutdown reactions ran at the next
      // microstep; nothing later.
      EXPECT_NE(text.find("12+0 main.other: tick"), std::string::npos) << text;
      EXPECT_NE(text.find("12+0 main.after: saw -1"), std::string::npos) << text;
      EXPECT_NE(text.find("12+1 main.sink: shutdown"), std::string::npos) << text;
      EXPECT_NE(text.find("12+1 main.source: shutdown"), std::string::npos) << text;
      EXPECT_EQ(text.find("13+"), std::string::npos) << text;
      EXPECT_TRUE(errors.all().empty());
      if (reference.empty()) reference = text;
      EXPECT_EQ(text, reference) << name_of(c) << ", round " << round;
    }
}

// ---------------------------------------------------------------- several failures

struct fragile : reactor {
  timer once{this, "once", 5ms};
  event_log* log;
  fragile(context ctx, event_log* log, bool fail_work, bool fail_shutdown)
      : reactor(ctx), log(log) {
    reaction("work").triggers(once).body([this, fail_work] {
      if (fail_work) throw std::runtime_error(fully_qualified_name() + " cannot work");
      this->log->add(*this, "worked");
    });
    reaction("bye").triggers(shutdown).body([this, fail_shutdown] {
      this->log->add(*this, "shutdown");
      if (fail_shutdown) throw std::runtime_error(fully_qualified_name() + " cannot stop");
    });
  }
};

struct many_failures : reactor {
  fragile a, b, c, d;
  many_failures(context ctx, event_log* log)
      : reactor(ctx),
        a{{this, "a"}, log, true, false},
        b{{this, "b"}, log, true, false},
        c{{this, "c"}, log, false, false},
        d{{this, "d"}, log, true, true} {}
};

TEST(ReactorFaults, LaterFailuresAreCountedAndReportedInLogicalOrder) {
  const std::vector<std::string> expected_reports = {
      "reaction 'main.b.work' failed at tag (5 ms, 0): main.b cannot work",
      "reaction 'main.d.work' failed at tag (5 ms, 0): main.d cannot work",
      "reaction 'main.d.bye' failed at tag (5 ms, 1): main.d cannot stop",
  };
  std::string reference;
  for (int round = 0; round < 3; ++round)
    for (const configuration& c : all_configurations) {
      reports errors;
      spate::runtime rt{workers(c.workers, &errors)};
      event_log log;
      environment env{rt, {.mode = c.mode, .sparse = c.sparse, .fast = true}};
      env.make_top<many_failures>("main", &log);
      try {
        env.run();
        FAIL() << "run() returned normally";
      } catch (const reaction_error& e) {
        EXPECT_EQ(e.reaction_name(), "main.a.work") << name_of(c);
        EXPECT_EQ(e.later_failures(), 3u) << name_of(c);
        const std::string what = e.what();
        EXPECT_EQ(
            what.rfind("reaction 'main.a.work' failed at tag (5 ms, 0): main.a cannot work", 0), 0u)
            << what;
        EXPECT_NE(what.find("3 later failures"), std::string::npos) << what;
        EXPECT_NE(what.find("main.b.work"), std::string::npos) << what;  // the next one
      }
      EXPECT_EQ(errors.all(), expected_reports) << name_of(c);
      const std::string text = log.canonical();
      for (const char* who : {"a", "b", "c", "d"})
        EXPECT_NE(text.find(std::string("5+1 main.") + who + ": shutdown"), std::string::npos)
            << text;
      EXPECT_NE(text.find("5+0 main.c: worked"), std::string::npos) << text;
      if (reference.empty()) reference = text;
      EXPECT_EQ(text, reference) << name_of(c);
    }
}

TEST(ReactorFaults, AnErrorReporterThatThrowsDoesNotTakeTheProcessDown) {
  spate::runtime_config config = workers(2, nullptr);
  config.error_reporter = [](const std::string&) { throw std::runtime_error("reporter broken"); };
  spate::runtime rt{config};
  event_log log;
  environment env{rt, {.fast = true}};
  env.make_top<many_failures>("main", &log);
  try {
    env.run();
    FAIL() << "run() returned normally";
  } catch (const reaction_error& e) {
    EXPECT_EQ(e.later_failures(), 3u);
  }
}

// ---------------------------------------------------------------- startup and shutdown

struct failing_start : reactor {
  timer tick{this, "tick", 1ms, 1ms};
  event_log* log;
  failing_start(context ctx, event_log* log) : reactor(ctx), log(log) {
    reaction("boot").triggers(startup).body([] { throw std::logic_error("no config"); });
    reaction("tick").triggers(tick).body([this] { this->log->add(*this, "tick"); });
    reaction("bye").triggers(shutdown).body([this] { this->log->add(*this, "shutdown"); });
  }
};

TEST(ReactorFaults, AStartupReactionsExceptionStopsAtTheNextMicrostep) {
  for (const configuration& c : all_configurations) {
    spate::runtime rt{workers(c.workers, nullptr)};
    event_log log;
    environment env{rt, {.mode = c.mode, .sparse = c.sparse, .fast = true, .timeout = 1s}};
    env.make_top<failing_start>("main", &log);
    try {
      env.run();
      FAIL() << "run() returned normally";
    } catch (const reaction_error& e) {
      EXPECT_STREQ(e.what(), "reaction 'main.boot' failed at tag (0 ms, 0): no config");
      EXPECT_THROW(std::rethrow_if_nested(e), std::logic_error);
    }
    EXPECT_EQ(log.canonical(), "0+1 main: shutdown\n") << name_of(c);
  }
}

struct failing_stop : reactor {
  timer tick{this, "tick", 0ms, 1ms};
  int ticks = 0;
  failing_stop(context ctx) : reactor(ctx) {
    reaction("tick").triggers(tick).body([this] { ++ticks; });
    reaction("bye").triggers(shutdown).body([] { throw 42; });  // not even a std::exception
  }
};

TEST(ReactorFaults, AShutdownReactionsExceptionIsReportedAfterTheLastTag) {
  for (const configuration& c : all_configurations) {
    spate::runtime rt{workers(c.workers, nullptr)};
    environment env{rt, {.mode = c.mode, .sparse = c.sparse, .fast = true, .timeout = 3ms}};
    auto& program = env.make_top<failing_stop>("main");
    try {
      env.run();
      FAIL() << "run() returned normally";
    } catch (const reaction_error& e) {
      EXPECT_STREQ(e.what(),
                   "reaction 'main.bye' failed at tag (3 ms, 0): an exception not derived from "
                   "std::exception");
      try {
        std::rethrow_if_nested(e);
      } catch (int value) {
        EXPECT_EQ(value, 42);
      }
    }
    EXPECT_EQ(program.ticks, 4) << name_of(c);  // 0, 1, 2, 3 ms
    EXPECT_TRUE(env.is_finished());
  }
}

// ---------------------------------------------------------------- deadline handlers

struct late : reactor {
  bool body_ran = false;
  explicit late(context ctx) : reactor(ctx) {
    reaction("slow").triggers(startup).body([] { std::this_thread::sleep_for(5ms); });
    reaction("check").triggers(startup).body([this] { body_ran = true; }).deadline(1ms, [] {
      throw std::runtime_error("missed and failed");
    });
  }
};

TEST(ReactorFaults, ADeadlineHandlersExceptionNamesTheHandler) {
  for (const configuration& c : all_configurations) {
    spate::runtime rt{workers(c.workers, nullptr)};
    environment env{rt, {.mode = c.mode, .sparse = c.sparse}};
    auto& program = env.make_top<late>("main");
    try {
      env.run();
      FAIL() << "run() returned normally";
    } catch (const reaction_error& e) {
      EXPECT_STREQ(e.what(),
                   "reaction 'main.check' failed at tag (0 ms, 0) in its deadline handler: missed "
                   "and failed")
          << name_of(c);
    }
    EXPECT_FALSE(program.body_ran);
  }
}

// ---------------------------------------------------------------- mutations

std::atomic<int> fussy_started{0};

struct fussy : reactor {
  fussy(context ctx, bool fail) : reactor(ctx) {
    reaction("hello").triggers(startup).body([] { ++fussy_started; });
    if (fail) throw std::runtime_error("cannot build " + fully_qualified_name());
  }
};

struct builder : reactor {
  timer once{this, "once", 1ms};
  bool constructor_fails;
  bool shut_down = false;
  builder(context ctx, bool constructor_fails)
      : reactor(ctx), constructor_fails(constructor_fails) {
    reaction("grow").triggers(once).effects(mutations).body([this](mutator& m) {
      m.create<fussy>("good", false);
      if (this->constructor_fails) m.create<fussy>("bad", true);
      throw std::runtime_error("changed my mind");
    });
    reaction("bye").triggers(shutdown).body([this] { shut_down = true; });
  }
};

TEST(ReactorFaults, AFailedMutationIsDroppedWholeAndNamesTheMutatingReaction) {
  for (bool constructor_fails : {true, false})
    for (const configuration& c : all_configurations) {
      fussy_started = 0;
      spate::runtime rt{workers(c.workers, nullptr)};
      environment env{rt, {.mode = c.mode, .sparse = c.sparse, .fast = true, .timeout = 10ms}};
      auto& program = env.make_top<builder>("main", constructor_fails);
      try {
        env.run();
        FAIL() << "run() returned normally";
      } catch (const reaction_error& e) {
        const std::string expected =
            constructor_fails
                ? "reaction 'main.grow' failed at tag (1 ms, 0): cannot build main.bad"
                : "reaction 'main.grow' failed at tag (1 ms, 0): changed my mind";
        EXPECT_EQ(e.what(), expected) << name_of(c);
      }
      EXPECT_TRUE(program.shut_down);
      EXPECT_EQ(fussy_started.load(), 0) << "the created reactor joined the program";
      EXPECT_EQ(env.reaction_count(), 2u);  // grow and bye: nothing of the mutation
      EXPECT_EQ(env.rejected_mutations(), 0u);
    }
}

// ---------------------------------------------------------------- physical actions

struct picky {
  int value;
  picky(int v) : value(v) {  // NOLINT: implicit on purpose, schedule(int) builds it
    if (v < 0) throw std::domain_error("negative");
  }
};

struct listener : reactor {
  physical_action<picky> in{this, "in"};
  std::atomic<int> heard{0};
  std::atomic<bool> shut_down{false};
  explicit listener(context ctx) : reactor(ctx) {
    reaction("hear").triggers(in).body([this] {
      if (in.get().value == 1000) throw std::runtime_error("heard 1000");
      ++heard;
    });
    reaction("bye").triggers(shutdown).body([this] { shut_down = true; });
  }
};

TEST(ReactorFaults, OutsideThreadsSchedulingPhysicalActionsGetTheirOwnErrorsAndNeverHang) {
  for (const configuration& c : all_configurations) {
    reports errors;
    spate::runtime rt{workers(c.workers, &errors)};
    environment env{rt, {.mode = c.mode, .sparse = c.sparse}};
    auto& program = env.make_top<listener>("main");
    EXPECT_THROW(program.in.schedule(1), std::logic_error);  // not assembled yet
    env.start();
    // The caller's own mistakes are the caller's exceptions; the program goes on.
    EXPECT_THROW(program.in.schedule(1, -1ms), std::invalid_argument);
    EXPECT_THROW(program.in.schedule(-1), std::domain_error);
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        while (!go.load()) std::this_thread::yield();
        for (int i = 0; i < 200; ++i) {
          program.in.schedule(t == 0 && i == 100 ? 1000 : i);  // one of them fails the program
          if (i % 50 == 0) std::this_thread::sleep_for(100us);
        }
      });
    go = true;
    bool finished = false;
    try {
      finished = env.wait_for(20s);
    } catch (const reaction_error& e) {
      finished = true;
      EXPECT_EQ(e.reaction_name(), "main.hear");
      EXPECT_NE(std::string(e.what()).find("heard 1000"), std::string::npos) << e.what();
    }
    for (auto& t : threads) t.join();
    ASSERT_TRUE(finished) << "wait_for timed out: the program did not stop (" << name_of(c) << ")";
    EXPECT_TRUE(program.shut_down.load());
    EXPECT_NO_THROW(program.in.schedule(5));   // after the end: nothing can react, no error
    EXPECT_THROW(env.wait(), reaction_error);  // waiting again gives the same answer
    EXPECT_TRUE(errors.all().empty());
  }
}

// ---------------------------------------------------------------- nobody waits

TEST(ReactorFaults, AFailureNobodyWaitedForIsReportedWhenTheEnvironmentIsDestroyed) {
  reports errors;
  spate::runtime rt{workers(2, &errors)};
  {
    event_log log;
    environment env{rt, {.fast = true, .timeout = 1s}};
    env.make_top<failing_start>("main", &log);
    env.start();
    for (int i = 0; i < 10000 && !env.is_finished(); ++i) std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(env.is_finished());
  }
  auto texts = errors.all();
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], "reaction 'main.boot' failed at tag (0 ms, 0): no config");
}

}  // namespace
