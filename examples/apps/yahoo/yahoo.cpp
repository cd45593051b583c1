// The Yahoo Streaming Benchmark: ad events → filter (views) → join with the campaign table →
// a count per campaign per 10-second tumbling window (event time) → sink.
//
//   yahoo [--file events.json --campaigns table.csv | --generate 200000] [--passes 5]
//         [--rate 0] [--replicas 1] [--check]
#include "yahoo.hpp"

#include <fstream>

#include "../common/app_run.hpp"

int main(int argc, char** argv) {
  namespace ysb = apps::yahoo;
  CLI::App cli{"spate Yahoo Streaming Benchmark: events -> filter -> join -> windowed counts"};
  apps::run_options options;
  apps::add_run_options(cli, options);
  std::size_t replicas = 1;
  ysb::parameters p;
  std::string write_table;
  cli.add_option("--replicas", replicas, "replicas of the filter, the join and the window workers")
      ->check(CLI::Range(1, 256));
  cli.add_option("--events-per-second", p.events_per_second,
                 "nominal event rate that gives each event its event time")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(cli, argc, argv);
  if (!options.file.empty()) {
    std::fprintf(stderr,
                 "yahoo: --file needs the campaign table the events refer to; this "
                 "version generates both (omit --file)\n");
    return 2;
  }
  auto table =
      std::make_shared<const ysb::campaign_table>(ysb::campaign_table::generate(p, options.seed));
  const auto input = apps::load_input<ysb::event>(
      "yahoo", options, [&] { return ysb::generate_lines(*table, options.generate, options.seed); },
      ysb::parser(*table));
  return apps::run_and_report<ysb::campaign_count>(
      "yahoo", input, options, "campaign windows",
      [&](auto source, auto sink) {
        return ysb::pipeline(std::move(source), std::move(sink), table, replicas, p);
      },
      [&](const std::vector<ysb::event>& records, std::uint64_t total) {
        return ysb::sequential(records, total, *table, p);
      });
}
