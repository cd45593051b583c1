// Sparse tags (reaction_scheduler.hpp, "Sparse tags"): a tag may look only at the reactions
// it triggers instead of everything reachable from its triggers. Both kinds of tag must give
// the same values at every tag; precise mode picks sparse tags by itself when one trigger
// reaches a large program but runs a path through it, and goes back to cone tags when the
// same trigger starts running most of it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "spate/exec/runtime.hpp"
#include "spate/reactor.hpp"

namespace {

using namespace spate::reactor;

// One leaf: doubles what it gets (level 1).
struct leaf : reactor {
  input<std::int64_t> in{this, "in"};
  output<std::int64_t> out{this, "out"};
  explicit leaf(context ctx) : reactor(ctx) {
    reaction("double").triggers(in).effects(out).body(
        [this](port_writer<std::int64_t>& o) { o.set(2 * in.get()); });
  }
};

// The root writes one leaf per tag (leaf (7i mod width) at tag i), and every leaf at every
// `broadcast_every`-th tag; a collector (level 2) records which leaves answered and what.
// (The program's own reactions write and read the leaves' ports: a reactor's own ports
// cannot feed the reactors it contains.)
struct fan : reactor {
  logical_action<std::int64_t> next{this, "next"};
  bank<leaf> leaves;
  std::vector<std::string> log;  // per tag: "i:channel=value,..."
  std::int64_t current = 0;      // this tag's i ("send" runs before "collect": same reactor)

