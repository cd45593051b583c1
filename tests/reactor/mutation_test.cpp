// Mutations: reactors and connections created and removed by reactions, taking effect at the
// next tag; rejected whole (with the cycle named) when they would close a causality loop.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "../../examples/reactor_fib.hpp"
#include "lf_test_support.hpp"

namespace lf_test {
namespace {

spate::runtime_config quiet_workers(std::size_t n, std::vector<std::string>* errors) {
  spate::runtime_config config;
  config.scheduler.threads = n;
  config.read_environment = false;
  static std::mutex mutex;
  config.error_reporter = [errors](const std::string& text) {
    std::lock_guard lock(mutex);
    if (errors != nullptr) errors->push_back(text);
  };
  return config;
}

struct doubler : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  bool started = false;
  explicit doubler(context ctx) : reactor(ctx) {
    reaction("hello").triggers(startup).body([this] { started = true; });
    reaction("double").triggers(in).effects(out).body(
        [this](port_writer<int>& out) { out.set(2 * in.get()); });
  }
};

struct recorder : reactor {
  input<int> direct{this, "direct"}, via{this, "via"};
  int directs = 0;
  std::vector<std::pair<int, std::int64_t>> vias;  // value, elapsed ms
  explicit recorder(context ctx) : reactor(ctx) {
    reaction("record").triggers(direct, via).body([this] {
      if (direct.is_present()) ++directs;
      if (via.is_present()) {
        vias.emplace_back(via.get(), elapsed_logical_time() / 1ms);
        note(*this, "via " + str(via.get()));
      }
    });
  }
};

// Ticks; at tick 2 creates a doubler from its output to the recorder; at tick 5 removes it.
struct grower : reactor {
  timer tick{this, "tick", 0ms, 1ms};
  output<int> out{this, "out"};
  recorder sink{{this, "sink"}};
  int n = 0;
  doubler* made = nullptr;
  explicit grower(context ctx) : reactor(ctx) {
    reaction("tick")
        .triggers(tick)
        .effects(out, sink.direct, mutations)
        .body([this](port_writer<int>& out, port_writer<int>& direct, mutator& m) {
          ++n;
          out.set(n);
          direct.set(n);
          if (n == 2) {
            made = &m.create<doubler>("made");
            m.connect(this->out, made->in);
            m.connect(made->out, sink.via);
          }
          if (n == 5) m.remove(*made);  // at the end of this tag: its value still passes
        });
  }
};

TEST(ReactorMutation, CreatedReactorsJoinAtTheNextTagAndLeaveWhenRemoved) {
  for (auto mode : {scheduling_mode::precise, scheduling_mode::levels}) {
    std::vector<std::string> errors;
    spate::runtime rt{quiet_workers(2, &errors)};
    environment env{rt, {.mode = mode, .fast = true, .timeout = 8ms}};
    auto& g = env.make_top<grower>("main");
    env.run();
    for (auto& e : errors) ADD_FAILURE() << e;
    EXPECT_EQ(g.sink.directs, 9);  // ticks at 0..8 ms
    ASSERT_EQ(g.sink.vias.size(), 3u);
    EXPECT_EQ(g.sink.vias[0], (std::pair<int, std::int64_t>{6, 2}));
    EXPECT_EQ(g.sink.vias[1], (std::pair<int, std::int64_t>{8, 3}));
    EXPECT_EQ(g.sink.vias[2], (std::pair<int, std::int64_t>{10, 4}));
    EXPECT_EQ(env.reaction_count(), 2u);  // tick, record: the doubler's two were removed
    EXPECT_EQ(env.rejected_mutations(), 0u) << (errors.empty() ? "" : errors.front());
    EXPECT_TRUE(errors.empty());
    EXPECT_EQ(env.rejected_mutations(), 0u);
    EXPECT_TRUE(errors.empty());
  }
}

// Built in steps: GCC 12 (-O3) misreads "w" + std::to_string(k) here as an oversized copy.
std::string witness_name(int k) {
  std::string name = "w";
  name += std::to_string(k);
  return name;
}

// Records every value it hears, under its own name, in a log its creator keeps.
struct witness : reactor {
  input<int> in{this, "in"};
  explicit witness(context ctx, std::mutex* mutex, std::map<std::string, std::vector<int>>* log)
      : reactor(ctx) {
    reaction("record").triggers(in).body([this, mutex, log] {
      std::lock_guard lock(*mutex);
      (*log)[name()].push_back(in.get());
    });
  }
};

// Tick n creates witness w<n> and removes w<n-2>, so each witness hears two ticks and every
// removal renumbers the witnesses made after it.
struct churner : reactor {
  static constexpr int created = 15;
  timer tick{this, "tick", 0ms, 1ms};
  output<int> out{this, "out"};
  std::mutex mutex;
  std::map<std::string, std::vector<int>> log;
  std::vector<witness*> made;
  int n = 0;
  explicit churner(context ctx) : reactor(ctx) {
    reaction("tick")
        .triggers(tick)
        .effects(out, mutations)
        .body([this](port_writer<int>& out, mutator& m) {
          out.set(++n);
          if (n <= created) {
            made.push_back(&m.create<witness>(witness_name(n), &mutex, &log));
            m.connect(this->out, made.back()->in);
          }
          if (n >= 3 && n - 2 <= created) m.remove(*made[n - 3]);
        });
  }
};

TEST(ReactorMutation, RemovedReactionsLeaveNoSlotAndSurvivorsKeepTheirNames) {
  for (auto mode : {scheduling_mode::precise, scheduling_mode::levels})
    for (std::size_t workers : {1u, 2u}) {
      SCOPED_TRACE(testing::Message() << "workers " << workers);
      std::vector<std::string> errors;
      spate::runtime rt{quiet_workers(workers, &errors)};
      environment env{rt, {.mode = mode, .fast = true, .timeout = 30ms, .trace = true}};
      auto& c = env.make_top<churner>("main");
      env.run();
      for (auto& e : errors) ADD_FAILURE() << e;
      // Every witness heard the two ticks after the one that made it, and nothing else.
      ASSERT_EQ(c.log.size(), static_cast<std::size_t>(churner::created));
      for (int k = 1; k <= churner::created; ++k)
        EXPECT_EQ(c.log[witness_name(k)], (std::vector<int>{k + 1, k + 2})) << k;
      // The table holds the live program only: `tick`, every witness gone.
      EXPECT_EQ(env.reaction_count(), 1u);
      // The trace names each run after the reaction that ran, across the renumbering.
      const std::string trace = env.trace_json();
      for (int k = 1; k <= churner::created; ++k) {
        const std::string name = "\"main." + witness_name(k) + ".record\"";
        std::size_t count = 0;
        for (auto at = trace.find(name); at != std::string::npos; at = trace.find(name, at + 1))
          ++count;
        EXPECT_EQ(count, 2u) << name;
      }
    }
}

struct looper : reactor {
  timer tick{this, "tick", 0ms, 1ms};
  doubler a{{this, "a"}};
  int n = 0, seen = 0;
  explicit looper(context ctx) : reactor(ctx) {
    reaction("feed")
        .triggers(tick)
        .effects(a.in, mutations)
        .body([this](port_writer<int>& in, mutator& m) {
          in.set(++n);
          if (n == 2) {
            auto& b = m.create<doubler>("b");
            m.connect(a.out, b.in);
            m.connect(b.out, a.in);  // a.in is written by `feed` already: two writers
          }
          if (n == 3) {
            auto& c = m.create<doubler>("c");
            auto& d = m.create<doubler>("d");
            m.connect(c.out, d.in);
            m.connect(d.out, c.in);  // c -> d -> c: a causality cycle
          }
        });
    reaction("watch").triggers(a.out).body([this] { ++seen; });
  }
};

TEST(ReactorMutation, ABrokenMutationIsRejectedWholeWithItsCycleNamed) {
  std::vector<std::string> errors;
  spate::runtime rt{quiet_workers(2, &errors)};
  environment env{rt, {.fast = true, .timeout = 5ms}};
  auto& program = env.make_top<looper>("main");
  env.run();
  EXPECT_EQ(env.rejected_mutations(), 2u);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("main.a.in has two writers"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("mutation rejected: causality cycle"), std::string::npos) << errors[1];
  EXPECT_NE(errors[1].find("main.c.double"), std::string::npos) << errors[1];
  EXPECT_NE(errors[1].find("main.d.double"), std::string::npos) << errors[1];
  EXPECT_EQ(program.seen, 6);           // the program went on as it was: ticks 0..5 ms
  EXPECT_EQ(env.reaction_count(), 4u);  // a.hello, a.double, feed, watch: nothing of b, c, d
}

// The error reporter runs while the scheduler applies the tag's mutations; asking the
// environment for its counts from there must answer, not wait for the scheduler's lock.
TEST(ReactorMutation, TheErrorReporterMayAskForTheCounts) {
  std::vector<std::size_t> seen;  // rejected mutations, then reactions, at each report
  environment* asked = nullptr;
  spate::runtime_config config = quiet_workers(2, nullptr);
  config.error_reporter = [&](const std::string&) {
    if (asked == nullptr) return;
    seen.push_back(asked->rejected_mutations());
    seen.push_back(asked->reaction_count());
    seen.push_back(asked->level_count());
  };
  spate::runtime rt{config};
  environment env{rt, {.fast = true, .timeout = 5ms}};
  asked = &env;
  env.make_top<looper>("main");
  env.run();
  // Both rejections were counted before their reports; the program was as assembled then.
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen[0], 1u);
  EXPECT_EQ(seen[3], 2u);
  EXPECT_EQ(seen[1], 4u);
  EXPECT_EQ(seen[4], 4u);
  EXPECT_EQ(seen[2], env.level_count());
}

