#include "bench_registry.hpp"

#include <charconv>

namespace spate_bench {

std::string bench_params::text(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error("benchmark reads undeclared parameter " + key);
  return it->second;
}

std::int64_t bench_params::integer(const std::string& key) const {
  const std::string v = text(key);
  std::int64_t result = 0;
  auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), result);
  if (error != std::errc{} || end != v.data() + v.size() || result < 0) {
    throw usage_error("parameter --" + key + "=" + v + ": expected a non-negative whole number");
  }
  return result;
}

double bench_params::number(const std::string& key) const {
  const std::string v = text(key);
  try {
    std::size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size() && d >= 0) return d;
  } catch (const std::exception&) {
  }
  throw usage_error("parameter --" + key + "=" + v + ": expected a non-negative number");
}

bool bench_params::flag(const std::string& key) const {
  const std::string v = text(key);
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  throw usage_error("parameter --" + key + "=" + v + ": expected true or false");
}

void bench_registry::define(std::string name, std::string description,
                            std::vector<std::pair<std::string, std::string>> parameters) {
  auto& def = benchmarks_[name];
  def.name = std::move(name);
  def.description = std::move(description);
  def.parameters = std::move(parameters);
}

void bench_registry::implement(const std::string& benchmark, const std::string& impl,
                               bench_function fn) {
  auto it = benchmarks_.find(benchmark);
  if (it == benchmarks_.end()) throw std::logic_error("implementing undefined " + benchmark);
  it->second.impls[impl] = std::move(fn);
}

const benchmark_definition& bench_registry::find(const std::string& name) const {
  auto it = benchmarks_.find(name);
  if (it == benchmarks_.end()) {
    std::string valid;
    for (const auto& [n, d] : benchmarks_) valid += (valid.empty() ? "" : ", ") + n;
    throw usage_error("unknown benchmark '" + name + "'; valid: " + valid);
  }
  return it->second;
}

void define_benchmarks(bench_registry& r) {
  r.define("pipeline3", "Source -> Forwarder -> Sink, 24-byte tuples", {{"n", "10000000"}});
  r.define("prodcons", "Producer -> Consumer, 4-byte messages", {{"n", "20000000"}});
  r.define("latency_chain", "K-stage chain fed at a constant rate; per-message latency",
           {{"stages", "12"},
            {"rate", "1000"},
            {"seconds", "5"},
            {"source", "physical"},
            {"mode", "precise"}});
  r.define("fib", "Savina: Fibonacci by recursive creation (reactors: mutations)",
           {{"n", "25"}, {"iterations", "12"}, {"warmup", "2"}, {"mode", "precise"}});
  r.define("reactor_mutation",
           "per tag, a reaction creates a reactor, connects it and removes the previous one",
           {{"size", "100"}, {"n", "20000"}});
  r.define("reactor_levels",
           "per tag: a fan-out to one heavy reaction and a chain of light ones, then a join",
           {{"tags", "4000"}, {"work", "400"}, {"chain", "4"}, {"mode", "precise"}});
  r.define("timer_jitter", "`rate` timers per second for `seconds`: lateness and CPU",
           {{"rate", "1000"}, {"seconds", "5"}});
  r.define("idle", "a runtime (actor system) with nothing to do, for `seconds`: its CPU use",
           {{"seconds", "10"}});
  r.define("farm_chain", "source -> 3 farms of forwarders -> sink; fused or with routers",
           {{"n", "20000000"},
            {"replicas", "4"},
            {"fused", "true"},
            {"capacity", "1024"},
            {"batch", "1024"},
            {"busy", "false"}});
  r.define("nodes_vs_cores", "a pipeline of many forwarding nodes on the worker pool",
           {{"n", "10000000"},
            {"nodes", "64"},
            {"forwarder", "map"},
            {"capacity", "1024"},
            {"batch", "1024"}});
  r.define("pingpong", "Savina: two actors, n round trips",
           {{"n", "1000000"}, {"iterations", "12"}, {"warmup", "2"}, {"mode", "precise"}});
  r.define("threadring", "Savina: a token passed n times around a ring",
           {{"actors", "100"},
            {"n", "100000"},
            {"iterations", "12"},
            {"warmup", "2"},
            {"mode", "precise"}});
  r.define("counting", "Savina: n increments then a query",
           {{"n", "1000000"}, {"iterations", "12"}, {"warmup", "2"}, {"mode", "precise"}});
  r.define("forkjoin", "Savina: n messages to each of the workers (throughput)",
           {{"workers", "60"}, {"n", "10000"}, {"iterations", "12"}, {"warmup", "2"}});
  r.define("big", "Savina: workers ping random peers n times each",
           {{"workers", "120"}, {"n", "20000"}, {"iterations", "12"}, {"warmup", "2"}});
  r.define("chameneos", "Savina: chameneos meet through a mall",
           {{"chameneos", "100"}, {"meetings", "200000"}, {"iterations", "12"}, {"warmup", "2"}});
}

}  // namespace spate_bench
