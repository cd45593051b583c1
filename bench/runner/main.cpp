// spate-bench: one runner for every benchmark and implementation (docs/benchmarks.md).
// Built a second time as spate-bench-caf1 (SPATE_BENCH_CAF1): the same runner with only the
// caf1 impls (CAF 1.1), which cannot share a binary with CAF 0.17's caf impls.
//   spate-bench list
//   spate-bench --version
//   spate-bench NAME --impl IMPL [--KEY=VALUE ...]
// Prints exactly one JSON object on one line on stdout; everything else goes to stderr.
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <thread>

#include "bench_registry.hpp"
#include "measure.hpp"
#include "spate/platform/os.hpp"
#include "spate/version.hpp"

using namespace spate_bench;

namespace {

#ifdef SPATE_BENCH_CAF1
constexpr const char* program = "spate-bench-caf1";
#else
constexpr const char* program = "spate-bench";
#endif

// Parameters every benchmark takes.
std::vector<std::pair<std::string, std::string>> common_parameters() {
  // c2c=off skips the cache-line probe around the run (result checks and smoke runs, which
  // report no placement regime).
  return {
      {"threads", std::to_string(spate::available_cpus())}, {"polling", "default"}, {"c2c", "on"}};
}

void print_list(const bench_registry& registry) {
  std::cout << "benchmarks (" << program << " NAME --impl IMPL [--KEY=VALUE ...]):\n";
  for (const auto& [name, def] : registry.all()) {
#ifdef SPATE_BENCH_CAF1
    if (def.impls.empty()) continue;  // the benchmarks only spate-bench implements
#endif
    std::cout << "  " << name << ": " << def.description << "\n    impls:";
    for (const auto& [impl, fn] : def.impls) std::cout << ' ' << impl;
#if !defined(SPATE_BENCH_HAVE_CAF) && !defined(SPATE_BENCH_CAF1)
    std::cout << " (caf: not built, libcaf-dev was not found)";
#endif
    std::cout << "\n    params:";
    for (const auto& [key, value] : def.parameters) std::cout << " --" << key << '=' << value;
    for (const auto& [key, value] : common_parameters()) std::cout << " --" << key << '=' << value;
    std::cout << '\n';
  }
}

int run(const bench_registry& registry, int argc, char** argv) {
  const std::string name = argv[1];
  const auto& def = registry.find(name);
  std::map<std::string, std::string> values;
  for (const auto& [k, v] : def.parameters) values[k] = v;
  for (const auto& [k, v] : common_parameters()) values[k] = v;
  std::string impl;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--impl" && i + 1 < argc) {
      impl = argv[++i];
      continue;
    }
    if (arg.rfind("--impl=", 0) == 0) {
      impl = arg.substr(7);
      continue;
    }
    const auto eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
      throw usage_error("argument '" + arg + "': expected --KEY=VALUE");
    }
    const std::string key = arg.substr(2, eq - 2);
    if (!values.count(key)) {
      std::string valid;
      for (const auto& [k, v] : values) valid += (valid.empty() ? "" : ", ") + k;
      throw usage_error("benchmark " + name + " has no parameter '" + key + "'; valid: " + valid);
    }
    values[key] = arg.substr(eq + 1);
  }
  std::string valid_impls;
  for (const auto& [k, fn] : def.impls) valid_impls += (valid_impls.empty() ? "" : ", ") + k;
  if (impl.empty()) throw usage_error("missing --impl; valid for " + name + ": " + valid_impls);
  auto it = def.impls.find(impl);
  if (it == def.impls.end()) {
    throw usage_error("benchmark " + name + " has no impl '" + impl + "'; valid: " + valid_impls);
  }
  const std::string polling = values["polling"];
  if (polling != "default" && polling != "aggressive" && polling != "spin") {
    throw usage_error("--polling=" + polling + ": expected default, aggressive or spin");
  }
  if (values["c2c"] != "on" && values["c2c"] != "off") {
    throw usage_error("--c2c=" + values["c2c"] + ": expected on or off");
  }
  bench_params params(values);
  if (params.integer("threads") == 0) throw usage_error("--threads must be at least 1");

  const bool probe_c2c = values["c2c"] == "on";
  const double c2c_before = probe_c2c ? cache_line_round_trip_ns() : 0.0;
  json metrics = it->second(params);
  const double c2c_after = probe_c2c ? cache_line_round_trip_ns() : 0.0;

  json out;
  out["bench"] = name;
  out["impl"] = impl;
  json p = json::object();
  for (const auto& [k, v] : values) {
    char* end = nullptr;
    const long long as_int = std::strtoll(v.c_str(), &end, 10);
    if (!v.empty() && *end == '\0') {
      p[k] = as_int;
    } else {
      p[k] = v;
    }
  }
  out["params"] = p;
  out["metrics"] = metrics;
  if (probe_c2c) out["c2c_ns"] = json::array({c2c_before, c2c_after});
  std::cout << out.dump() << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bench_registry registry;
  define_benchmarks(registry);
