#pragma once
// CAF 1.1 for the caf1 impls (spate-bench-caf1 only: CAF 0.17 and 1.1 both live in namespace
// caf, so they cannot share a translation unit or a binary). The message types every caf1
// impl sends (two type-ID blocks for the binary: spate_caf1, and spate_caf1_savina after it
// for caf1_savina_benchmarks.cpp, caf1_savina_coordination.cpp and caf1_savina_parallel.cpp), and
// --threads / --polling mapped onto CAF 1.1's keys exactly as caf_config.hpp maps them onto 0.17's:
// default = CAF's defaults; aggressive = no sleeps in the moderate and relaxed phases; spin = also
// a practically endless aggressive phase.
#include <caf/all.hpp>

#include <mutex>

#include "../micro/shapes.hpp"
#include "../savina/savina_workloads.hpp"
#include "bench_registry.hpp"

namespace spate_bench {

// CAF 1.x sends only types with a type ID; these two are trivially copyable PODs, inspected
// field by field (the inspector is never used by local sends, only declared).
template <class Inspector>
bool inspect(Inspector& f, tuple24& x) {
  return f.object(x).fields(f.field("key", x.key), f.field("value", x.value),
                            f.field("timestamp", x.timestamp));
}
template <class Inspector>
bool inspect(Inspector& f, stamp& x) {
  return f.object(x).fields(f.field("sent_ns", x.sent_ns));
}

}  // namespace spate_bench

// caf::ping_atom, pong_atom, get_atom and tick_atom come with CAF's core module.
CAF_BEGIN_TYPE_ID_BLOCK(spate_caf1, caf::first_custom_type_id)
CAF_ADD_TYPE_ID(spate_caf1, (spate_bench::tuple24))
CAF_ADD_TYPE_ID(spate_caf1, (spate_bench::stamp))
CAF_ADD_ATOM(spate_caf1, spate_bench::caf1, start_atom)
CAF_ADD_ATOM(spate_caf1, spate_bench::caf1, stop_atom)
CAF_ADD_ATOM(spate_caf1, spate_bench::caf1, token_atom)
CAF_ADD_ATOM(spate_caf1, spate_bench::caf1, inc_atom)
CAF_ADD_ATOM(spate_caf1, spate_bench::caf1, go_atom)
CAF_ADD_ATOM(spate_caf1, spate_bench::caf1, work_atom)
CAF_ADD_ATOM(spate_caf1, spate_bench::caf1, meet_atom)
CAF_END_TYPE_ID_BLOCK(spate_caf1)

namespace spate_bench::savina {

// nqueenk's board, inspected like the two PODs above (found by ADL in its own namespace).
template <class Inspector>
bool inspect(Inspector& f, queens_board& x) {
  return f.object(x).fields(f.field("columns", x.columns), f.field("depth", x.depth));
}

}  // namespace spate_bench::savina

// What caf1_savina_benchmarks.cpp sends besides caf::actor, its vectors and numbers: its own
// block, numbered from where spate_caf1 ends so that the two never overlap.
CAF_BEGIN_TYPE_ID_BLOCK(spate_caf1_savina, caf::id_block::spate_caf1::end)
CAF_ADD_TYPE_ID(spate_caf1_savina, (spate_bench::savina::queens_board))
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, done_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, write_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, read_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, size_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, contains_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, produce_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, data_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, item_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, available_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, exit_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, hungry_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, eat_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, denied_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, next_term_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, get_term_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, compute_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, term_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, credit_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, debit_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, reply_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, area_atom)
CAF_ADD_ATOM(spate_caf1_savina, spate_bench::caf1, solution_atom)
CAF_END_TYPE_ID_BLOCK(spate_caf1_savina)

namespace spate_bench {

inline void configure_caf1(caf::actor_system_config& cfg, const bench_params& p) {
  cfg.set("caf.scheduler.max-threads", static_cast<std::size_t>(p.integer("threads")));
  const auto polling = p.text("polling");
  if (polling == "aggressive" || polling == "spin") {
    cfg.set("caf.work-stealing.moderate-sleep-duration", caf::timespan{0});
    cfg.set("caf.work-stealing.relaxed-sleep-duration", caf::timespan{0});
  }
  if (polling == "spin") {
    cfg.set("caf.work-stealing.aggressive-poll-attempts", std::size_t{1} << 40);
  }
}

// A CAF 1.1 actor system configured from the parameters (the config must outlive the
// system). The global meta objects (what CAF_MAIN would initialize) are set up once.
class caf1_system {
 public:
  explicit caf1_system(const bench_params& p) : system_(configured(config_, p)) {}
  caf::actor_system& operator*() noexcept { return system_; }
  caf::actor_system* operator->() noexcept { return &system_; }

 private:
  static caf::actor_system_config& configured(caf::actor_system_config& cfg,
                                              const bench_params& p) {
    configure_caf1(cfg, p);
    return cfg;
  }
  static bool init_types() {
    static std::once_flag once;
    std::call_once(once, [] {
      caf::init_global_meta_objects<caf::id_block::spate_caf1>();
      caf::init_global_meta_objects<caf::id_block::spate_caf1_savina>();
      caf::core::init_global_meta_objects();
    });
    return true;
  }
  bool types_ready_ = init_types();  // before the config and the system
  caf::actor_system_config config_;
  caf::actor_system system_;
};

}  // namespace spate_bench
