// checkpoint_backpressure: how long a checkpoint takes, and what it costs the job, when the
// graph runs under backpressure (issue 25: the unaligned mode "for graphs under
// backpressure"). A source as fast as it can go, a by_key farm of two counters with keyed
// state, then a slow stage (`work_ns` of busy work per item) that holds every queue ahead of
// it full, then a sink. alignment=aligned: each barrier waits behind the queued items;
// alignment=unaligned: barriers overtake them, and the checkpoint stores them. Reported:
// items/s, checkpoints completed, the median and highest checkpoint duration (trigger to
// commit), and the median number of items stored in flight.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/flow.hpp"
#include "spate/state/keyed.hpp"

namespace spate_bench {
namespace {

namespace flow = spate::flow;

struct counted_key : flow::node<std::uint64_t, std::uint64_t> {
  spate::state::value<std::uint64_t> seen{"seen"};
  auto state_fields() { return std::tie(seen); }
  void consume(std::uint64_t& key) {
    ++seen.get_or_init(0u);
    send_next(std::uint64_t(key));
  }
};

template <class T>
T median_of(std::vector<T> v) {
  if (v.empty()) return T{};
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

json checkpoint_backpressure(const bench_params& p) {
  const auto items = static_cast<std::size_t>(p.integer("items"));
  const auto work_ns = p.integer("work_ns");
  const auto queue = static_cast<std::size_t>(p.integer("queue"));
  const std::string alignment = p.text("alignment");
  if (alignment != "aligned" && alignment != "unaligned") {
    throw usage_error("checkpoint_backpressure: --alignment must be aligned or unaligned");
  }
  const auto dir = std::filesystem::absolute(p.text("checkpoint_dir")) /
                   ("backpressure-" + std::to_string(::getpid()) + "-" + std::to_string(now_ns()));
  spate::runtime rt(spate_runtime_config(p));

  std::mutex m;
  std::vector<double> durations_ms;
  std::vector<std::uint64_t> in_flight;
  flow::graph* running = nullptr;
  flow::graph g(
      flow::pipeline(
          flow::generate<std::uint64_t>(items, [](std::size_t i) { return i * 7919 % 1000; }),
          flow::farm(counted_key{}, 2, flow::by_key{[](const std::uint64_t& k) { return k; }}),
          flow::map([work_ns](std::uint64_t& k) {
            const std::int64_t until = static_cast<std::int64_t>(now_ns()) + work_ns;
            while (static_cast<std::int64_t>(now_ns()) < until) {
            }
            return k;
          }).named("slow"),
          flow::sink([](std::uint64_t&) {})),
      flow::graph_options{
          .links = {.capacity = queue},
          .checkpoints = flow::checkpoint_options{
              .directory = dir,
              .interval = std::chrono::milliseconds(p.integer("checkpoint_ms")),
              .on_complete =
                  [&](std::uint64_t) {
                    // Runs without the coordinator's lock: stats() may be asked here.
                    const flow::checkpoint_stats s = running->checkpoints();
                    const std::lock_guard lock(m);
                    durations_ms.push_back(
                        std::chrono::duration<double, std::milli>(s.last_duration).count());
                    in_flight.push_back(s.last_in_flight);
                  },
              .alignment = alignment == "unaligned" ? flow::checkpoint_alignment::unaligned
                                                    : flow::checkpoint_alignment::aligned}});
  running = &g;
  json r;
  timed_run(r, [&] { g.run(rt); });
  std::filesystem::remove_all(dir);
  const std::lock_guard lock(m);
  r["items_per_s"] = static_cast<double>(items) / r["wall_s"].get<double>();
  r["checkpoints"] = durations_ms.size();
  r["checkpoint_ms_median"] = median_of(durations_ms);
  r["checkpoint_ms_max"] =
      durations_ms.empty() ? 0.0 : *std::max_element(durations_ms.begin(), durations_ms.end());
  r["in_flight_median"] = median_of(in_flight);
  return r;
}

}  // namespace

void register_backpressure_checkpoint_impls(bench_registry& r) {
  r.define("checkpoint_backpressure",
           "checkpoints of a keyed job held under backpressure by a slow stage (work_ns of "
           "busy work per item, queues of `queue` items): items/s, checkpoints completed, "
           "median and highest checkpoint duration (ms), median items stored in flight; "
           "alignment=aligned or unaligned",
           {{"items", "2000000"},
            {"work_ns", "1000"},
            {"queue", "4096"},
            {"checkpoint_ms", "100"},
            {"checkpoint_dir", "bench-checkpoints"},
            {"alignment", "aligned"}});
  r.implement("checkpoint_backpressure", "spate", checkpoint_backpressure);
}

}  // namespace spate_bench
