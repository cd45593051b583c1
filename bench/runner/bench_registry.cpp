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
  // Savina's dynamic-creation benchmarks (reactors: every creation is a mutation).
  r.define("fib", "Savina: Fibonacci by recursive creation",
           {{"n", "25"}, {"iterations", "12"}, {"warmup", "2"}, {"mode", "precise"}});
  r.define("fjcreate", "Savina: n workers created, each computes once",
           {{"n", "40000"}, {"iterations", "12"}, {"warmup", "2"}, {"mode", "precise"}});
  r.define("quicksort", "Savina: quicksort creating two children per split",
           {{"n", "1000000"},
            {"threshold", "2048"},
            {"max", "1152921504606846976"},
            {"seed", "1024"},
            {"iterations", "12"},
            {"warmup", "2"},
            {"mode", "precise"}});
  r.define("bitonicsort", "Savina: a bitonic sorting network of compare-exchange units",
           {{"n", "4096"},
            {"max", "1152921504606846976"},
            {"seed", "2048"},
            {"iterations", "12"},
            {"warmup", "2"},
            {"mode", "precise"}});
  r.define("sieve", "Savina: primes below limit by a growing chain of filters",
           {{"limit", "100000"},
            {"local_primes", "1000"},
            {"iterations", "12"},
            {"warmup", "2"},
            {"mode", "precise"}});
  r.define("uct", "Savina: an unbalanced tree grown on a root's decisions, then traversed",
           {{"max_nodes", "200000"},
            {"avg_comp", "500"},
            {"stdev_comp", "100"},
            {"binomial", "10"},
            {"urgent_percent", "50"},
            {"iterations", "12"},
            {"warmup", "2"},
            {"mode", "precise"},
            {"sparse", "automatic"}});
  r.define("facloc", "Savina: online facility location on a quadtree that splits",
           {{"points", "100000"},
            {"grid", "500"},
            {"alpha", "2"},
            {"seed", "123456"},
            {"iterations", "12"},
            {"warmup", "2"},
            {"mode", "precise"},
            {"sparse", "automatic"}});
  r.define("sor", "Savina: red-black successive over-relaxation on a grid of cells",
           {{"size", "20"}, {"iterations", "12"}, {"warmup", "2"}, {"mode", "precise"}});
  r.define("reactor_mutation",
           "per tag, a reaction creates a reactor, connects it and removes the previous one",
           {{"size", "100"}, {"n", "20000"}});
  r.define(
      "reactor_sparse",
      "per tag, one reaction writes one of `reactions` leaves: a path through a large cone",
      {{"reactions", "10000"}, {"tags", "20000"}, {"mode", "precise"}, {"sparse", "automatic"}});
  r.define("reactor_levels",
           "per tag: a fan-out to one heavy reaction and a chain of light ones, then a join",
           {{"tags", "4000"}, {"work", "400"}, {"chain", "4"}, {"mode", "precise"}});
  r.define("multicast", "one emitter multicasts 64-byte tokens to `group` of `workers`",
           {{"workers", "4"}, {"group", "2"}, {"n", "2000000"}, {"variant", "slab"}});
  r.define("hft", "quotes -> per-symbol windows w=1000, s=25 -> LM fit: max sustained rate",
           {{"pattern", "wf"},
            {"variant", "slab"},
            {"model", "lm"},
            {"workers", "2"},
            {"step", "1.5"},
            {"first_rate", "20000"},
            {"pause", "3"},
            {"max_steps", "14"},
            {"symbols", "2836"}});
  r.define("hft_day",
           "hft through a compressed trading day at a U-shaped rate: steady-state RSS, latency",
           {{"pattern", "wf"},
            {"variant", "slab"},
            {"model", "lm"},
            {"workers", "2"},
            {"peak", "30000"},
            {"trough", "0.3"},
            {"day_seconds", "468"},
            {"pause", "3"},
            {"symbols", "2836"}});
  r.define("apps",
           "examples/apps (wc: word count, sd: spike detection, fd: fraud detection, lr: Linear "
           "Road, ysb: Yahoo) at a rate (0: max), every operator with `replicas` replicas, the "
           "source's queue at the first operator bounded by `queue_limit` (0: unbounded in CAF, "
           "the default edge capacity in spate); outputs checked against a sequential run; "
           "keyed_state=true: wc's counter and fd's predictor keep their state in spate's "
           "keyed state; with it, checkpoint_ms > 0: checkpoints at that interval into a "
           "fresh directory under checkpoint_dir, and state_backend=rocksdb: the keyed state "
           "in RocksDB tables under a fresh directory in state_dir, state_cached_rows rows "
           "per replica cached in front of each (0: none); wc_graph=chained (replicas=1): "
           "source, splitter and counter in a pipeline, chained into one task; "
           "wc_graph=unchained: the same pipeline, each a task of its own",
           {{"app", "sd"},
            {"wc_graph", "farms"},
            {"keyed_state", "false"},
            {"checkpoint_ms", "0"},
            {"checkpoint_dir", "bench-checkpoints"},
            {"state_backend", "memory"},
            {"state_dir", "bench-state"},
            {"state_cached_rows", "65536"},
            {"rate", "0"},
            {"replicas", "1"},
            {"queue_limit", "0"},
            {"book", "data/wordcount/book.dat"},
            {"n", "4000000"},
            {"seconds", "2"},
            {"records", "200000"},
            {"model", "data/fraud-detection/model.txt"}});
  r.define(
      "nexmark",
      "a Nexmark query (examples/apps/nexmark: q0, q1, q2, q3, q4, q5, q6, q7, q8, q9, q11, "
      "q12, q13, q14, q15, q16, q17, q18, q19, q20, q21, q22; generate: the generator alone on one "
      "thread) "
      "over `events` events, "
      "source -> farm of `replicas` -> sink; "
      "source=generator makes the events as it sends them, source=file loads events_file "
      "before the clock and sends each once; rows checked against a sequential run's digest. "
      "topology=parallel (source=file): a farm of `replicas` sources, each sending its share "
      "and running the query in the same task (chaining=off: each query a task of its own) "
      "-> sink (q3, q20: sources chained to the query's filter -> the join -> sink; the other "
      "queries with state run topology=single only); sinks=per-replica (topology=parallel, "
      "the stateless queries): each source's rows folded by a sink chained to it, as "
      "Flink's; rate=R (source=file): R events a second, for latency",
      {{"query", "q0"},
       {"events", "10000000"},
       {"replicas", "2"},
       {"source", "generator"},
       {"topology", "single"},
       {"chaining", "on"},
       {"sinks", "one"},
       {"events_file", "build/nexmark/events.csv"},
       {"seed", "0"},
       {"rate", "0"}});
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
           {{"workers", "60"},
            {"n", "10000"},
            {"iterations", "12"},
            {"warmup", "2"},
            {"mode", "precise"}});
  r.define("big", "Savina: workers ping random peers n times each",
           {{"workers", "120"},
            {"n", "20000"},
            {"iterations", "12"},
            {"warmup", "2"},
            {"mode", "precise"}});
  r.define("chameneos", "Savina: chameneos meet through a mall",
           {{"chameneos", "100"},
            {"meetings", "200000"},
            {"iterations", "12"},
            {"warmup", "2"},
            {"mode", "precise"}});
  // Savina's concurrency and parallelism benchmarks at Savina's sizes (docs/benchmarks.md).
  // `mode`: the reactor versions' scheduling (precise or levels); the actors ignore it.
  const std::pair<std::string, std::string> iterations{"iterations", "12"}, warmup{"warmup", "2"},
      mode{"mode", "precise"};
  r.define("concdict", "Savina: workers read and write one dictionary actor",
           {{"workers", "20"},
            {"messages", "10000"},
            {"write_percent", "10"},
            iterations,
            warmup,
            mode});
  r.define("concsll", "Savina: workers query and grow one sorted linked list actor",
           {{"workers", "20"},
            {"messages", "8000"},
            {"write_percent", "10"},
            {"size_percent", "1"},
            iterations,
            warmup,
            mode});
  r.define("bndbuffer", "Savina: producers and consumers through a bounded-buffer manager",
           {{"buffer", "50"},
            {"producers", "40"},
            {"consumers", "40"},
            {"items", "1000"},
            {"produce_cost", "25"},
            {"consume_cost", "25"},
            iterations,
            warmup,
            mode});
  r.define("philosopher", "Savina: dining philosophers through an arbitrator",
           {{"philosophers", "20"}, {"rounds", "10000"}, iterations, warmup, mode});
  r.define("barber", "Savina: a sleeping barber, a waiting room and a customer actor per haircut",
           {{"haircuts", "2000"},
            {"waiting_room", "1000"},
            {"production_rate", "1000"},
            {"haircut_rate", "1000"},
            iterations,
            warmup,
            mode});
  r.define("cigsmok", "Savina: an arbiter wakes a random smoker each round",
           {{"rounds", "1000"}, {"smokers", "200"}, iterations, warmup, mode});
  r.define("logmap", "Savina: logistic-map series, each term asked of a rate actor",
           {{"terms", "25000"}, {"series", "10"}, {"rate", "3.46"}, iterations, warmup, mode});
  r.define("banking", "Savina: transfers between account actors that wait for the payee",
           {{"accounts", "1000"}, {"transactions", "50000"}, iterations, warmup, mode});
  r.define("trapezoid", "Savina: an integral split among workers",
           {{"pieces", "10000000"},
            {"workers", "100"},
            {"left", "1"},
            {"right", "5"},
            iterations,
            warmup,
            mode});
  r.define("radixsort", "Savina: a radix sort as a chain of one stage per bit",
           {{"n", "100000"},
            {"max", "1152921504606846976"},
            {"seed", "2048"},
            iterations,
            warmup,
            mode});
  r.define("filterbank", "Savina: a pipeline of FIR filters per channel, channels summed",
           {{"columns", "16384"},
            {"simulations", "34816"},
            {"channels", "8"},
            iterations,
            warmup,
            mode});
  r.define("piprecise", "Savina: pi to `precision` digits by BBP terms farmed out to workers",
           {{"workers", "20"}, {"precision", "5000"}, iterations, warmup, mode});
  r.define("astar", "Savina: guided search on a 3-D grid, frontiers farmed out to workers",
           {{"workers", "20"}, {"grid", "30"}, {"threshold", "1024"}, iterations, warmup, mode});
  r.define("recmatmul", "Savina: C = A·B by blocks split among workers below a threshold",
           {{"workers", "20"}, {"n", "1024"}, {"threshold", "16384"}, iterations, warmup, mode});
  r.define("apsp", "Savina: all-pairs shortest paths, blocked Floyd-Warshall, an actor per block",
           {{"nodes", "300"}, {"block", "50"}, {"max_weight", "100"}, iterations, warmup, mode});
  r.define("nqueenk", "Savina: N-queens solutions, boards farmed out below a threshold depth",
           {{"workers", "20"},
            {"size", "12"},
            {"threshold", "4"},
            {"limit", "1500000"},
            iterations,
            warmup,
            mode});
}

}  // namespace spate_bench
