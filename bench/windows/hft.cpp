// `hft` (impl `spate`): the dynamic-memory paper's HFT application (examples/hft) and its
// metric, the maximum sustained input rate, found by a search over rates within one run
// (examples/hft/hft_run.hpp). --pattern=kp|wf, --variant=slab|heap (the envelopes' memory;
// tools/bench-compare's `allocator` preloads jemalloc or mimalloc), --model=lm|aggregate (the
// paper's fit, or the aggregation alone: an emitter-bound run where memory matters most).
// `hft_day`: the same application through a compressed trading day at a U-shaped rate (the
// paper's Table 1): steady-state resident memory, window latency, generator lag.
#include "../../examples/hft/hft_run.hpp"
#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"

namespace spate_bench {
namespace {

// Calls `run` with the pattern that --pattern, --variant, --model and --workers ask for.
template <class Run>
auto with_pattern(const bench_params& p, Run&& run) {
  const std::string pattern = p.text("pattern"), variant = p.text("variant");
  if (pattern != "kp" && pattern != "wf") throw usage_error("--pattern must be kp or wf");
  if (variant != "slab" && variant != "heap") throw usage_error("--variant must be slab or heap");
  const auto workers = std::size_t(p.integer("workers"));
  if (workers < 1) throw usage_error("hft needs workers >= 1");
  const std::string model = p.text("model");
  if (model != "lm" && model != "aggregate") throw usage_error("--model must be lm or aggregate");
  auto* const function = model == "lm" ? &hft::predict : &hft::predict_mean;
  const auto memory =
      variant == "slab" ? spate::window::tuple_memory::slab : spate::window::tuple_memory::heap;
  return hft::with_pattern(pattern == "kp", function, workers, memory, std::forward<Run>(run));
}

json hft_bench(const bench_params& p) {
  spate::runtime rt(spate_runtime_config(p));
  hft::search_options options;
  options.step_seconds = p.number("step");
  options.first_rate = p.number("first_rate");
  options.pause_seconds = p.number("pause");
  options.max_steps = int(p.integer("max_steps"));
  options.symbol_count = std::uint32_t(p.integer("symbols"));
  if (options.symbol_count < 1) throw usage_error("hft needs symbols >= 1");
  const auto found = with_pattern(
      p, [&](auto pattern) { return hft::find_max_rate(rt, std::move(pattern), options); });
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

// The paper's memory experiment (Table 1): a compressed trading day at a U-shaped rate; the
// resident memory in the steady state, the window latency, and how far backpressure held the
// generator behind the curve.
json hft_day_bench(const bench_params& p) {
  spate::runtime rt(spate_runtime_config(p));
  hft::day_options options;
  options.peak_rate = p.number("peak");
  options.trough = p.number("trough");
  options.day_seconds = p.number("day_seconds");
  options.pause_seconds = p.number("pause");
  options.symbol_count = std::uint32_t(p.integer("symbols"));
  if (options.symbol_count < 1) throw usage_error("hft_day needs symbols >= 1");
  if (options.day_seconds <= 0 || options.peak_rate <= 0 || options.trough < 0 ||
      options.trough > 1)
    throw usage_error("hft_day needs day_seconds > 0, peak > 0 and 0 <= trough <= 1");
  const auto day = with_pattern(
      p, [&](auto pattern) { return hft::run_day(rt, std::move(pattern), options); });
  json m;
  m["rss_steady_mb"] = day.rss_median_mb;
  m["rss_max_mb"] = day.rss_max_mb;
  m["lat_p50_us"] = day.lat_p50_ms * 1000;
  m["lat_p99_us"] = day.lat_p99_ms * 1000;
  m["behind_max_s"] = day.behind_max_s;
  m["quotes"] = day.quotes;
  m["windows"] = day.windows;
  return m;
}

}  // namespace

void register_spate_window_impls(bench_registry& r) {
  r.implement("hft", "spate", hft_bench);
  r.implement("hft_day", "spate", hft_day_bench);
}

}  // namespace spate_bench
