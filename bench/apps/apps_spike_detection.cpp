// `apps --app=sd`: Spike Detection, in spate and in CAF 0.17 (the options are in
// apps_bench.cpp). One application per file: they are the benchmark's slowest translation
// units, and apart they build side by side.
#include "../../examples/apps/spike_detection/spike_detection.hpp"
#include "apps_common.hpp"

namespace sd = apps::spike_detection;

#ifdef SPATE_BENCH_HAVE_CAF
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(sd::reading)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(sd::averaged)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(sd::spike)
#endif

namespace spate_bench::apps_impl {

json spike_detection(const bench_params& p, bool caf) {
  const run_shape s = apps_run::shape_of(p);
  static const auto records =
      parsed<sd::reading>(sd::generate_lines(std::size_t(p.integer("records")), 1), sd::parse);
  const sd::parameters params;
  const exact_outputs<sd::spike> check(shared(sd::sequential(records, s.total, params)));
  if (!caf)
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return sd::pipeline(std::move(source), std::move(sink), s.replicas, s.replicas, params);
        },
        check);
  SPATE_APPS_CAF(return caf_apps::run(
      p, records, s, s.replicas,
      [&](caf_apps::topology& t, caf::actor sink, caf_apps::queue_length* queued) {
        auto detectors = caf_apps::farm<sd::averaged, sd::spike_detector>(
            t, s.replicas, s.replicas, caf_apps::round_robin{}, sink,
            [&] { return sd::spike_detector(params); });
        return caf_apps::farm<sd::reading, sd::moving_average>(
            t, s.replicas, 1, sd::device_of, detectors, [&] { return sd::moving_average(params); },
            queued);
      },
      check));
}

}  // namespace spate_bench::apps_impl
