// Spike Detection: readings → moving average per device (last 1,000) → detector → spikes.
//
//   spike_detection [--file sensors.dat | --generate 200000] [--passes 5] [--rate 0]
//                   [--averages 1] [--detectors 1] [--threshold 0.25] [--check]
#include "spike_detection.hpp"

#include "../common/app_run.hpp"

int main(int argc, char** argv) {
  namespace sd = apps::spike_detection;
  CLI::App cli{"spate Spike Detection: sensor readings -> moving average -> spike detector"};
  apps::run_options options;
  apps::add_run_options(cli, options);
  std::size_t averages = 1, detectors = 1;
  sd::parameters p;
  cli.add_option("--averages", averages, "moving-average replicas (by device)")
      ->check(CLI::Range(1, 256));
  cli.add_option("--detectors", detectors, "spike-detector replicas")->check(CLI::Range(1, 256));
  cli.add_option("--threshold", p.threshold, "relative distance from the average that is a spike");
  cli.add_option("--window", p.window, "readings per device in the moving average")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(cli, argc, argv);

  const auto input = apps::load_input<sd::reading>(
      "spike detection", options,
      [&] { return sd::generate_lines(options.generate, options.seed); }, sd::parse);
  return apps::run_and_report<sd::spike>(
      "spike detection", input, options, "spikes",
      [&](auto source, auto sink) {
        return sd::pipeline(std::move(source), std::move(sink), averages, detectors, p);
      },
      [&](const std::vector<sd::reading>& records, std::uint64_t total) {
        return sd::sequential(records, total, p);
      });
}
