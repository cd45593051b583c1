// `apps --app=lr`: Linear Road, in spate and in CAF 0.17 (the options are in
// apps_bench.cpp). One application per file: they are the benchmark's slowest translation
// units, and apart they build side by side.
#include "../../examples/apps/linear_road/linear_road.hpp"
#include "apps_common.hpp"

namespace lr = apps::linear_road;

#ifdef SPATE_BENCH_HAVE_CAF
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(lr::record)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(lr::event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(lr::notification)
#endif

namespace spate_bench::apps_impl {

json linear_road(const bench_params& p, bool caf) {
  const run_shape s = apps_run::shape_of(p);
  static const auto records =
      parsed<lr::record>(lr::generate_lines(std::size_t(p.integer("records")), 1), lr::parse);
  static const auto history = shared(lr::historical_tolls::generate(1000, 4, 1));
  const exact_outputs<lr::notification> check(shared(lr::sequential(records, s.total, history)));
  if (!caf)
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return lr::pipeline(std::move(source), std::move(sink), history, s.replicas);
        },
        check);
  SPATE_APPS_CAF(return caf_apps::run(
      p, records, s, s.replicas,
      [&](caf_apps::topology& t, caf::actor sink, caf_apps::queue_length* queued) {
        const std::size_t n = s.replicas;
        auto stage = [&](auto op, caf::actor next) {
          using operator_type = decltype(op);
          return caf_apps::farm<lr::event, operator_type>(t, n, n, lr::event_partition, next,
                                                          [op] { return op; });
        };
        auto answers = stage(lr::daily_expenditure(history), sink);
        auto tolls = stage(lr::toll_notification(), answers);
        auto accidents = stage(lr::accident_detection(), tolls);
        auto counts = stage(lr::count_vehicles(), accidents);
        auto lav = stage(lr::last_average_speed(), counts);
        auto speeds = stage(lr::average_speed(), lav);
        return caf_apps::farm<lr::record, lr::dispatcher>(
            t, n, 1, lr::record_partition, speeds, [] { return lr::dispatcher(); }, queued);
      },
      check));
}

}  // namespace spate_bench::apps_impl
