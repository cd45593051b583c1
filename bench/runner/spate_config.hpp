#pragma once
#include "bench_registry.hpp"
#include "spate/actor/actor_system.hpp"

namespace spate_bench {

// --threads and --polling for spate: default = event-notified parking; aggressive and
// spin = never park (spate has no separate "aggressive" mode: its aggressive phase is a
// spin already).
inline spate::actor_system_config spate_config(const bench_params& p) {
  spate::actor_system_config c;
  const auto polling = p.text("polling");
  c.scheduler = polling == "default" ? spate::scheduler_config::default_preset()
                                     : spate::scheduler_config::spin();
  c.scheduler.threads = static_cast<std::size_t>(p.integer("threads"));
  return c;
}

// A runtime for graphs and parallel algorithms: exactly the pool --threads and --polling ask
// for (the SPATE_* environment does not apply). The runtime wraps that same pool: no timer
// thread, nothing on a graph's hot path.
inline spate::runtime_config spate_runtime_config(const bench_params& p) {
  spate::runtime_config c = spate_config(p);
  c.read_environment = false;
  return c;
}

}  // namespace spate_bench
