// spate-bench nexmark: the options, the stateless queries and the generator alone, and the
// dispatch to the queries with state (nexmark_windows.cpp, nexmark_joins.cpp,
// nexmark_updates.cpp); nexmark_run.hpp says what a run is.
#include <cstdio>
#include <filesystem>

#include "nexmark_run.hpp"

namespace spate_bench::nexmark_run {

void add_steady_rate(json& m, const std::vector<mark>& marks) {
  const std::size_t first = marks.size() / 4, last = marks.size() * 3 / 4;
  if (last <= first || marks[last].time_ns <= marks[first].time_ns) return;
  const double events = double((last - first) * mark_every);
  m["steady_events_per_s"] = events / (double(marks[last].time_ns - marks[first].time_ns) / 1e9);
  if (marks[last].cpu_ns > marks[first].cpu_ns)
    m["steady_events_per_core_s"] =
        events / (double(marks[last].cpu_ns - marks[first].cpu_ns) / 1e9);
}

std::shared_ptr<std::vector<nx::event>> load(const std::string& path, std::uint64_t count) {
  if (!std::filesystem::exists(path)) {
    throw usage_error("nexmark: no events file " + path +
                      "; write one with: nexmark generate --events N --out " + path);
  }
  auto input = apps::parse_file<nx::event>(path, nx::parse_line);
  if (input.malformed != 0) {
    throw std::runtime_error("nexmark: " + path + " has " + std::to_string(input.malformed) +
                             " malformed lines, the first: " + input.malformed_examples.front());
  }
  if (input.records.size() < count) {
    throw usage_error("nexmark: " + path + " holds " + std::to_string(input.records.size()) +
                      " events, fewer than --events=" + std::to_string(count));
  }
  input.records.resize(count);
  for (std::size_t i = 0; i < input.records.size(); ++i) input.records[i].seq = i;
  return std::make_shared<std::vector<nx::event>>(std::move(input.records));
}

run_options checked_options(const bench_params& p) {
  const auto count = std::uint64_t(p.integer("events"));
  const auto replicas = std::size_t(p.integer("replicas"));
  if (count == 0) throw usage_error("nexmark: --events must be > 0");
  if (replicas == 0) throw usage_error("nexmark: --replicas must be >= 1");
  const std::string source = p.text("source");
  if (source != "generator" && source != "file")
    throw usage_error("nexmark: --source must be generator or file");
  const std::string topology = p.text("topology");
  if (topology != "single" && topology != "parallel")
    throw usage_error("nexmark: --topology must be single or parallel");
  if (topology == "parallel" && source != "file")
    throw usage_error("nexmark: --topology=parallel reads --source=file");
  const std::string chaining = p.text("chaining");
  if (chaining != "on" && chaining != "off")
    throw usage_error("nexmark: --chaining must be on or off");
  if (topology == "single" && chaining == "off")
    throw usage_error("nexmark: --topology=single has nothing to chain (source -> farm -> sink)");
  const std::string sinks = p.text("sinks");
  if (sinks != "one" && sinks != "per-replica")
    throw usage_error("nexmark: --sinks must be one or per-replica");
  if (sinks == "per-replica" && topology != "parallel")
    throw usage_error(
        "nexmark: --sinks=per-replica chains a sink to each of --topology=parallel's "
        "sources");
  const double rate = p.number("rate");
  if (!(rate >= 0)) throw usage_error("nexmark: --rate must be >= 0");
  if (rate > 0 && source != "file") throw usage_error("nexmark: --rate paces --source=file");
  run_options o{
      .count = count,
      .replicas = replicas,
      .source = source,
      .topology = topology,
      .chaining = chaining,
      .sinks = sinks,
      .generator = nx::generator(nx::generator_config{.seed = std::uint64_t(p.integer("seed"))}),
      .loaded = nullptr,
      .rate = rate};
  if (source == "file") o.loaded = load(p.text("events_file"), count);
  return o;
}

void finish(json& m, const bench_params& p, const run_options& o, sink_tally& got,
            std::uint64_t expected_rows, std::uint64_t expected_digest,
            const std::vector<mark>& marks) {
  if (got.rows != expected_rows || got.digest != expected_digest) {
    throw std::runtime_error("nexmark " + p.text("query") + ": " + std::to_string(got.rows) +
                             " rows, the sequential run gives " + std::to_string(expected_rows) +
                             (got.rows == expected_rows ? " (digests differ)" : ""));
  }
  const double wall = m["wall_s"].get<double>();
  m["events_per_s"] = double(o.count) / wall;
  m["events_per_core_s"] = double(o.count) / (wall * m["cpu_pct"].get<double>() / 100.0);
  m["rows"] = got.rows;
  char hex[20];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(got.digest));
  m["digest"] = hex;  // the same as the Flink program's for the same events
  m["topology"] = o.topology;
  m["chaining"] = o.chaining;
  m["sinks"] = o.sinks;
  add_steady_rate(m, marks);
  add_latency_metrics(m, std::move(got.latencies));
}

