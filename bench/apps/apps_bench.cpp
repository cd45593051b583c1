// `apps`: the streaming applications of examples/apps (the CAF-PP paper's Sect. 5), in spate
// and in CAF 0.17 (caf_apps.hpp), on the same generated records. --app=wc|sd|fd|lr|ysb,
// --rate (records/s; 0 = as fast as the graph takes them), --replicas (of every operator),
// --n (records at rate 0; at a rate, rate × seconds), --queue_limit (a bound on what the
// source may have queued at the first operator: Fig. 16's send_next_if source). Reports
// records/s, end-to-end latency (source stamp to sink) and checks the outputs against the
// sequential run of the same operators.
#ifdef SPATE_BENCH_HAVE_CAF
#include "caf_apps.hpp"
#endif

#include <atomic>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "../../examples/apps/common/text_input.hpp"
#include "../../examples/apps/fraud_detection/fraud_detection.hpp"
#include "../../examples/apps/linear_road/linear_road.hpp"
#include "../../examples/apps/spike_detection/spike_detection.hpp"
#include "../../examples/apps/word_count/word_count.hpp"
#include "../../examples/apps/yahoo/yahoo.hpp"
#include "apps_run.hpp"

namespace wc = apps::word_count;
namespace sd = apps::spike_detection;
namespace fd = apps::fraud_detection;
namespace lr = apps::linear_road;
namespace ysb = apps::yahoo;

#ifdef SPATE_BENCH_HAVE_CAF
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(wc::line)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(wc::word)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(wc::word_count)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(sd::reading)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(sd::averaged)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(sd::spike)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fd::transaction)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fd::alert)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(lr::record)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(lr::event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(lr::notification)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ysb::event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ysb::joined)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ysb::campaign_count)
#endif

namespace spate_bench {
namespace {

using apps_run::exact_outputs;
using apps_run::run_shape;

// ---- the workloads ------------------------------------------------------------------------

template <class Record, class Parse>
std::vector<Record> parsed(const std::vector<std::string>& lines, Parse&& parse) {
  return apps::parse_lines<Record>(lines, parse).records;
}

const std::vector<wc::line>& book_lines(const std::string& path) {
  static const auto lines = [&] {
    try {
      return apps::parse_file<wc::line>(path, wc::parse).records;
    } catch (const std::runtime_error& e) {
      throw usage_error(std::string("apps: ") + e.what() + " (run from the repository root)");
    }
  }();
  return lines;
}

std::shared_ptr<const fd::markov_model> fraud_model(const std::string& path) {
  static auto model = std::make_shared<const fd::markov_model>(fd::markov_model::load(path));
  return model;
}

// Word Count's check: every word's running counts 1, 2, 3, … ending at the sequential count.
class word_count_outputs {
 public:
  using output_type = wc::word_count;
  word_count_outputs() = default;
  explicit word_count_outputs(std::shared_ptr<const wc::word_counts> expected)
      : expected_(std::move(expected)) {}
  void add(const wc::word_count& c) { check_.add(c); }
  std::size_t verify() const {
    if (!check_.matches(*expected_))
      throw std::runtime_error("apps: word counts differ from the sequential count (" +
                               std::to_string(check_.out_of_sequence()) + " out of sequence)");
    return check_.outputs();
  }

 private:
  std::shared_ptr<const wc::word_counts> expected_;
  wc::running_counts_check check_;
};

template <class T>
std::shared_ptr<const T> shared(T value) {
  return std::make_shared<const T>(std::move(value));
}

// An app's CAF run; built without CAF, an error that says so. (The CAF code names CAF types,
// so it cannot be compiled without CAF.)
#ifdef SPATE_BENCH_HAVE_CAF
#define SPATE_APPS_CAF(...) __VA_ARGS__
#else
#define SPATE_APPS_CAF(...) throw usage_error("apps: built without CAF")
#endif

// ---- the applications ---------------------------------------------------------------------

json word_count(const bench_params& p, bool caf) {
  const run_shape s = apps_run::shape_of(p);
  const auto& records = book_lines(p.text("book"));
  const word_count_outputs check(shared(wc::sequential(records, s.total)));
  if (caf && p.flag("keyed_state")) throw usage_error("apps: keyed_state is spate's, not CAF's");
  const std::string graph = p.text("wc_graph");
  if (graph != "farms" && graph != "chained" && graph != "unchained")
    throw usage_error("apps: --wc_graph must be farms, chained or unchained");
  if (graph != "farms" && (caf || s.replicas != 1 || p.flag("keyed_state")))
    throw usage_error("apps: --wc_graph=" + graph +
                      " is spate's, with --replicas=1 and no keyed_state");
  if (!caf && p.flag("keyed_state"))
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return wc::pipeline<wc::keyed_counter>(std::move(source), std::move(sink), s.replicas,
                                                 s.replicas);
        },
        check);
  if (graph == "chained")
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return wc::single_pipeline(std::move(source), std::move(sink));
        },
        check);
  if (graph == "unchained")
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return wc::single_pipeline<true>(std::move(source), std::move(sink));
        },
        check);
  if (!caf)
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return wc::pipeline(std::move(source), std::move(sink), s.replicas, s.replicas);
        },
        check);
  SPATE_APPS_CAF(return caf_apps::run(
      p, records, s, s.replicas,
      [&](caf_apps::topology& t, caf::actor sink, caf_apps::queue_length* queued) {
        auto counters = caf_apps::farm<wc::word, wc::counter>(
            t, s.replicas, s.replicas, wc::counter::key_of, sink, [] { return wc::counter(); });
        return caf_apps::farm<wc::line, wc::splitter>(
            t, s.replicas, 1, caf_apps::round_robin{}, counters, [] { return wc::splitter(); },
            queued);
      },
      check));
}

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

#undef SPATE_APPS_CAF

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
