// Sparse multiports (port.hpp, channel_presence): a multiport lists its present channels
// from what its channels' writers marked, not by scanning every channel. The list must be
// exactly the present channels, at every tag, whichever workers ran the writers in parallel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "spate/exec/runtime.hpp"
#include "spate/reactor.hpp"

namespace {

using namespace spate::reactor;

// Writes its output at tag i when (i * 31 + index * 17) % 5 == 0: a different fifth of the
// writers at every tag.
bool writes_at(std::int64_t i, std::size_t index) {
  return (i * 31 + std::int64_t(index) * 17) % 5 == 0;
}

struct writer : reactor {
  input<std::int64_t> tick{this, "tick"};
  output<std::int64_t> out{this, "out"};
  explicit writer(context ctx) : reactor(ctx) {
    reaction("maybe").triggers(tick).effects(out).body([this](port_writer<std::int64_t>& o) {
      const std::size_t index = bank_index();
      if (writes_at(tick.get(), index)) o.set(tick.get() * 1000 + std::int64_t(index));
    });
  }
};

struct collector : reactor {
  multiport_input<std::int64_t> in;
  std::vector<std::string> failures;
  std::int64_t tags_seen = 0;
  collector(context ctx, std::size_t width) : reactor(ctx), in{this, "in", width} {
    reaction("check").triggers(in).body([this] {
      std::vector<std::size_t> expected;
      std::int64_t tag = -1;
      for (std::size_t c = 0; c < in.width(); ++c)
        if (in[c].is_present()) {
          expected.push_back(c);
          tag = in[c].get() / 1000;
        }
      const std::vector<std::size_t> sorted = in.present_indices();
      auto unsorted = in.present_indices_unsorted();
      std::vector<std::size_t> resorted(unsorted.begin(), unsorted.end());
      std::sort(resorted.begin(), resorted.end());
      if (sorted != expected || resorted != expected || !in.any_present())
        failures.push_back("tag " + std::to_string(tag) + ": " + std::to_string(sorted.size()) +
                           " listed, " + std::to_string(expected.size()) + " present");
      for (std::size_t c : sorted)
        if (!writes_at(tag, c) || in[c].get() != tag * 1000 + std::int64_t(c))
          failures.push_back("tag " + std::to_string(tag) + ": channel " + std::to_string(c));
      ++tags_seen;
    });
  }
};

struct program : reactor {
  logical_action<std::int64_t> next{this, "next"};
  bank<writer> writers;
  collector sink;
  program(context ctx, std::size_t width, std::int64_t tags)
      : reactor(ctx), writers{this, "writers", width}, sink{{this, "sink"}, width} {
    connect(writers.ports(&writer::out), sink.in);
    reaction("start").triggers(startup).effects(next).body(
        [](action_scheduler<std::int64_t>& n) { n.schedule(0); });
    reaction("tick")
        .triggers(next)
        .effects(writers.ports(&writer::tick), next)
        .body([this, tags](multiport_writer<std::int64_t>& out, action_scheduler<std::int64_t>& n) {
          for (std::size_t w = 0; w < out.size(); ++w) out[w].set(next.get());
          if (next.get() + 1 < tags) n.schedule(next.get() + 1);
        });
  }
};

TEST(SparseMultiport, ListsExactlyThePresentChannelsAtEveryTagOnAnyWorkerCountAndMode) {
  constexpr std::size_t width = 64;
  constexpr std::int64_t tags = 100;
  for (std::size_t workers : {1, 2, 4})
    for (scheduling_mode mode : {scheduling_mode::precise, scheduling_mode::levels}) {
      spate::runtime_config config;
      config.scheduler.threads = workers;
      config.read_environment = false;
      spate::runtime rt{config};
      environment env{rt, {.mode = mode, .fast = true}};
      auto& p = env.make_top<program>("main", width, tags);
      env.run();
      EXPECT_EQ(p.sink.failures, std::vector<std::string>{}) << workers << " workers";
      EXPECT_EQ(p.sink.tags_seen, tags);  // every tag has some writer (a fifth of 64)
    }
}

TEST(SparseMultiport, NothingIsPresentBeforeAnyWriterRan) {
  spate::runtime rt{};
  environment env{rt, {.fast = true}};
  auto& p = env.make_top<program>("main", 8, 1);
  env.assemble();
  EXPECT_FALSE(p.sink.in.any_present());
  EXPECT_TRUE(p.sink.in.present_indices().empty());
  env.run();
  EXPECT_FALSE(p.sink.in.any_present());  // absent again after the last tag
}

}  // namespace
