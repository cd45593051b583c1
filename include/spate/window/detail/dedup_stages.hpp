#pragma once
// The stages of window::deduplicate (deduplicate.hpp): the keyed time emitter
// (detail/keyed_time_emitter.hpp, keyed by id, a tuple late once behind the watermark) and
// a farm of dedup workers, each with the dedup_keeper of the ids routed to it.
#include <cstdint>
#include <memory>
#include <utility>

#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
#include "spate/window/detail/dedup_keeper.hpp"
#include "spate/window/detail/keyed_time_emitter.hpp"
#include "spate/window/detail/routed_tuple.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/pattern_options.hpp"

namespace spate::window::detail {

template <class T, class IdFn>
class dedup_worker : public flow::node<keyed_message<T>, T>,
                     public keeper_slot<dedup_keeper<key_of<T, IdFn>>> {
 public:
  dedup_worker(std::uint64_t within, std::uint64_t lateness, IdFn id,
               std::shared_ptr<window_report> report)
      : within_(within), lateness_(lateness), id_(std::move(id)), report_(std::move(report)) {}

  void on_start() {
    this->make_keeper(
        [this](const auto& id) { return routes_key_to(pattern::key_partitioning, id, *this); },
        within_, lateness_);
  }
  void consume(keyed_message<T>& in) {
    this->keeper_->advance(in.watermark);
    if (!in.tuple) return;
    if (this->keeper_->admit(id_(*in.tuple), in.time)) {
      this->send_next(std::move(*in.tuple));
    } else if (report_) {
      report_->duplicate_tuples.fetch_add(1, std::memory_order_relaxed);
    }
  }

 private:
  std::uint64_t within_, lateness_;
  IdFn id_;
  std::shared_ptr<window_report> report_;  // null unless asked for
};

template <class T, class IdFn, class TimeFn>
auto dedup_pattern(std::uint64_t within, std::uint64_t lateness, IdFn id, TimeFn time,
                   std::size_t workers, pattern_options options) {
  return keyed_time_pattern<T>(
      keyed_horizon{0, lateness, within / 4, "deduplicate"}, id, std::move(time), workers, options,
      "dedup_emitter",
      flow::make_stage<dedup_worker<T, IdFn>>(within, lateness, id, options.report)
          .named("dedup_worker"));
}

}  // namespace spate::window::detail
