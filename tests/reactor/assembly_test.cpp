// Assembly errors: each is an assembly_error naming the reactors, ports and reactions
// involved, and nothing runs after one.
#include <gtest/gtest.h>

#include <atomic>

#include "spate/reactor.hpp"
#include "spate/exec/runtime.hpp"

namespace {

using namespace spate::reactor;
using namespace std::chrono_literals;

std::atomic<int> reactions_run{0};

struct relay : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  explicit relay(context ctx) : reactor(ctx) {
    reaction("forward").triggers(in).effects(out).body([this](port_writer<int>& out) {
      ++reactions_run;
      out.set(in.get());
    });
  }
};

struct source : reactor {
  output<int> out{this, "out"};
  explicit source(context ctx) : reactor(ctx) {
    reaction("emit").triggers(startup).effects(out).body([](port_writer<int>& out) {
      ++reactions_run;
      out.set(1);
    });
  }
};

template <class Top>
std::string assembly_error_of() {
  spate::runtime rt{spate::runtime_config{.scheduler = {.threads = 2}}};
  environment env{rt};
  env.make_top<Top>("main");
  try {
    env.run();
  } catch (const assembly_error& e) {
    return e.what();
  }
  return "(no error)";
}

struct loop_of_two : reactor {
  relay a{{this, "a"}};
  relay b{{this, "b"}};
  explicit loop_of_two(context ctx) : reactor(ctx) {
    connect(a.out, b.in);
    connect(b.out, a.in);
  }
};

TEST(ReactorAssembly, CausalityCycleIsReportedAsAPathAndNothingRuns) {
  reactions_run = 0;
  std::string error = assembly_error_of<loop_of_two>();
  EXPECT_NE(error.find("causality cycle"), std::string::npos) << error;
  EXPECT_NE(error.find("main.a.forward"), std::string::npos) << error;
  EXPECT_NE(error.find("main.b.forward"), std::string::npos) << error;
  EXPECT_NE(error.find("main.a.out"), std::string::npos) << error;
  EXPECT_NE(error.find("main.b.out"), std::string::npos) << error;
  EXPECT_EQ(reactions_run.load(), 0);
}

struct loop_with_delay : reactor {
  relay a{{this, "a"}};
  relay b{{this, "b"}};
  explicit loop_with_delay(context ctx) : reactor(ctx) {
    connect(a.out, b.in);
    connect(b.out, a.in).after(1ms);
  }
};

TEST(ReactorAssembly, ADelayBreaksTheCycle) {
  EXPECT_EQ(assembly_error_of<loop_with_delay>(), "(no error)");
}

struct reads_own_output : reactor {
  output<int> out{this, "out"};
  explicit reads_own_output(context ctx) : reactor(ctx) {
    reaction("first").triggers(out).effects(out).body([](port_writer<int>&) {});
  }
};

TEST(ReactorAssembly, AReactionThatTriggersOnItsOwnEffectIsACycle) {
  std::string error = assembly_error_of<reads_own_output>();
  EXPECT_NE(error.find("causality cycle: main.first -[main.out]-> main.first"), std::string::npos)
      << error;
}

struct two_writers : reactor {
  source s1{{this, "s1"}};
  source s2{{this, "s2"}};
  relay r{{this, "r"}};
  explicit two_writers(context ctx) : reactor(ctx) {
    connect(s1.out, r.in);
    connect(s2.out, r.in);
  }
};

TEST(ReactorAssembly, TwoWritersOnOnePortNameBoth) {
  std::string error = assembly_error_of<two_writers>();
  EXPECT_NE(error.find("main.r.in has two writers"), std::string::npos) << error;
  EXPECT_NE(error.find("main.s1.out"), std::string::npos) << error;
  EXPECT_NE(error.find("main.s2.out"), std::string::npos) << error;
}