// A created reactor whose reaction declares an effect it may not have (its container's
// output, already read by `watch`): the mutation is refused before any dependency edge goes
// in, so `watch` keeps no edge from the freed reaction (ASan saw its predecessor list point
// into freed memory once a later mutation made the next tags compute their cones again).
struct trespasser : reactor {
  trespasser(context ctx, output<int>* outside) : reactor(ctx) {
    reaction("write_outside").triggers(startup).effects(*outside).body([](port_writer<int>& out) {
      out.set(-1);
    });
  }
};

struct host : reactor {
  timer tick{this, "tick", 0ms, 1ms};
  output<int> out{this, "out"};
  int n = 0;
  explicit host(context ctx) : reactor(ctx) {
    reaction("emit")
        .triggers(tick)
        .effects(out, mutations)
        .body([this](port_writer<int>& out, mutator& m) {
          out.set(++n);
          if (n == 2) m.create<trespasser>("trespasser", &this->out);
          // A mutation that succeeds: the program's cones are computed afresh after it.
          if (n == 3) m.create<doubler>("bystander");
        });
  }
};

struct hosting : reactor {
  host h{{this, "h"}};
  std::vector<int> seen;
  explicit hosting(context ctx) : reactor(ctx) {
    reaction("watch").triggers(h.out).body([this] { seen.push_back(h.out.get()); });
  }
};

