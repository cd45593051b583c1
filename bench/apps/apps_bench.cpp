// `apps`: the streaming applications of examples/apps (the CAF-PP paper's Sect. 5), in spate
// and in CAF 0.17 (caf_apps.hpp), on the same generated records. --app=wc|sd|fd|lr|ysb,
// --rate (records/s; 0 = as fast as the graph takes them), --replicas (of every operator),
// --n (records at rate 0; at a rate, rate × seconds), --queue_limit (a bound on what the
// source may have queued at the first operator: Fig. 16's send_next_if source). Reports
// records/s, end-to-end latency (source stamp to sink) and checks the outputs against the
// sequential run of the same operators.
#include "apps_common.hpp"

namespace spate_bench {
namespace {

using namespace apps_impl;

json apps_bench(const bench_params& p, bool caf) {
  const std::string app = p.text("app");
  const bool keyed_app = app == "wc" || app == "fd";
  if (!keyed_app && p.flag("keyed_state")) {
    throw usage_error("apps: keyed_state=true is for --app=wc or fd");
  }
  // Only wc's and fd's keyed operators keep all their state where a checkpoint finds it; the
  // other apps' operators keep theirs in members a checkpoint would not hold (and would cost
  // nothing).
  const bool keyed_run = !caf && keyed_app && p.flag("keyed_state");
  if (p.integer("checkpoint_ms") != 0 && !keyed_run) {
    throw usage_error("apps: checkpoint_ms is for spate's --app=wc or fd with --keyed_state=true");
  }
  if (p.text("state_backend") != "memory" && !keyed_run) {
    throw usage_error("apps: state_backend is for spate's --app=wc or fd with --keyed_state=true");
  }
  if (app == "wc") return word_count(p, caf);
  if (app == "sd") return spike_detection(p, caf);
  if (app == "fd") return fraud_detection(p, caf);
  if (app == "lr") return linear_road(p, caf);
  if (app == "ysb") return yahoo(p, caf);
  throw usage_error("apps: --app must be wc, sd, fd, lr or ysb");
}

}  // namespace

void register_apps_impls(bench_registry& r) {
  r.implement("apps", "spate", [](const bench_params& p) { return apps_bench(p, false); });
#ifdef SPATE_BENCH_HAVE_CAF
  r.implement("apps", "caf", [](const bench_params& p) { return apps_bench(p, true); });
#endif
}

}  // namespace spate_bench
