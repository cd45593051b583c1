// `apps --app=fd`: Fraud Detection, in spate and in CAF 0.17 (the options are in
// apps_bench.cpp). One application per file: they are the benchmark's slowest translation
// units, and apart they build side by side.
#include "../../examples/apps/fraud_detection/fraud_detection.hpp"
#include "apps_common.hpp"

namespace fd = apps::fraud_detection;

#ifdef SPATE_BENCH_HAVE_CAF
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fd::transaction)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fd::alert)
#endif

namespace spate_bench::apps_impl {

std::shared_ptr<const fd::markov_model> fraud_model(const std::string& path) {
  static auto model = std::make_shared<const fd::markov_model>(fd::markov_model::load(path));
  return model;
}

json fraud_detection(const bench_params& p, bool caf) {
  const run_shape s = apps_run::shape_of(p);
  const auto model = fraud_model(p.text("model"));
  static const auto records = parsed<fd::transaction>(
      fd::generate_lines(*model, std::size_t(p.integer("records")), 1), fd::parser(*model));
  const fd::parameters params;
  const exact_outputs<fd::alert> check(shared(fd::sequential(records, s.total, model, params)));
  if (caf && p.flag("keyed_state")) throw usage_error("apps: keyed_state is spate's, not CAF's");
  if (!caf && p.flag("keyed_state"))
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return fd::pipeline<fd::keyed_predictor>(std::move(source), std::move(sink), model,
                                                   s.replicas, params);
        },
        check);
  if (!caf)
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return fd::pipeline(std::move(source), std::move(sink), model, s.replicas, params);
        },
        check);
  SPATE_APPS_CAF(return caf_apps::run(
      p, records, s, s.replicas,
      [&](caf_apps::topology& t, caf::actor sink, caf_apps::queue_length* queued) {
        return caf_apps::farm<fd::transaction, fd::predictor>(
            t, s.replicas, 1, fd::entity_of, sink, [&] { return fd::predictor(model, params); },
            queued);
      },
      check));
}

}  // namespace spate_bench::apps_impl