namespace {

// A stateless query: source → farm of `replicas` copies of it → sink (topology=parallel:
// `replicas` sources each chained to it → sink; sinks=per-replica: each also chained to its
// own tally → the sink that merges them).
template <class Row, auto Of>
json run_query(const bench_params& p) {
  run_options o = checked_options(p);
  // The digest a one-thread loop gives, made before the clock starts.
  std::uint64_t expected_rows = 0, expected_digest = 0;
  for (std::uint64_t n = 0; n < o.count; ++n) {
    nx::event e = o.loaded ? (*o.loaded)[n] : o.generator.at(n);
    if (Row row; Of(e, row)) {
      ++expected_rows;
      expected_digest += row.digest();
    }
  }

  spate::runtime rt(spate_runtime_config(p));
  sink_tally got;
  std::vector<mark> marks;
  got.latencies.reserve(std::size_t(expected_rows / 16 + 1));
  marks.reserve(std::size_t(o.count / mark_every + 1));
  auto sink = flow::sink([&](Row& r) { got.add(r); });
  auto query = nx::stateless_query<Row, Of>().named(p.text("query"));
  json m;
  if (o.topology == "parallel" && o.sinks == "per-replica") {
    auto merge = flow::sink([&](sink_tally& part) { got.merge(std::move(part)); });
    run_parallel(
        m, rt, o, marks, merge, query,
        flow::make_stage<replica_tally<Row>>(std::size_t(expected_rows / 16 + 1)).named("sink"));
  } else if (o.topology == "parallel") {
    run_parallel(m, rt, o, marks, sink, query);
  } else if (o.loaded) {
    flow::graph job(nx::pipeline(flow::make_stage<take_source>(o.loaded, &marks, o.rate), query,
                                 sink, o.replicas));
    timed_run(m, [&] { job.run(rt); });
  } else {
    flow::graph job(nx::pipeline(flow::make_stage<generating_source>(o.generator, o.count, &marks),
                                 query, sink, o.replicas));
    timed_run(m, [&] { job.run(rt); });
  }
  finish(m, p, o, got, expected_rows, expected_digest, marks);
  return m;
}

// The generator alone, on this thread: events made per second.
json generate_only(const bench_params& p) {
  const auto count = std::uint64_t(p.integer("events"));
  const nx::generator g(nx::generator_config{.seed = std::uint64_t(p.integer("seed"))});
  std::uint64_t bytes = 0;
  json m;
  timed_run(m, [&] {
    for (std::uint64_t n = 0; n < count; ++n) {
      const nx::event e = g.at(n);
      if (const nx::bid* b = e.as_bid()) bytes += b->extra.size();
    }
  });
  const double wall = m["wall_s"].get<double>();
  m["events_per_s"] = double(count) / wall;
  m["steady_events_per_s"] = m["events_per_s"];  // one loop: no start-up to leave out
  m["events_per_core_s"] = double(count) / (wall * m["cpu_pct"].get<double>() / 100.0);
  m["steady_events_per_core_s"] = m["events_per_core_s"];
  m["bid_extra_bytes"] = bytes;
  return m;
}

json nexmark_bench(const bench_params& p) {
  const std::string q = p.text("query");
  if (q == "q0") return run_query<nx::q0_row, nx::q0_of>(p);
  if (q == "q1") return run_query<nx::q1_row, nx::q1_of>(p);
  if (q == "q2") return run_query<nx::q2_row, nx::q2_of>(p);
  if (q == "q13") return run_query<nx::q13_row, nx::q13_of>(p);
  if (q == "q14") return run_query<nx::q14_row, nx::q14_of>(p);
  if (q == "q21") return run_query<nx::q21_row, nx::q21_of>(p);
  if (q == "q22") return run_query<nx::q22_row, nx::q22_of>(p);
  if (q == "generate") return generate_only(p);
  for (auto* run : {run_window_query, run_join_query, run_update_query})
    if (std::optional<json> m = run(p)) return *std::move(m);
  throw usage_error(
      "nexmark: --query must be q0, q1, q2, q3, q4, q5, q6, q7, q8, q9, q11, q12, q13, q14, q15, "
      "q16, q17, q18, q19, q20, q21, q22 or generate");
}

}  // namespace
}  // namespace spate_bench::nexmark_run

namespace spate_bench {

void register_nexmark_impls(bench_registry& r) {
  r.implement("nexmark", "spate", nexmark_run::nexmark_bench);
}

}  // namespace spate_bench
