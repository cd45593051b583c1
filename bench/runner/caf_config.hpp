#pragma once
// --threads and --polling for CAF 0.17 (docs/benchmarks.md): default = CAF's defaults;
// aggressive = no sleeps in the moderate and relaxed phases; spin = also a practically
// endless aggressive phase (a true busy poll).
#include <caf/all.hpp>

#include "bench_registry.hpp"

namespace spate_bench {

inline void configure_caf(caf::actor_system_config& cfg, const bench_params& p) {
  cfg.set("scheduler.max-threads", static_cast<std::size_t>(p.integer("threads")));
  const auto polling = p.text("polling");
  if (polling == "aggressive" || polling == "spin") {
    cfg.set("work-stealing.moderate-sleep-duration", caf::timespan{0});
    cfg.set("work-stealing.relaxed-sleep-duration", caf::timespan{0});
  }
  if (polling == "spin") {
    cfg.set("work-stealing.aggressive-poll-attempts", std::size_t{1} << 40);
  }
}

// A CAF actor system configured from the parameters (the config must outlive the system).
class caf_system {
 public:
  explicit caf_system(const bench_params& p) : system_(configured(config_, p)) {}
  caf::actor_system& operator*() noexcept { return system_; }
  caf::actor_system* operator->() noexcept { return &system_; }

 private:
  static caf::actor_system_config& configured(caf::actor_system_config& cfg,
                                              const bench_params& p) {
    configure_caf(cfg, p);
    return cfg;
  }
  caf::actor_system_config config_;
  caf::actor_system system_;
};

}  // namespace spate_bench
