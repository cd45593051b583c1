#pragma once
// What every spate-reactor benchmark shares: the runtime it runs on, the scheduling mode
// from --mode, and one timed Savina iteration of a reactor program.
#include <string>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/reactor.hpp"

namespace spate_bench {

inline spate::runtime_config reactor_runtime_config(const bench_params& p) {
  spate::runtime_config config;
  config.scheduler = spate_config(p).scheduler;
  config.read_environment = false;
  return config;
}

inline spate::reactor::scheduling_mode mode_of(const bench_params& p) {
  const auto mode = p.text("mode");
  if (mode == "precise") return spate::reactor::scheduling_mode::precise;
  if (mode == "levels") return spate::reactor::scheduling_mode::levels;
  throw usage_error("--mode must be precise or levels, not '" + mode + "'");
}

// --sparse (where a benchmark defines it): which reactions a tag looks at.
inline spate::reactor::sparse_tags sparse_of(const bench_params& p) {
  if (!p.all().contains("sparse")) return spate::reactor::sparse_tags::automatic;
  const auto sparse = p.text("sparse");
  if (sparse == "automatic") return spate::reactor::sparse_tags::automatic;
  if (sparse == "never") return spate::reactor::sparse_tags::never;
  if (sparse == "always") return spate::reactor::sparse_tags::always;
  throw usage_error("--sparse must be automatic, never or always, not '" + sparse + "'");
}

// A child's name: prefix and number. (Not prefix + std::to_string(i): GCC 12 warns falsely
// about it, bug 105329.)
inline std::string numbered(const char* prefix, std::size_t i) {
  std::string name{prefix};
  name += std::to_string(i);
  return name;
}

// One Savina iteration: build the program (not timed), run it, check, tear down (not timed).
template <class Program, class Check, class... Args>
double reactor_iteration(spate::runtime& rt, const bench_params& p, Check check, Args&&... args) {
  spate::reactor::environment_options options;
  options.mode = mode_of(p);
  options.sparse = sparse_of(p);
  options.fast = true;
  spate::reactor::environment env{rt, options};
  auto& program = env.make_top<Program>("main", std::forward<Args>(args)...);
  env.assemble();
  const auto begin = now_ns();
  env.run();
  const double elapsed = double(now_ns() - begin) / 1e9;
  check(program);
  return elapsed;
}

}  // namespace spate_bench
