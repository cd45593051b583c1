// Linear Road: position reports → tolls and accident alerts; daily-expenditure queries.
//
//   linear_road [--file lr.dat | --generate 200000] [--passes 5] [--rate 0] [--replicas 1]
//               [--xways 4] [--check]
#include "linear_road.hpp"

#include <algorithm>

#include "../common/app_run.hpp"

int main(int argc, char** argv) {
  namespace lr = apps::linear_road;
  CLI::App cli{"spate Linear Road: position reports -> tolls, accident alerts and query answers"};
  apps::run_options options;
  apps::add_run_options(cli, options);
  std::size_t replicas = 1;
  lr::traffic_shape shape;
  cli.add_option("--replicas", replicas, "replicas of every operator (routed by road)")
      ->check(CLI::Range(1, 256));
  cli.add_option("--xways", shape.xways, "expressways in generated input")
      ->check(CLI::Range(1, 1000));
  cli.add_option("--vehicles", shape.vehicles_per_direction,
                 "vehicles on each road (expressway and direction) in generated input")
      ->check(CLI::Range(1, 100000));
  CLI11_PARSE(cli, argc, argv);

  const auto input = apps::load_input<lr::record>(
      "linear road", options,
      [&] { return lr::generate_lines(options.generate, options.seed, shape); }, lr::parse);
  const auto unanswered =
      std::count_if(input.records.begin(), input.records.end(),
                    [](const lr::record& r) { return r.type == 2 || r.type == 4; });
  if (unanswered != 0)
    std::printf(
        "linear road: %ld account-balance and travel-time queries (types 2, 4) are not "
        "answered by this version; counted here, not replayed\n",
        long(unanswered));
  auto history = std::make_shared<const lr::historical_tolls>(
      lr::historical_tolls::generate(shape.queried_vehicles, shape.xways, options.seed));
  return apps::run_and_report<lr::notification>(
      "linear road", input, options, "notifications",
      [&](auto source, auto sink) {
        return lr::pipeline(std::move(source), std::move(sink), history, replicas);
      },
      [&](const std::vector<lr::record>& records, std::uint64_t total) {
        return lr::sequential(records, total, history);
      });
}
