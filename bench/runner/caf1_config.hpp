#pragma once
// CAF 1.1 for the caf1 impls (spate-bench-caf1 only: CAF 0.17 and 1.1 both live in namespace
// caf, so they cannot share a translation unit or a binary). The message types every caf1
// impl sends (one type-ID block for the binary), and --threads / --polling mapped onto CAF
// 1.1's keys exactly as caf_config.hpp maps them onto 0.17's: default = CAF's defaults;
// aggressive = no sleeps in the moderate and relaxed phases; spin = also a practically
// endless aggressive phase.
#include <caf/all.hpp>

#include <mutex>

#include "../micro/shapes.hpp"
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
      caf::core::init_global_meta_objects();
    });
    return true;
  }
  bool types_ready_ = init_types();  // before the config and the system
  caf::actor_system_config config_;
  caf::actor_system system_;
};

}  // namespace spate_bench