struct reaction_and_connection : reactor {
  source s{{this, "s"}};
  relay r{{this, "r"}};
  explicit reaction_and_connection(context ctx) : reactor(ctx) {
    connect(s.out, r.in);
    reaction("poke").triggers(startup).effects(r.in).body([](port_writer<int>& in) { in.set(2); });
  }
};

TEST(ReactorAssembly, AReactionAndAConnectionWritingOnePortAreTwoWriters) {
  std::string error = assembly_error_of<reaction_and_connection>();
  EXPECT_NE(error.find("main.r.in has two writers: reaction main.poke and the connection from "
                       "main.s.out"),
            std::string::npos)
      << error;
}

struct wide_source : reactor {
  multiport_output<int> out{this, "out", 3};
  explicit wide_source(context ctx) : reactor(ctx) {}
};
struct narrow_sink : reactor {
  multiport_input<int> in{this, "in", 2};
  explicit narrow_sink(context ctx) : reactor(ctx) {}
};
struct width_mismatch : reactor {
  wide_source a{{this, "a"}};
  narrow_sink b{{this, "b"}};
  explicit width_mismatch(context ctx) : reactor(ctx) { connect(a.out, b.in); }
};

TEST(ReactorAssembly, WidthMismatchIsAnErrorUnlessBroadcast) {
  std::string error = assembly_error_of<width_mismatch>();
  EXPECT_NE(error.find("widths differ (3 to 2)"), std::string::npos) << error;
  EXPECT_NE(error.find("main.a.out[0]"), std::string::npos) << error;
  EXPECT_NE(error.find("main.b.in[0]"), std::string::npos) << error;
}

struct wrong_direction : reactor {
  relay a{{this, "a"}};
  relay b{{this, "b"}};
  explicit wrong_direction(context ctx) : reactor(ctx) { connect(a.in, b.in); }
};

TEST(ReactorAssembly, ConnectionFromAContainedInputIsRejected) {
  std::string error = assembly_error_of<wrong_direction>();
  EXPECT_NE(error.find("main.a.in cannot be a source here"), std::string::npos) << error;
}

struct writes_contained_output : reactor {
  relay a{{this, "a"}};
  explicit writes_contained_output(context ctx) : reactor(ctx) {
    reaction("bad").triggers(startup).effects(a.out).body([](port_writer<int>&) {});
  }
};

TEST(ReactorAssembly, WritingAContainedOutputIsRejectedWithNames) {
  std::string error = assembly_error_of<writes_contained_output>();
  EXPECT_NE(error.find("reaction main.bad declares main.a.out as an effect"), std::string::npos)
      << error;
}

struct forgot_body : reactor {
  explicit forgot_body(context ctx) : reactor(ctx) {
    (void)reaction("unfinished").triggers(startup);
  }
};

TEST(ReactorAssembly, AReactionWithoutBodyIsNamed) {
  std::string error = assembly_error_of<forgot_body>();
  EXPECT_NE(error.find("reaction 'unfinished' was declared without a body"), std::string::npos)
      << error;
}

struct chain_of_three : reactor {
  source s{{this, "s"}};
  relay a{{this, "a"}};
  relay b{{this, "b"}};
  explicit chain_of_three(context ctx) : reactor(ctx) {
    connect(s.out, a.in);
    connect(a.out, b.in);
  }
};

TEST(ReactorAssembly, LevelsFollowTheLongestChain) {
  spate::runtime rt{spate::runtime_config{.scheduler = {.threads = 1}}};
  environment env{rt};
  env.make_top<chain_of_three>("main");
  env.assemble();
  EXPECT_EQ(env.reaction_count(), 3u);
  EXPECT_EQ(env.level_count(), 3u);
  EXPECT_THROW(env.make_top<chain_of_three>("again"), std::logic_error);
}

TEST(ReactorAssembly, AnEmptyEnvironmentDoesNotAssemble) {
  spate::runtime rt{spate::runtime_config{.scheduler = {.threads = 1}}};
  environment env{rt};
  EXPECT_THROW(env.assemble(), assembly_error);
}

}  // namespace
