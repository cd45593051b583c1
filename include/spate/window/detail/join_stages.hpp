#pragma once
// The stages of the joins (joins.hpp). Both take one stream of std::variant<L, R> (index 0
// the left side) and read each side's key and time through `either`, which picks the
// side's function.
//
// - window join: a time-window pattern (Key Partitioning) over the variant stream whose
//   window function pairs each window's left tuples with its right ones, then a flat map
//   that sends every pair's join result on;
// - interval join: the keyed time emitter (detail/keyed_time_emitter.hpp; a tuple behind the
//   watermark is late) and a farm of interval-join workers.
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
#include "spate/window/detail/interval_join_keeper.hpp"
#include "spate/window/detail/keyed_time_emitter.hpp"
#include "spate/window/detail/routed_tuple.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/pattern_options.hpp"
#include "spate/window/patterns.hpp"
#include "spate/window/time_window.hpp"

namespace spate::window::detail {

// Calls the left function on a left tuple, the right one on a right tuple.
template <class LeftFn, class RightFn>
struct either {
  LeftFn left;
  RightFn right;
  template <class L, class R>
  auto operator()(const std::variant<L, R>& v) const {
    using result = std::decay_t<std::invoke_result_t<const LeftFn&, const L&>>;
    static_assert(
        std::is_same_v<result, std::decay_t<std::invoke_result_t<const RightFn&, const R&>>>,
        "window joins: the left and right functions (keys, times) must return the same "
        "type");
    if (v.index() == 0) return result(left(*std::get_if<0>(&v)));
    return result(right(*std::get_if<1>(&v)));
  }
};

template <class L, class R, class J>
using join_result = std::decay_t<std::invoke_result_t<const J&, const L&, const R&>>;

template <class L, class R, class LeftKey, class RightKey, class LeftTime, class RightTime, class J>
auto window_join_pattern(time_window spec, LeftKey left_key, RightKey right_key, LeftTime left_time,
                         RightTime right_time, J join, std::size_t workers,
                         pattern_options options) {
  using input = std::variant<L, R>;
  using out = join_result<L, R, J>;
  auto pairs = [join = std::move(join)](const auto& /*key*/, std::span<const input> window) {
    std::vector<out> joined;
    for (const input& l : window) {
      if (l.index() != 0) continue;
      for (const input& r : window)
        if (r.index() == 1) joined.push_back(join(*std::get_if<0>(&l), *std::get_if<1>(&r)));
    }
    return joined;
  };
  using key_type = key_of<input, either<LeftKey, RightKey>>;
  return flow::pipeline(
      key_partitioning<input>(
          spec, either<LeftKey, RightKey>{std::move(left_key), std::move(right_key)},
          either<LeftTime, RightTime>{std::move(left_time), std::move(right_time)},
          std::move(pairs), workers, std::move(options)),
      flow::flat_map<out>([](window_result<key_type, std::vector<out>>& r, auto emit) {
        for (out& o : r.value) emit(std::move(o));
      }).named("window_join"));
}

template <class L, class R, class KeyFn, class J>
class interval_join_worker
    : public flow::node<keyed_message<std::variant<L, R>>, join_result<L, R, J>>,
      public keeper_slot<interval_join_keeper<key_of<std::variant<L, R>, KeyFn>, L, R>> {
  using input = std::variant<L, R>;

 public:
  interval_join_worker(std::int64_t lower, std::int64_t upper, std::uint64_t lateness, KeyFn key,
                       J join)
      : lower_(lower),
        upper_(upper),
        lateness_(lateness),
        key_(std::move(key)),
        join_(std::move(join)) {}

  void on_start() {
    this->make_keeper(
        [this](const auto& key) { return routes_key_to(pattern::key_partitioning, key, *this); },
        lower_, upper_, lateness_);
  }
  void consume(keyed_message<input>& in) {
    this->keeper_->advance(in.watermark);
    if (!in.tuple) return;
    const auto emit = [this](const L& l, const R& r) { this->send_next(join_(l, r)); };
    const auto key = key_(*in.tuple);
    if (L* l = std::get_if<0>(&*in.tuple))
      this->keeper_->add_left(key, std::move(*l), in.time, emit);
    else
      this->keeper_->add_right(key, std::move(*std::get_if<1>(&*in.tuple)), in.time, emit);
  }

 private:
  std::int64_t lower_, upper_;
  std::uint64_t lateness_;
  KeyFn key_;
  J join_;
};

template <class L, class R, class LeftKey, class RightKey, class LeftTime, class RightTime, class J>
auto interval_join_pattern(std::int64_t lower, std::int64_t upper, std::uint64_t lateness,
                           LeftKey left_key, RightKey right_key, LeftTime left_time,
                           RightTime right_time, J join, std::size_t workers,
                           pattern_options options) {
  using input = std::variant<L, R>;
  using key_fn = either<LeftKey, RightKey>;
  using time_fn = either<LeftTime, RightTime>;
  key_fn key{std::move(left_key), std::move(right_key)};
  return keyed_time_pattern<input>(
      keyed_horizon{0, lateness,
                    interval_join_keeper<key_of<input, key_fn>, L, R>::span(lower, upper) / 4,
                    "interval_join"},
      key, time_fn{std::move(left_time), std::move(right_time)}, workers, options, "join_emitter",
      flow::make_stage<interval_join_worker<L, R, key_fn, J>>(lower, upper, lateness, key,
                                                              std::move(join))
          .named("join_worker"));
}

}  // namespace spate::window::detail