  fan(context ctx, std::size_t width, std::int64_t tags, std::int64_t broadcast_every)
      : reactor(ctx), leaves{this, "leaves", width} {
    reaction("start").triggers(startup).effects(next).body(
        [](action_scheduler<std::int64_t>& n) { n.schedule(0); });
    reaction("send")
        .triggers(next)
        .effects(leaves.ports(&leaf::in), next)
        .body([this, width, tags, broadcast_every](multiport_writer<std::int64_t>& out,
                                                   action_scheduler<std::int64_t>& n) {
          const std::int64_t i = current = next.get();
          if (broadcast_every > 0 && i % broadcast_every == broadcast_every - 1) {
            for (std::size_t c = 0; c < width; ++c) out[c].set(i + std::int64_t(c));
          } else {
            out[std::size_t(7 * i) % width].set(i);
          }
          if (i + 1 < tags) n.schedule(i + 1);
        });
    reaction("collect").triggers(leaves.ports(&leaf::out)).body([this] {
      std::string line = std::to_string(current) + ":";
      for (std::size_t c = 0; c < leaves.size(); ++c)
        if (leaves[c].out.is_present())
          line += std::to_string(c) + "=" + std::to_string(leaves[c].out.get()) + ",";
      log.push_back(std::move(line));
    });
  }
};

struct outcome {
  std::vector<std::string> log;
  std::uint64_t tags = 0, sparse_tags = 0, reactions = 0;
};

outcome run_fan(std::size_t workers, scheduling_mode mode, sparse_tags sparse, std::size_t width,
                std::int64_t tags, std::int64_t broadcast_every) {
  spate::runtime_config config;
  config.scheduler.threads = workers;
  config.read_environment = false;
  spate::runtime rt{config};
  environment env{rt, {.mode = mode, .sparse = sparse, .fast = true}};
  auto& program = env.make_top<fan>("main", width, tags, broadcast_every);
  env.run();
  return {program.log, env.tags_completed(), env.sparse_tags_completed(), env.reactions_executed()};
}

std::vector<std::string> expected_log(std::size_t width, std::int64_t tags,
                                      std::int64_t broadcast_every) {
  std::vector<std::string> log;
  for (std::int64_t i = 0; i < tags; ++i) {
    std::string line = std::to_string(i) + ":";
    if (broadcast_every > 0 && i % broadcast_every == broadcast_every - 1) {
      for (std::size_t c = 0; c < width; ++c)
        line += std::to_string(c) + "=" + std::to_string(2 * (i + std::int64_t(c))) + ",";
    } else {
      line += std::to_string(std::size_t(7 * i) % width) + "=" + std::to_string(2 * i) + ",";
    }
    log.push_back(std::move(line));
  }
  return log;
}

constexpr std::size_t width = 300;  // a cone of 302 reactions behind one trigger
constexpr std::int64_t tags = 200;

TEST(SparseTags, PreciseModeChoosesThemWhenOneTriggerRunsAPathThroughALargeProgram) {
  const outcome o = run_fan(2, scheduling_mode::precise, sparse_tags::automatic, width, tags, 0);
  EXPECT_EQ(o.log, expected_log(width, tags, 0));
  EXPECT_EQ(o.reactions, 1 + 3 * std::uint64_t(tags));  // start; send, double, collect
  // The startup tag (a cone of one) and the first tag "send" seeds (not yet measured) walk
  // their cones; every later one looks at its three triggered reactions only.
  EXPECT_EQ(o.sparse_tags, std::uint64_t(tags) - 1);
}

TEST(SparseTags, NeverAndAlwaysAreObeyedAndLevelsModeIsAlwaysSparse) {
  const auto reference = expected_log(width, tags, 0);
  const outcome never = run_fan(2, scheduling_mode::precise, sparse_tags::never, width, tags, 0);
  EXPECT_EQ(never.log, reference);
  EXPECT_EQ(never.sparse_tags, 0u);
  const outcome always = run_fan(2, scheduling_mode::precise, sparse_tags::always, width, tags, 0);
  EXPECT_EQ(always.log, reference);
  EXPECT_EQ(always.sparse_tags, always.tags);
  const outcome levels = run_fan(2, scheduling_mode::levels, sparse_tags::never, width, tags, 0);
  EXPECT_EQ(levels.log, reference);
  EXPECT_EQ(levels.sparse_tags, levels.tags);
}

TEST(SparseTags, PreciseModeGoesBackToConeTagsWhenTheSameTriggerRunsMostOfTheProgram) {
  // Every fifth tag reaches all leaves: the tag after it measured that most of the cone ran
  // and walks the cone; the tag after that measured a path again and is sparse.
  constexpr std::int64_t every = 5;
  const outcome o =
      run_fan(2, scheduling_mode::precise, sparse_tags::automatic, width, tags, every);
  EXPECT_EQ(o.log, expected_log(width, tags, every));
  // Cone tags: the first, and each one after a broadcast (tags 5, 10, ..., 195): 40 of 200.
  EXPECT_EQ(o.sparse_tags, std::uint64_t(tags) - std::uint64_t(tags / every));
}

TEST(SparseTags, SameValuesAtEveryTagOnAnyWorkerCountModeAndPolicy) {
  constexpr std::int64_t every = 7;
  const auto reference = expected_log(width, 60, every);
  for (std::size_t workers : {1, 2, 4, 8})
    for (scheduling_mode mode : {scheduling_mode::precise, scheduling_mode::levels})
      for (sparse_tags sparse : {sparse_tags::automatic, sparse_tags::never, sparse_tags::always})
        EXPECT_EQ(run_fan(workers, mode, sparse, width, 60, every).log, reference)
            << workers << " workers, mode " << int(mode) << ", sparse " << int(sparse);
}

// Two seeds of one tag at different levels: `early` (level 0) starts a chain that sets `p`
// at level 2; `late` is triggered by the same action but reads `p` as a source, so it is at
// level 3 and must run after the chain although it was bucketed first. A sparse tag that
// ran pending levels in the order they were bucketed instead of by level would read `p`
// absent.
struct relay : reactor {
  input<std::int64_t> in{this, "in"};
  output<std::int64_t> out{this, "out"};
  explicit relay(context ctx) : reactor(ctx) {
    reaction("relay").triggers(in).effects(out).body(
        [this](port_writer<std::int64_t>& o) { o.set(in.get() + 1); });
  }
};

struct two_seeds : reactor {
  timer tick{this, "tick", duration::zero(), std::chrono::milliseconds(1)};
  output<std::int64_t> start_chain{this, "start_chain"};
  relay first{{this, "first"}}, second{{this, "second"}};
  std::vector<std::int64_t> seen;  // what `late` read per tag (-1: absent)
  std::int64_t ticks = 0;
  explicit two_seeds(context ctx) : reactor(ctx) {
    connect(first.out, second.in);
    reaction("early").triggers(tick).effects(first.in).body(
        [this](port_writer<std::int64_t>& o) { o.set(100 * ++ticks); });
    reaction("late").triggers(tick).sources(second.out).body([this] {
      seen.push_back(second.out.is_present() ? second.out.get() : -1);
    });
  }
};

TEST(SparseTags, ASeedAtAHigherLevelWaitsForTheLevelsBelowIt) {
  for (scheduling_mode mode : {scheduling_mode::precise, scheduling_mode::levels}) {
    for (sparse_tags sparse : {sparse_tags::always, sparse_tags::never}) {
      spate::runtime_config config;
      config.scheduler.threads = 2;
      config.read_environment = false;
      spate::runtime rt{config};
      environment env{
          rt,
          {.mode = mode, .sparse = sparse, .fast = true, .timeout = std::chrono::milliseconds(9)}};
      auto& p = env.make_top<two_seeds>("main");
      env.run();
      std::vector<std::int64_t> expected;
      for (std::int64_t i = 1; i <= 10; ++i) expected.push_back(100 * i + 2);
      EXPECT_EQ(p.seen, expected) << "mode " << int(mode) << ", sparse " << int(sparse);
    }
  }
}

}  // namespace
