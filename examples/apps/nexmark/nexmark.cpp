// Nexmark on spate: write the generator's events to a file, or run a query over them.
//
//   nexmark generate --events 10000000 --out events.csv [--seed 0] [--rate 10000000]
//   nexmark run --query q1 [--events 1000000 | --file events.csv] [--replicas 2] [--check]
//
// `run` prints the rows, their digest (queries.hpp), the events per second and, with --check,
// whether the rows are those of a one-thread loop over the same events.
#include <CLI/CLI.hpp>
#include <spate/flow.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "../common/text_input.hpp"
#include "generator.hpp"
#include "queries.hpp"

namespace {

namespace flow = spate::flow;
namespace nx = apps::nexmark;

struct run_options {
  std::string query = "q0", file;
  std::uint64_t events = 1'000'000, seed = 0;
  std::size_t replicas = 2;
  bool check = false;
};

template <class Row, auto Of>
int run_query(const run_options& o, std::shared_ptr<const std::vector<nx::event>> loaded,
              const nx::generator& g) {
  std::uint64_t rows = 0, digest = 0;
  auto sink = flow::sink([&](Row& r) {
    ++rows;
    digest += r.digest();
  });
  auto query = nx::stateless_query<Row, Of>().named(o.query);
  const auto start = std::chrono::steady_clock::now();
  if (loaded) {
    flow::graph(
        nx::pipeline(flow::make_stage<apps::replay_source<nx::event>>(loaded, 0, loaded->size()),
                     query, sink, o.replicas))
        .run();
  } else {
    flow::graph(
        nx::pipeline(flow::make_stage<nx::generator_source>(g, o.events), query, sink, o.replicas))
        .run();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::uint64_t events = loaded ? loaded->size() : o.events;
  std::printf("nexmark %s: %llu events, %llu rows, digest %016llx, %.0f events/s\n",
              o.query.c_str(), static_cast<unsigned long long>(events),
              static_cast<unsigned long long>(rows), static_cast<unsigned long long>(digest),
              double(events) / seconds);
  if (!o.check) return 0;
  std::uint64_t expected_rows = 0, expected_digest = 0;
  for (const Row& r : nx::sequential_run<Row, Of>(loaded ? *loaded : nx::generate(g, o.events))) {
    ++expected_rows;
    expected_digest += r.digest();
  }
  const bool same = rows == expected_rows && digest == expected_digest;
  std::printf("check: %s (a one-thread loop gives %llu rows, digest %016llx)\n",
              same ? "the same rows" : "DIFFERENT rows",
              static_cast<unsigned long long>(expected_rows),
              static_cast<unsigned long long>(expected_digest));
  return same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"spate Nexmark: the online-auction benchmark's events and queries"};
  cli.require_subcommand(1);
  std::uint64_t count = 1'000'000, seed = 0;
  double rate = nx::generator_config{}.first_event_rate;
  std::string out;
  CLI::App* generate = cli.add_subcommand("generate", "write the generator's events to a file");
  generate->add_option("--events", count, "how many")->check(CLI::PositiveNumber);
  generate->add_option("--out", out, "the events file")->required();
  generate->add_option("--seed", seed, "the generator's seed");
  generate
      ->add_option("--rate", rate,
                   "events per second of event time (the suite's 10,000,000 by default; "
                   "lower spreads the events over more windows)")
      ->check(CLI::PositiveNumber);
  run_options o;
  CLI::App* run = cli.add_subcommand("run", "run a query");
  run->add_option("--query", o.query, "q0, q1, q2, q13, q14, q21 or q22")
      ->check(CLI::IsMember({"q0", "q1", "q2", "q13", "q14", "q21", "q22"}));
  run->add_option("--events", o.events, "events to generate (without --file)")
      ->check(CLI::PositiveNumber);
  run->add_option("--file", o.file, "an events file (nexmark generate)")->check(CLI::ExistingFile);
  run->add_option("--seed", o.seed, "the generator's seed (without --file)");
  run->add_option("--replicas", o.replicas, "query replicas")->check(CLI::Range(1, 256));
  run->add_flag("--check", o.check, "compare the rows with a one-thread loop");
  CLI11_PARSE(cli, argc, argv);

  try {
    if (*generate) {
      const nx::generator g(nx::generator_config{.first_event_rate = rate, .seed = seed});
      const std::string partial = out + ".partial";
      std::ofstream file(partial, std::ios::trunc);
      for (std::uint64_t n = 0; n < count && file; ++n) file << nx::to_line(g.at(n)) << '\n';
      file.close();
      if (!file) throw std::runtime_error("cannot write " + partial);
      if (std::rename(partial.c_str(), out.c_str()) != 0)
        throw std::runtime_error("cannot rename " + partial + " to " + out);
      std::printf("nexmark: %llu events in %s\n", static_cast<unsigned long long>(count),
                  out.c_str());
      return 0;
    }
    const nx::generator g(nx::generator_config{.seed = o.seed});
    std::shared_ptr<const std::vector<nx::event>> loaded;
    if (!o.file.empty()) {
      auto input = apps::parse_file<nx::event>(o.file, nx::parse_line);
      std::printf("nexmark: %zu events from %s, %llu malformed lines\n", input.records.size(),
                  o.file.c_str(), static_cast<unsigned long long>(input.malformed));
      for (const auto& example : input.malformed_examples) std::printf("    %s\n", example.c_str());
      for (std::size_t i = 0; i < input.records.size(); ++i) input.records[i].seq = i;
      loaded = std::make_shared<const std::vector<nx::event>>(std::move(input.records));
    }
    if (o.query == "q0") return run_query<nx::q0_row, nx::q0_of>(o, loaded, g);
    if (o.query == "q1") return run_query<nx::q1_row, nx::q1_of>(o, loaded, g);
    if (o.query == "q2") return run_query<nx::q2_row, nx::q2_of>(o, loaded, g);
    if (o.query == "q13") return run_query<nx::q13_row, nx::q13_of>(o, loaded, g);
    if (o.query == "q14") return run_query<nx::q14_row, nx::q14_of>(o, loaded, g);
    if (o.query == "q21") return run_query<nx::q21_row, nx::q21_of>(o, loaded, g);
    return run_query<nx::q22_row, nx::q22_of>(o, loaded, g);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nexmark: %s\n", e.what());
    return 1;
  }
}
