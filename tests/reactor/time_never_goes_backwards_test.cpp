// Logical time never goes backwards: every way of asking for a negative delay (a timer's
// offset or period, a delayed or physical connection, a deadline, an action scheduled from a
// reaction) is refused where it is written, naming the element, the value and, for a
// reaction's schedule, the tag. And every connection form connection.hpp's comment shows
// assembles and delivers.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "spate/exec/runtime.hpp"
#include "spate/reactor.hpp"
#include "../test_runtime.hpp"

namespace {

using namespace spate::reactor;
using namespace std::chrono_literals;

using spate::test::two_workers;

// What constructing `Top` as "main" throws (std::invalid_argument), or "(nothing)".
template <class Top>
std::string construction_error() {
  spate::runtime rt{two_workers()};
  environment env{rt};
  try {
    env.make_top<Top>("main");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(nothing)";
}

struct emitter : reactor {
  output<int> out{this, "out"};
  explicit emitter(context ctx) : reactor(ctx) {
    reaction("emit").triggers(startup).effects(out).body([](port_writer<int>& o) { o.set(1); });
  }
};
struct receiver : reactor {
  input<int> in{this, "in"};
  explicit receiver(context ctx) : reactor(ctx) {
    reaction("take").triggers(in).body([] {});
  }
};

struct negative_offset : reactor {
  timer clock{this, "clock", -5ms, 1ms};
  using reactor::reactor;
};
struct negative_period : reactor {
  timer clock{this, "clock", 0ms, -1us};
  using reactor::reactor;
};
struct negative_after : reactor {
  emitter a{{this, "a"}};
  receiver b{{this, "b"}};
  explicit negative_after(context ctx) : reactor(ctx) { connect(a.out, b.in).after(-1ms); }
};
struct negative_physical : reactor {
  emitter a{{this, "a"}};
  receiver b{{this, "b"}};
  explicit negative_physical(context ctx) : reactor(ctx) { connect(a.out, b.in).physical(-250ns); }
};
struct negative_deadline : reactor {
  output<int> out{this, "out"};
  explicit negative_deadline(context ctx) : reactor(ctx) {
    reaction("late")
        .triggers(startup)
        .effects(out)
        .body([](port_writer<int>& o) { o.set(1); })
        .deadline(-2ms, [](port_writer<int>& o) { o.set(0); });
  }
};

TEST(ReactorTime, ATimerWithANegativeOffsetIsRefusedWithItsName) {
  const std::string error = construction_error<negative_offset>();
  EXPECT_NE(error.find("timer main.clock: offset -5 ms is negative"), std::string::npos) << error;
}

TEST(ReactorTime, ATimerWithANegativePeriodIsRefusedWithItsName) {
  const std::string error = construction_error<negative_period>();
  EXPECT_NE(error.find("timer main.clock: period -1 us is negative"), std::string::npos) << error;
}

TEST(ReactorTime, ANegativeConnectionDelayIsRefusedWithThePorts) {
  std::string error = construction_error<negative_after>();
  EXPECT_NE(error.find("connect(main.a.out, main.b.in).after(-1 ms)"), std::string::npos) << error;
  EXPECT_NE(error.find("before it was sent"), std::string::npos) << error;
  error = construction_error<negative_physical>();
  EXPECT_NE(error.find("connect(main.a.out, main.b.in).physical(-250 ns)"), std::string::npos)
      << error;
}

TEST(ReactorTime, ANegativeDeadlineIsRefusedWithTheReaction) {
  const std::string error = construction_error<negative_deadline>();
  EXPECT_NE(error.find("reaction main.late: deadline -2 ms is negative"), std::string::npos)
      << error;
}

// Scheduled from a reaction at the second tag: env.run() throws, naming the reaction, the
// action, the delay and the tag; nothing is delivered at an earlier time.
struct schedules_backwards : reactor {
  logical_action<int> later{this, "later"};
  logical_action<int> back{this, "back"};
  std::atomic<int> delivered{0};
  explicit schedules_backwards(context ctx) : reactor(ctx) {
    reaction("first").triggers(startup).effects(later).body(
        [](action_scheduler<int>& s) { s.schedule(1, 2ms); });
    reaction("rewind").triggers(later).effects(back).body(
        [](action_scheduler<int>& s) { s.schedule(2, -3ms); });
    reaction("never").triggers(back).body([this] { ++delivered; });
  }
};

TEST(ReactorTime, AReactionSchedulingANegativeDelayFailsNamingReactionActionAndTag) {
  spate::runtime rt{two_workers()};
  environment env{rt, environment_options{.fast = true}};
  auto& top = env.make_top<schedules_backwards>("main");
  try {
    env.run();
    FAIL() << "expected a reaction_error";
  } catch (const reaction_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("reaction main.rewind scheduled action main.back with a negative delay "
                        "(-3 ms) at tag (2 ms, 0)"),
              std::string::npos)
        << what;
  }
  EXPECT_EQ(top.delivered.load(), 0);
}

// ---- the forms of connection.hpp's comment, each assembled and run ----------------------
struct collector : reactor {
  input<int> in{this, "in"};
  std::vector<std::pair<long long, int>>* seen;  // (elapsed ms, value)
  collector(context ctx, std::vector<std::pair<long long, int>>* s) : reactor(ctx), seen(s) {
    reaction("collect").triggers(in).body([this] {
      seen->emplace_back(
          std::chrono::duration_cast<std::chrono::milliseconds>(elapsed_logical_time()).count(),
          in.get());
    });
  }
};
struct indexed_emitter : reactor {
  output<int> out{this, "out"};
  explicit indexed_emitter(context ctx) : reactor(ctx) {
    reaction("emit").triggers(startup).effects(out).body(
        [this](port_writer<int>& o) { o.set(static_cast<int>(bank_index())); });
  }
};
struct multiport_collector : reactor {
  multiport_input<int> in;
  std::vector<int> seen;
  explicit multiport_collector(context ctx, std::size_t width = 3)
      : reactor(ctx), in{this, "in", width} {
    reaction("collect").triggers(in).body([this] {
      for (std::size_t i = 0; i < in.size(); ++i)
        if (in[i].is_present()) seen.push_back(in[i].get());
    });
  }
};

struct documented_forms : reactor {
  std::vector<std::pair<long long, int>> same, later, next, physical;
  emitter a{{this, "a"}};
  collector same_tag{{this, "same_tag"}, &same};
  collector ten_ms{{this, "ten_ms"}, &later};
  collector microstep{{this, "microstep"}, &next};
  collector at_arrival{{this, "at_arrival"}, &physical};
  bank<indexed_emitter> sources{this, "sources", 3};
  multiport_collector one_to_one{{this, "one_to_one"}};
  multiport_collector everyone{{this, "everyone"}};
  explicit documented_forms(context ctx) : reactor(ctx) {
    connect(a.out, same_tag.in);
    connect(a.out, ten_ms.in).after(10ms);
    connect(a.out, microstep.in).after(0ns);
    connect(a.out, at_arrival.in).physical();
    connect(sources.ports(&indexed_emitter::out), one_to_one.in);
    connect(broadcast(a.out), everyone.in);
  }
};

TEST(ReactorTime, EveryConnectionFormOfTheHeaderCommentAssemblesAndDelivers) {
  spate::runtime rt{two_workers()};
  // A physical connection keeps a program alive by default: the timeout ends it (at once,
  // in fast mode), after the physical value, whose tag is the physical time it was sent.
  environment env{rt, environment_options{.fast = true, .timeout = 1s}};
  auto& top = env.make_top<documented_forms>("main");
  env.run();
  EXPECT_EQ(top.same, (std::vector<std::pair<long long, int>>{{0, 1}}));
  EXPECT_EQ(top.later, (std::vector<std::pair<long long, int>>{{10, 1}}));
  EXPECT_EQ(top.next, (std::vector<std::pair<long long, int>>{{0, 1}}));
  ASSERT_EQ(top.physical.size(), 1u);
  EXPECT_EQ(top.physical[0].second, 1);
  EXPECT_EQ(top.one_to_one.seen, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(top.everyone.seen, (std::vector<int>{1, 1, 1}));
}

}  // namespace
