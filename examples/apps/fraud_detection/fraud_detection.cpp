// Fraud Detection: transactions → Markov-model predictor per entity → alerts.
//
//   fraud_detection [--file credit-card.dat | --generate 200000] [--model data/...]
//                   [--passes 5] [--rate 0] [--predictors 1] [--check]
#include "fraud_detection.hpp"

#include "../common/app_run.hpp"

int main(int argc, char** argv) {
  namespace fd = apps::fraud_detection;
  CLI::App cli{"spate Fraud Detection: transactions -> Markov-model predictor -> alerts"};
  apps::run_options options;
  apps::add_run_options(cli, options);
  std::string model_path = "data/fraud-detection/model.txt";
  std::size_t predictors = 1;
  std::uint32_t entities = 1000;
  fd::parameters p;
  cli.add_option("--model", model_path, "the Markov model")->check(CLI::ExistingFile);
  cli.add_option("--predictors", predictors, "predictor replicas (by entity)")
      ->check(CLI::Range(1, 256));
  cli.add_option("--entities", entities, "card holders in generated input")
      ->check(CLI::PositiveNumber);
  cli.add_option("--threshold", p.threshold, "the score above which an entity is reported");
  CLI11_PARSE(cli, argc, argv);

  std::shared_ptr<const fd::markov_model> model;
  try {
    model = std::make_shared<const fd::markov_model>(fd::markov_model::load(model_path));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fraud detection: %s\n", e.what());
    return 2;
  }
  fd::parser parse(*model);
  const auto input = apps::load_input<fd::transaction>(
      "fraud detection", options,
      [&] { return fd::generate_lines(*model, options.generate, options.seed, entities); }, parse);
  return apps::run_and_report<fd::alert>(
      "fraud detection", input, options, "alerts",
      [&](auto source, auto sink) {
        return fd::pipeline(std::move(source), std::move(sink), model, predictors, p);
      },
      [&](const std::vector<fd::transaction>& records, std::uint64_t total) {
        return fd::sequential(records, total, model, p);
      });
}
