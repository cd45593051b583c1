// `hft` (impl `spate`): the dynamic-memory paper's HFT application (examples/hft) and its
// metric, the maximum sustained input rate, found by a search over rates within one run
// (examples/hft/hft_run.hpp). --pattern=kp|wf, --variant=slab|heap (the envelopes' memory;
// tools/bench-compare's `allocator` preloads jemalloc or mimalloc).
#include "../../examples/hft/hft_run.hpp"
#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"

namespace spate_bench {
namespace {

json hft_bench(const bench_params& p) {
  const std::string pattern = p.text("pattern"), variant = p.text("variant");
  if (pattern != "kp" && pattern != "wf") throw usage_error("--pattern must be kp or wf");
  if (variant != "slab" && variant != "heap") throw usage_error("--variant must be slab or heap");
  const auto workers = std::size_t(p.integer("workers"));
  if (workers < 1) throw usage_error("hft needs workers >= 1");
  spate::worker_pool pool(spate_config(p).scheduler);
  hft::search_options options;
  options.step_seconds = p.number("step");
  options.first_rate = p.number("first_rate");
  options.pause_seconds = p.number("pause");
  options.max_steps = int(p.integer("max_steps"));
  options.symbol_count = std::uint32_t(p.integer("symbols"));
  if (options.symbol_count < 1) throw usage_error("hft needs symbols >= 1");
  const auto memory =
      variant == "slab" ? spate::window::tuple_memory::slab : spate::window::tuple_memory::heap;
  namespace window = spate::window;
  const auto found =
      pattern == "kp"
          ? hft::find_max_rate(pool,
                               window::key_partitioning<hft::quote>(hft::windows, hft::symbol_of,
                                                                    hft::predict, workers, memory),
                               options)
          : hft::find_max_rate(pool,
                               window::window_farming<hft::quote>(hft::windows, hft::symbol_of,
                                                                  hft::predict, workers, memory),
                               options);
  if (found.max_rate == 0) {
    std::string message = "hft: no probed rate was sustained; probed (quotes/s):";
    for (const auto& [rate, passed] : found.steps) {
      message += ' ';
      message += std::to_string(std::int64_t(rate));
    }
    throw std::runtime_error(message);
  }
  json m;
  m["max_rate"] = found.max_rate;
  m["lat_p99_us"] = found.p99_ms_at_max * 1000;
  m["windows"] = found.windows;
  json steps = json::array();
  for (const auto& [rate, passed] : found.steps) steps.push_back({rate, passed});
  m["steps"] = steps;
  return m;
}

}  // namespace

void register_spate_window_impls(bench_registry& r) {
  r.implement("hft", "spate", hft_bench);
}

}  // namespace spate_bench
