// `apps --app=ysb`: the Yahoo Streaming Benchmark, in spate and in CAF 0.17 (the options are in
// apps_bench.cpp). One application per file: they are the benchmark's slowest translation
// units, and apart they build side by side.
#include "apps_common.hpp"

#include <atomic>
#include <cstdio>
#include <limits>
#include <map>
#include "../../examples/apps/yahoo/yahoo.hpp"

namespace ysb = apps::yahoo;

#ifdef SPATE_BENCH_HAVE_CAF
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ysb::event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ysb::joined)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ysb::campaign_count)
#endif

namespace spate_bench::apps_impl {

#ifdef SPATE_BENCH_HAVE_CAF
// The Yahoo benchmark's operators for the CAF actors: the same filter, join and window rule
// (a window fires when its replica's watermark, newest time − lateness, passes its end; the
// ones still open at the end fire against the stream's final watermark, as in the reference).
struct ysb_filter {
  template <class Emit>
  void process(const ysb::event& e, Emit&& emit) {
    if (ysb::is_view(e)) emit(e);
  }
};
struct ysb_join {
  std::shared_ptr<const ysb::campaign_table> table;
  ysb::parameters p;
  std::uint64_t newest = 0;
  template <class Emit>
  void process(const ysb::event& e, Emit&& emit) {
    const ysb::joined j = ysb::join(e, *table, p);
    newest = std::max(newest, j.time_ms);
    emit(j);
  }
  template <class Emit>
  caf_apps::end_marker finish(const caf_apps::end_marker& m, Emit&&) {
    return caf_apps::end_marker{std::max(m.newest, newest)};
  }
};
inline std::atomic<std::uint64_t> late_events{0};
struct ysb_windows {
  ysb::parameters p;
  std::uint64_t newest = 0, fired = 0;  // windows < fired have fired
  struct open_count {
    std::uint64_t count = 0;
    std::int64_t stamp_ns = 0;
  };
  std::map<std::uint64_t, open_count> open;  // by output order (window-major)
  template <class Emit>
  void process(const ysb::joined& j, Emit&& emit) {
    const std::uint64_t w = j.time_ms / p.window_ms;
    if (w < fired) {  // later than the lateness allows: counted (the check then fails)
      if (late_events.fetch_add(1) == 0)
        std::fprintf(stderr, "apps ysb (caf): an event arrived after its window fired\n");
      return;
    }
    auto& o = open[ysb::output_order(w, j.campaign, p)];
    ++o.count;
    o.stamp_ns = std::max(o.stamp_ns, j.stamp_ns);
    if (j.time_ms > newest) {
      newest = j.time_ms;
      if (newest >= p.lateness_ms) fire_until((newest - p.lateness_ms) / p.window_ms, emit);
    }
  }
  template <class Emit>
  void fire_until(std::uint64_t windows, Emit&& emit, bool complete = true) {
    if (windows <= fired) return;
    fired = windows;
    while (!open.empty() && open.begin()->first / p.campaigns < fired) {
      const auto& [order, o] = *open.begin();
      emit(ysb::campaign_count{std::uint32_t(order % p.campaigns), order / p.campaigns, o.count,
                               complete, order, o.stamp_ns});
      open.erase(open.begin());
    }
  }
  template <class Emit>
  caf_apps::end_marker finish(const caf_apps::end_marker& m, Emit&& emit) {
    if (m.newest >= p.lateness_ms) fire_until((m.newest - p.lateness_ms) / p.window_ms, emit);
    fire_until(std::numeric_limits<std::uint64_t>::max(), emit, false);
    return m;
  }
};
#endif  // SPATE_BENCH_HAVE_CAF

json yahoo(const bench_params& p, bool caf) {
  const run_shape s = apps_run::shape_of(p);
  const ysb::parameters params;
  static const auto table = shared(ysb::campaign_table::generate(params, 1));
  static const auto records = parsed<ysb::event>(
      ysb::generate_lines(*table, std::size_t(p.integer("records")), 1), ysb::parser(*table));
  const exact_outputs<ysb::campaign_count> check(
      shared(ysb::sequential(records, s.total, *table, params)));
  if (!caf)
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return ysb::pipeline(std::move(source), std::move(sink), table, s.replicas, params);
        },
        check);
  // With more than one replica, round-robin farms in front of unbounded mailboxes reorder
  // events without bound (one replica's backlog can hold far more than the lateness), so the
  // windows could not be checked: refused rather than measured wrong.
  if (s.replicas > 1)
    throw usage_error(
        "apps: ysb in CAF runs with replicas=1 only (unbounded mailboxes behind round-robin "
        "farms reorder events beyond any fixed lateness)");
  SPATE_APPS_CAF(return caf_apps::run(
      p, records, s, 1,
      [&](caf_apps::topology& t, caf::actor sink, caf_apps::queue_length* queued) {
        auto campaign_of = [](const ysb::joined& j) { return j.campaign; };
        auto windows = caf_apps::farm<ysb::joined, ysb_windows>(t, 1, 1, campaign_of, sink, [&] {
          ysb_windows w;
          w.p = params;
          return w;
        });
        auto joins =
            caf_apps::farm<ysb::event, ysb_join>(t, 1, 1, caf_apps::round_robin{}, windows, [&] {
              return ysb_join{table, params};
            });
        return caf_apps::farm<ysb::event, ysb_filter>(
            t, 1, 1, caf_apps::round_robin{}, joins, [] { return ysb_filter{}; }, queued);
      },
      check));
}

}  // namespace spate_bench::apps_impl
