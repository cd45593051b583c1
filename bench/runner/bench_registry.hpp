#pragma once
// The benchmark contract (docs/benchmarks.md): named benchmarks, each with its
// parameters (and defaults) and one function per implementation.
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace spate_bench {

using json = nlohmann::ordered_json;

// A user error (unknown benchmark, impl or parameter, bad value): printed on one line, exit 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class bench_params {
 public:
  bench_params(std::map<std::string, std::string> values) : values_(std::move(values)) {}
  std::string text(const std::string& key) const;
  std::int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;
  bool flag(const std::string& key) const;
  const std::map<std::string, std::string>& all() const noexcept { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

// Returns the metrics object of one run ("items_per_s", ...).
using bench_function = std::function<json(const bench_params&)>;

struct benchmark_definition {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> parameters;  // name, default
  std::map<std::string, bench_function> impls;
};

class bench_registry {
 public:
  void define(std::string name, std::string description,
              std::vector<std::pair<std::string, std::string>> parameters);
  void implement(const std::string& benchmark, const std::string& impl, bench_function fn);
  const benchmark_definition& find(const std::string& name) const;
  const std::map<std::string, benchmark_definition>& all() const noexcept { return benchmarks_; }

 private:
  std::map<std::string, benchmark_definition> benchmarks_;
};

// Each impl file registers its benchmarks.
void define_benchmarks(bench_registry& registry);
void register_thread_impls(bench_registry& registry);
void register_thread_batch_impls(bench_registry& registry);
void register_spate_actor_impls(bench_registry& registry);
void register_spate_actor_savina(bench_registry& registry);
void register_spate_actor_savina_concurrency(bench_registry& registry);
void register_spate_actor_savina_coordination(bench_registry& registry);
void register_spate_actor_savina_services(bench_registry& registry);
void register_spate_actor_savina_dynamic(bench_registry& registry);
void register_spate_actor_savina_search(bench_registry& registry);
void register_reactor_savina_arrays(bench_registry& registry);
void register_spate_actor_savina_numeric(bench_registry& registry);
void register_spate_actor_savina_sorting(bench_registry& registry);
void register_reactor_savina_micro(bench_registry& registry);
void register_reactor_savina_services(bench_registry& registry);
void register_reactor_savina_shop(bench_registry& registry);
void register_reactor_savina_signal(bench_registry& registry);
void register_spate_reactor_sparse(bench_registry& registry);
void register_spate_actor_savina_parallel(bench_registry& registry);
void register_spate_actor_savina_arrays(bench_registry& registry);
void register_spate_flow_impls(bench_registry& registry);
void register_timer_impls(bench_registry& registry);
void register_spate_reactor_impls(bench_registry& registry);
void register_spate_reactor_divide_and_conquer(bench_registry& registry);
void register_spate_reactor_trees(bench_registry& registry);
void register_spate_reactor_chain_and_grid(bench_registry& registry);
void register_spate_reactor_concurrency(bench_registry& registry);
void register_spate_reactor_parallelism(bench_registry& registry);
void register_wake_floor(bench_registry& registry);
void register_spate_memory_impls(bench_registry& registry);
void register_spate_window_impls(bench_registry& registry);
void register_apps_impls(bench_registry& registry);
void register_nexmark_impls(bench_registry& registry);
void register_restore_impls(bench_registry& registry);
void register_backpressure_checkpoint_impls(bench_registry& registry);
#ifdef SPATE_BENCH_HAVE_CAF
void register_caf_impls(bench_registry& registry);
void register_caf_savina(bench_registry& registry);
void register_caf_savina_benchmarks(bench_registry& registry);
void register_caf_savina_coordination(bench_registry& registry);
void register_caf_savina_parallel(bench_registry& registry);
void register_caf_savina_arrays(bench_registry& registry);
#endif
#ifdef SPATE_BENCH_CAF1
// CAF 1.1, in spate-bench-caf1 only (CAF 0.17 and 1.1 cannot share a binary).
void register_caf1_impls(bench_registry& registry);
void register_caf1_savina(bench_registry& registry);
void register_caf1_savina_benchmarks(bench_registry& registry);
void register_caf1_savina_coordination(bench_registry& registry);
void register_caf1_savina_parallel(bench_registry& registry);
void register_caf1_savina_arrays(bench_registry& registry);
#endif

}  // namespace spate_bench
