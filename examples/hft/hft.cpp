// The high-frequency-trading application (docs/windows.md, "The HFT application"): per
// symbol, windows of 1,000 quotes sliding by 25, each fitted with Levenberg–Marquardt to
// predict the price.
//
//   hft --check [--quotes 60000] [--symbols 16]
//       a bounded run: Key Partitioning and Window Farming must predict exactly what a
//       sequential run of the same windows does
//   hft [--pattern kp|wf] [--memory slab|heap] [--workers 2]
//       the paper's metric: the maximum sustained input rate (a search over rates, printed
//       step by step), with 2,836 symbols
//   hft --day [--day-seconds 468] [--peak 30000] [--symbols 2836] [--pattern ...] [--memory ...]
//       a trading day compressed 50× (by default) at a U-shaped rate: resident memory in the
//       steady state, window latency, and how far the generator fell behind the curve
#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "hft.hpp"
#include "hft_run.hpp"

namespace window = spate::window;
using result = window::window_result<std::uint32_t, hft::prediction>;

namespace {

template <class Pattern>
std::map<std::uint32_t, std::vector<result>> bounded(spate::runtime& rt,
                                                     const std::vector<hft::quote>& quotes,
                                                     Pattern pattern) {
  std::map<std::uint32_t, std::vector<result>> out;
  spate::flow::graph job(
      spate::flow::pipeline(spate::flow::from_range(quotes), std::move(pattern),
                            spate::flow::sink([&](result& r) { out[r.key].push_back(r); })));
  job.run(rt);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"spate HFT: per-symbol sliding windows fitted by Levenberg-Marquardt"};
  bool check = false;
  std::size_t quotes_count = 60'000, workers = 2;
  std::uint32_t symbol_count = 16;
  std::string pattern = "wf", memory = "slab";
  double step = 1.5;
  bool day = false;
  hft::day_options day_options;
  app.add_flag("--check", check, "a bounded run checked against a sequential one");
  app.add_option("--quotes", quotes_count, "quotes in the --check run");
  app.add_option("--symbols", symbol_count,
                 "symbols in the --check (default 16) or --day run (the search uses 2,836)");
  app.add_option("--pattern", pattern, "kp (Key Partitioning) or wf (Window Farming)")
      ->check(CLI::IsMember({"kp", "wf"}));
  app.add_option("--memory", memory, "slab (the default) or heap envelopes")
      ->check(CLI::IsMember({"slab", "heap"}));
  app.add_option("--workers", workers, "window workers (and pool threads)");
  app.add_option("--step", step, "seconds per probed rate");
  app.add_flag("--day", day, "a compressed trading day at a U-shaped rate");
  app.add_option("--day-seconds", day_options.day_seconds, "the day's length (468: 6.5 h / 50)");
  app.add_option("--peak", day_options.peak_rate, "quotes per second at the open and close");
  CLI11_PARSE(app, argc, argv);

  spate::runtime_config config;
  config.scheduler.threads = workers;
  config.read_environment = false;  // --workers is the pool's size
  spate::runtime rt(config);
  const auto tuple_memory =
      memory == "slab" ? window::tuple_memory::slab : window::tuple_memory::heap;

  if (check) {
    hft::quote_generator generator{2024, symbol_count};
    std::vector<hft::quote> quotes;
    for (std::size_t i = 0; i < quotes_count; ++i) quotes.push_back(generator.next());
    std::printf("%zu quotes over %u symbols: windows of %llu quotes sliding by %llu\n",
                quotes.size(), symbol_count, static_cast<unsigned long long>(hft::windows.length),
                static_cast<unsigned long long>(hft::windows.slide));
    const auto expected = hft::sequential(quotes);
    std::size_t windows = 0;
    for (const auto& [s, w] : expected) windows += w.size();
    std::printf("sequential: %zu windows fitted\n", windows);
    const bool kp = bounded(rt, quotes,
                            window::key_partitioning<hft::quote>(
                                hft::windows, hft::symbol_of, hft::predict, workers,
                                {.memory = tuple_memory})) == expected;
    const bool wf =
        bounded(rt, quotes,
                window::window_farming<hft::quote>(hft::windows, hft::symbol_of, hft::predict,
                                                   workers, {.memory = tuple_memory})) == expected;
    const auto& first = expected.begin()->second.front();
    std::printf("symbol %u, window 0: %u one-millisecond points, predicted price %.4f\n", first.key,
                first.value.points, first.value.price);
    std::printf("check: Key Partitioning %s, Window Farming %s\n", kp ? "identical" : "DIFFERENT",
                wf ? "identical" : "DIFFERENT");
    return kp && wf ? 0 : 1;
  }

  auto with_pattern = [&](auto run) {
    return hft::with_pattern(pattern == "kp", hft::predict, workers, tuple_memory, run);
  };

  if (day) {
    if (app.count("--symbols") != 0) day_options.symbol_count = symbol_count;
    std::printf(
        "a %.0f s trading day, peak %.0f quotes/s, midday %.0f: %s, %s envelopes, %zu "
        "workers, %u symbols\n",
        day_options.day_seconds, day_options.peak_rate, day_options.peak_rate * day_options.trough,
        pattern == "kp" ? "Key Partitioning" : "Window Farming", memory.c_str(), workers,
        day_options.symbol_count);
    const auto r =
        with_pattern([&](auto p) { return hft::run_day(rt, std::move(p), day_options); });
    std::printf(
        "%llu quotes, %llu windows fitted; window latency p50 %.2f ms, p99 %.2f ms; "
        "generator at most %.3f s behind the curve\n",
        static_cast<unsigned long long>(r.quotes), static_cast<unsigned long long>(r.windows),
        r.lat_p50_ms, r.lat_p99_ms, r.behind_max_s);
    std::printf("resident memory during the day: median %.0f MB, max %.0f MB\n", r.rss_median_mb,
                r.rss_max_mb);
    return r.windows != 0 ? 0 : 1;
  }

  hft::search_options options;
  options.step_seconds = step;
  std::printf(
      "searching the maximum sustained rate: %s, %s envelopes, %zu workers, 2,836 symbols\n",
      pattern == "kp" ? "Key Partitioning" : "Window Farming", memory.c_str(), workers);
  const auto found =
      with_pattern([&](auto p) { return hft::find_max_rate(rt, std::move(p), options); });
  for (const auto& [rate, passed] : found.steps)
    std::printf("  %10.0f quotes/s: %s\n", rate, passed ? "sustained" : "not sustained");
  std::printf(
      "maximum sustained rate: %.0f quotes/s (p99 window latency %.2f ms); %llu windows fitted\n",
      found.max_rate, found.p99_ms_at_max, static_cast<unsigned long long>(found.windows));
}