#ifdef SPATE_BENCH_CAF1
  register_caf1_impls(registry);
  register_caf1_savina(registry);
  register_caf1_savina_benchmarks(registry);
  register_caf1_savina_coordination(registry);
  register_caf1_savina_parallel(registry);
  register_caf1_savina_arrays(registry);
#else
  register_thread_impls(registry);
  register_thread_batch_impls(registry);
  register_spate_actor_impls(registry);
  register_spate_actor_savina(registry);
  register_spate_actor_savina_concurrency(registry);
  register_spate_actor_savina_coordination(registry);
  register_spate_actor_savina_services(registry);
  register_spate_actor_savina_dynamic(registry);
  register_spate_actor_savina_search(registry);
  register_spate_actor_savina_numeric(registry);
  register_spate_actor_savina_sorting(registry);
  register_spate_actor_savina_parallel(registry);
  register_spate_actor_savina_arrays(registry);
  register_spate_flow_impls(registry);
  register_timer_impls(registry);
  register_spate_reactor_impls(registry);
  register_spate_reactor_divide_and_conquer(registry);
  register_spate_reactor_trees(registry);
  register_spate_reactor_chain_and_grid(registry);
  register_spate_reactor_concurrency(registry);
  register_spate_reactor_parallelism(registry);
  register_spate_reactor_sparse(registry);
  register_reactor_savina_arrays(registry);
  register_reactor_savina_signal(registry);
  register_reactor_savina_micro(registry);
  register_reactor_savina_services(registry);
  register_reactor_savina_shop(registry);
  register_wake_floor(registry);
  register_spate_memory_impls(registry);
  register_apps_impls(registry);
  register_nexmark_impls(registry);
  register_restore_impls(registry);
  register_backpressure_checkpoint_impls(registry);
#ifdef SPATE_BENCH_HAVE_GSL
  register_spate_window_impls(registry);
#endif
#ifdef SPATE_BENCH_HAVE_CAF
  register_caf_impls(registry);
  register_caf_savina(registry);
  register_caf_savina_benchmarks(registry);
  register_caf_savina_coordination(registry);
  register_caf_savina_parallel(registry);
  register_caf_savina_arrays(registry);
#endif
#endif  // SPATE_BENCH_CAF1
  try {
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
      std::cerr << "usage: " << program << " list | " << program << " --version | " << program
                << " NAME --impl IMPL [--KEY=VALUE ...]\n";
      return argc < 2 ? 2 : 0;
    }
    if (std::string(argv[1]) == "--version") {
      std::cout << program << ' ' << spate::version_string << '\n';
      return 0;
    }
    if (std::string(argv[1]) == "list") {
      print_list(registry);
      return 0;
    }
    return run(registry, argc, argv);
  } catch (const usage_error& e) {
    std::cerr << program << ": " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": run failed: " << e.what() << std::endl;
    return 1;
  }
}
