#pragma once
// The stages of window::sessions (sessions.hpp): the keyed time emitter
// (detail/keyed_time_emitter.hpp, its horizon the gap) and a farm of session workers. A
// worker fires the sessions that ended before a tuple's watermark stamp before it adds the
// tuple, so which sessions a tuple joins depends only on the input's order: results are
// those of the sequential reference in the tests, per key in order, for any worker count.
#include <cstdint>
#include <utility>

#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
#include "spate/window/detail/keyed_time_emitter.hpp"
#include "spate/window/detail/routed_tuple.hpp"
#include "spate/window/detail/session_keeper.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/pattern_options.hpp"
#include "spate/window/session_window.hpp"

namespace spate::window::detail {

template <class T, class KeyFn, class F>
class session_worker
    : public flow::node<keyed_message<T>,
                        typename session_keeper<key_of<T, KeyFn>, T, F>::result_type>,
      public keeper_slot<session_keeper<key_of<T, KeyFn>, T, F>> {
  using result_type = typename session_keeper<key_of<T, KeyFn>, T, F>::result_type;

 public:
  session_worker(session_window spec, KeyFn key, F f)
      : spec_(spec), key_(std::move(key)), f_(std::move(f)) {}

  void on_start() {
    this->make_keeper(
        [this](const auto& key) { return routes_key_to(pattern::key_partitioning, key, *this); },
        spec_, f_);
  }
  void consume(keyed_message<T>& in) {
    this->keeper_->advance(in.watermark,
                           [this](result_type&& r) { this->send_next(std::move(r)); });
    if (in.tuple) this->keeper_->add(key_(*in.tuple), *in.tuple, in.time);
  }
  void on_stop() {
    this->keeper_->flush([this](result_type&& r) { this->send_next(std::move(r)); });
  }

 private:
  session_window spec_;
  KeyFn key_;
  F f_;
};

template <class T, class KeyFn, class TimeFn, class F>
auto session_pattern(session_window spec, KeyFn key, TimeFn time, F f, std::size_t workers,
                     const pattern_options& options) {
  spec.check();
  return keyed_time_pattern<T>(
      keyed_horizon{spec.gap, spec.lateness, spec.gap / 4, "sessions"}, key, std::move(time),
      workers, options, "session_emitter",
      flow::make_stage<session_worker<T, KeyFn, F>>(spec, key, std::move(f))
          .named("session_worker"));
}

}  // namespace spate::window::detail
