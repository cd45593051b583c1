#pragma once
// The command line every streaming application shares: where the records come from (a file
// in the original's format, or the seeded generator), how they are replayed (passes, rate),
// and a report — throughput, end-to-end latency, the outputs, malformed lines, and with
// --check the comparison against a sequential run of the same operators.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "replay_source.hpp"
#include "text_input.hpp"

namespace apps {

struct run_options {
  std::string file;                // empty: generate
  std::size_t generate = 200'000;  // records to generate when there is no file
  std::uint64_t seed = 1;
  std::uint64_t passes = 1;
  double rate = 0;  // records per second; 0: as fast as the graph takes them
  bool check = false;
};

inline void add_run_options(CLI::App& app, run_options& o) {
  app.add_option("--file", o.file, "records in the original's text format (default: generate)")
      ->check(CLI::ExistingFile);
  app.add_option("--generate", o.generate, "records to generate when no --file is given");
  app.add_option("--seed", o.seed, "the generator's seed");
  app.add_option("--passes", o.passes, "replay the records this many times")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1'000'000)));
  app.add_option("--rate", o.rate, "records per second (0: as fast as possible)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--check", o.check, "compare the outputs with a sequential run");
}

template <class Record>
void report_input(const char* app, const parsed_input<Record>& in, const std::string& origin) {
  std::printf("%s: %zu records from %s", app, in.records.size(), origin.c_str());
  if (in.malformed != 0) {
    std::printf(", %llu malformed lines skipped and counted:\n",
                static_cast<unsigned long long>(in.malformed));
    for (const auto& e : in.malformed_examples) std::printf("    %s\n", e.c_str());
  } else {
    std::printf(", no malformed lines\n");
  }
}

// The records: `--file` parsed in the original's format, or the generator's lines (made by
// `generate()` only when there is no file); reported on stdout.
template <class Record, class Generate, class Parse>
parsed_input<Record> load_input(const char* app, const run_options& o, Generate&& generate,
                                Parse&& parse) {
  auto in =
      o.file.empty() ? parse_lines<Record>(generate(), parse) : parse_file<Record>(o.file, parse);
  report_input(app, in, o.file.empty() ? "the generator" : o.file);
  return in;
}

// Runs `make(source, sink)` over the replayed records; outputs have `seq` and `stamp_ns`.
// Returns the exit code: 1 when --check finds a difference.
template <class Output, class Record, class Make, class Sequential>
int run_and_report(const char* app, const parsed_input<Record>& in, const run_options& o,
                   const char* outputs_name, Make&& make, Sequential&& sequential) {
  if (in.records.empty()) {
    std::fprintf(stderr, "%s: no records to replay\n", app);
    return 2;
  }
  namespace flow = spate::flow;
  auto records = std::make_shared<const std::vector<Record>>(in.records);
  std::vector<Output> outputs;
  latency_record latency;
  const std::uint64_t total = records->size() * o.passes;
  auto source = flow::make_stage<replay_source<Record>>(records, o.rate, total).named("source");
  auto sink = flow::sink([&](Output& out) {
                latency.add(out.stamp_ns);
                if (o.check) outputs.push_back(out);
              }).named("sink");
  const auto start = std::chrono::steady_clock::now();
  flow::graph job(make(std::move(source), std::move(sink)));
  try {
    job.run();
  } catch (const flow::node_error& e) {
    std::fprintf(stderr, "%s: %s\n", app, e.what());
    return 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%llu records in %.3f s: %.0f records/s; %zu %s; latency p50 %.1f us, p99 %.1f us\n",
              static_cast<unsigned long long>(total), seconds, double(total) / seconds,
              latency.count(), outputs_name, latency.quantile_us(0.5), latency.quantile_us(0.99));
  if (!o.check) return 0;
  auto expected = sequential(in.records, total);
  auto by_seq = [](const Output& a, const Output& b) { return a.seq < b.seq; };
  std::sort(outputs.begin(), outputs.end(), by_seq);
  const bool same = outputs == expected;
  std::printf("check: %s (%zu %s in the sequential run)\n",
              same ? "identical to the sequential run" : "DIFFERENT from the sequential run",
              expected.size(), outputs_name);
  return same ? 0 : 1;
}

}  // namespace apps