TEST(ReactorMutation, ARefusedDeclarationLeavesNoEdgeBehind) {
  // Cone tags walk the predecessors (where the dangling edge was); sparse tags do not.
  for (const auto& [mode, sparse] : {std::pair{scheduling_mode::precise, sparse_tags::never},
                                     std::pair{scheduling_mode::precise, sparse_tags::automatic},
                                     std::pair{scheduling_mode::levels, sparse_tags::automatic}}) {
    std::vector<std::string> errors;
    spate::runtime rt{quiet_workers(2, &errors)};
    environment env{rt, {.mode = mode, .sparse = sparse, .fast = true, .timeout = 5ms}};
    auto& program = env.make_top<hosting>("main");
    env.run();
    EXPECT_EQ(env.rejected_mutations(), 1u);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("reaction main.h.trespasser.write_outside declares main.h.out as an "
                             "effect"),
              std::string::npos)
        << errors[0];
    EXPECT_EQ(program.seen, (std::vector<int>{1, 2, 3, 4, 5, 6}));  // ticks 0..5 ms, unchanged
  }
}

// Savina's Fibonacci as reactors: each node creates its two children by a mutation, adds
// their results, and removes them.
using spate_examples::fib_node;

struct fib_program : reactor {
  fib_node root;
  long result = -1;
  explicit fib_program(context ctx, int n = 12) : reactor(ctx), root{{this, "fib"}, n} {
    reaction("done").triggers(root.out).body([this] {
      result = root.out.get();
      note(*this, "fib = " + str(result));
    });
  }
};
LF_TEST(MutationFib, fib_program, (environment_options{.fast = true}))

TEST(ReactorMutation, FibonacciByMutationIsCorrectAndFreesItsNodes) {
  spate::runtime rt{quiet_workers(2, nullptr)};
  environment env{rt, {.fast = true}};
  auto& program = env.make_top<fib_program>("main", 15);
  env.run();
  EXPECT_EQ(program.result, 610);
  EXPECT_EQ(env.rejected_mutations(), 0u);
}

}  // namespace
}  // namespace lf_test
