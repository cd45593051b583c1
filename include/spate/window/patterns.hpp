#pragma once
// The parallel window patterns of the dynamic-memory paper (Sect. 3), as flow stages:
//
//   flow::pipeline(quotes, window::key_partitioning<quote>(spec, key, f, 4), sink)
//   window::window_farming<quote>(spec, key, f, 4, {.report = report})  // pattern_options.hpp
//
// Both are an emitter, a farm of window workers and an ordering collector:
// - Key Partitioning (KP): every window of a key lives in one worker, chosen by the key's
//   hash; each tuple goes to that worker.
// - Window Farming (WF): consecutive windows of a key go to the workers round-robin (window
//   w to worker w mod n); the emitter multicasts each tuple to the workers that own a window
//   holding it, worked out from the window's length and slide; the collector restores each
//   key's window order.
// Each tuple is copied once, into a multicast envelope (memory/multicast_envelope.hpp) from
// the emitter's slab pool, and shared by its receivers, who release it through their own
// return channel (Sect. 4). Results are window_result{key, window, value, complete, tuples},
// per key in window order; at the end of the stream the windows still open fire with
// complete == false. A window_report given in pattern_options follows the emitter's slab pool
// (pool_slabs, pool_bytes) and, for time windows, counts late tuples.
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
#include "spate/memory/multicast_envelope.hpp"
#include "spate/memory/slab_pool.hpp"
#include "spate/state/codec.hpp"
#include "spate/window/count_window.hpp"
#include "spate/window/detail/routed_tuple.hpp"
#include "spate/window/detail/time_window_stages.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/detail/window_keeper.hpp"
#include "spate/window/pattern_options.hpp"
#include "spate/window/window_function.hpp"

namespace spate::window {

namespace detail {

/// A count emitter's checkpoint copy: each key's next position.
template <class T, class KeyFn>
using emitter_positions = std::unordered_map<key_of<T, KeyFn>, std::uint64_t>;

template <class T, class KeyFn>
class window_emitter : public flow::node<T, routed_tuple<T>>,
                       public codec_stance<state::encodable<emitter_positions<T, KeyFn>>> {
  using positions = emitter_positions<T, KeyFn>;

 public:
  window_emitter(pattern p, count_window spec, KeyFn key, std::uint32_t workers,
                 const pattern_options& options)
      : pattern_(p),
        spec_(spec),
        key_(std::move(key)),
        workers_(workers),
        pool_(make_tuple_pool<T>(options.memory, workers)),
        report_(options.report),
        pool_gauge_(pool_.get(), report_.get()) {}

  void consume(T& tuple) {
    const auto& key = key_(tuple);
    const std::uint64_t position = positions_[key]++;
    const std::uint64_t first = spec_.first_holding(position), last = spec_.last_holding(position);
    if (pattern_ == pattern::window_farming && first > last) return;  ///< a hopping window's gap
    multicast_tuple(pattern_, key, first, last, workers_, pool_.get(), std::move(tuple), position,
                    [this](routed_tuple<T>&& m) { this->send_next(std::move(m)); });
    pool_gauge_.update();
  }
  /// Checkpoints (detail/window_checkpoints.hpp): each key's next position.
  positions snapshot_state() const
    requires state::encodable<positions>
  {
    return positions_;
  }
  void restore_state(positions p)
    requires state::encodable<positions>
  {
    positions_ = std::move(p);
  }

 private:
  pattern pattern_;
  count_window spec_;
  KeyFn key_;
  std::uint32_t workers_;
  std::unique_ptr<memory::slab_pool> pool_;  ///< outlives the workers' releases: see below
  std::shared_ptr<window_report> report_;    ///< null unless asked for; outlives pool_gauge_
  pool_gauge pool_gauge_;
  positions positions_;
};

template <class T, class KeyFn, class F>
class window_worker
    : public flow::node<routed_tuple<T>,
                        typename window_keeper<key_of<T, KeyFn>, T, F>::result_type>,
      public keeper_slot<window_keeper<key_of<T, KeyFn>, T, F>> {
 public:
  window_worker(pattern p, count_window spec, KeyFn key, F f)
      : pattern_(p), spec_(spec), key_(std::move(key)), f_(std::move(f)) {}

  void on_start() {
    const auto [owner, owners] = window_share(pattern_, *this);
    this->make_keeper([this](const auto& key) { return routes_key_to(pattern_, key, *this); },
                      spec_, f_, owner, owners);
  }
  void consume(routed_tuple<T>& in) {
    const T& tuple = in.tuple->value();
    this->keeper_->add(key_(tuple), tuple, in.position,
                       [this](auto&& result) { this->send_next(std::move(result)); });
    in.release();
  }
  void on_stop() {
    this->keeper_->flush([this](auto&& result) { this->send_next(std::move(result)); });
  }

 private:
  pattern pattern_;
  count_window spec_;
  KeyFn key_;
  F f_;
};

/// A count collector's checkpoint copy (detail/window_checkpoints.hpp): per key, the next
/// window to release and the ones that came before it.
template <class Result>
using collector_kept =
    std::unordered_map<std::decay_t<decltype(std::declval<Result>().key)>,
                       std::pair<std::uint64_t, std::unordered_map<std::uint64_t, Result>>>;

/// Restores each key's window order (Window Farming's workers finish windows out of order).
template <class Result>
class window_collector : public flow::node<Result, Result>,
                         public codec_stance<state::encodable<collector_kept<Result>>> {
  using key_type = std::decay_t<decltype(std::declval<Result>().key)>;
  using kept = collector_kept<Result>;

 public:
  void consume(Result& r) {
    auto& k = keys_[r.key];
    if (r.window != k.next) {
      k.waiting.emplace(r.window, std::move(r));
      return;
    }
    this->send_next(std::move(r));
    ++k.next;
    for (auto it = k.waiting.find(k.next); it != k.waiting.end(); it = k.waiting.find(k.next)) {
      this->send_next(std::move(it->second));
      k.waiting.erase(it);
      ++k.next;
    }
  }
  void on_stop() {
    for (auto& [key, k] : keys_)
      if (!k.waiting.empty())
        throw std::logic_error("window collector: a key's window " + std::to_string(k.next) +
                               " never arrived");
  }
  kept snapshot_state() const
    requires state::encodable<kept>
  {
    kept k;
    for (const auto& [key, pk] : keys_) k.emplace(key, std::pair(pk.next, pk.waiting));
    return k;
  }
  void restore_state(kept k)
    requires state::encodable<kept>
  {
    keys_.clear();
    for (auto& [key, in] : k) keys_[key] = per_key{in.first, std::move(in.second)};
  }

 private:
  struct per_key {
    std::uint64_t next = 0;
    std::unordered_map<std::uint64_t, Result> waiting;
  };
  std::unordered_map<key_type, per_key> keys_;
};

template <class T, class KeyFn, class F>
auto window_pattern(pattern p, count_window spec, KeyFn key, F f, std::size_t workers,
                    pattern_options options) {
  spec.check();
  check_workers(workers);
  using worker_type = window_worker<T, KeyFn, F>;
  using result_type = typename worker_type::output_type;
  return assemble_window_pattern<T>(p, workers,
                                    flow::make_stage<window_emitter<T, KeyFn>>(
                                        p, spec, key, std::uint32_t(workers), std::move(options)),
                                    flow::make_stage<worker_type>(p, spec, key, std::move(f)),
                                    flow::make_stage<window_collector<result_type>>());
}

}  // namespace detail

/// Key Partitioning: each key's windows in one of `workers` workers.
template <class T, class KeyFn, class F>
auto key_partitioning(count_window spec, KeyFn key, F f, std::size_t workers,
                      pattern_options options = {}) {
  return detail::window_pattern<T>(detail::pattern::key_partitioning, spec, std::move(key),
                                   std::move(f), workers, std::move(options));
}

/// Window Farming: each key's consecutive windows dealt round-robin to `workers` workers.
template <class T, class KeyFn, class F>
auto window_farming(count_window spec, KeyFn key, F f, std::size_t workers,
                    pattern_options options = {}) {
  return detail::window_pattern<T>(detail::pattern::window_farming, spec, std::move(key),
                                   std::move(f), workers, std::move(options));
}

/// The same patterns over time windows: `time(tuple)` gives the tuple's event time (any
/// integer unit, the one the window's length, slide and lateness use). Late tuples are counted
/// in `options.report` when one is given, and reported on stderr at the end otherwise.
template <class T, class KeyFn, class TimeFn, class F>
auto key_partitioning(time_window spec, KeyFn key, TimeFn time, F f, std::size_t workers,
                      pattern_options options = {}) {
  return detail::time_window_pattern<T>(detail::pattern::key_partitioning, spec, std::move(key),
                                        std::move(time), std::move(f), workers, std::move(options));
}
/// Window Farming over time windows (see key_partitioning above).
template <class T, class KeyFn, class TimeFn, class F>
auto window_farming(time_window spec, KeyFn key, TimeFn time, F f, std::size_t workers,
                    pattern_options options = {}) {
  return detail::time_window_pattern<T>(detail::pattern::window_farming, spec, std::move(key),
                                        std::move(time), std::move(f), workers, std::move(options));
}

namespace detail {
template <class T, class KeyFn, class F>
auto processing_time_pattern(pattern p, processing_time_window spec, KeyFn key, F f,
                             std::size_t workers, pattern_options options) {
  spec.check();
  return time_window_pattern<T>(p, spec.in_nanoseconds(), std::move(key), arrival_time{spec.tick()},
                                std::move(f), workers, std::move(options));
}
}  // namespace detail

/// The same patterns over processing-time windows (time_window.hpp): a tuple's time is its
/// arrival at the emitter, and windows fire on the runtime's clock. Tuples are never late; a
/// report still follows the emitter's slab pool.
template <class T, class KeyFn, class F>
auto key_partitioning(processing_time_window spec, KeyFn key, F f, std::size_t workers,
                      pattern_options options = {}) {
  return detail::processing_time_pattern<T>(detail::pattern::key_partitioning, spec, std::move(key),
                                            std::move(f), workers, std::move(options));
}
/// Window Farming over processing-time windows (see key_partitioning above).
template <class T, class KeyFn, class F>
auto window_farming(processing_time_window spec, KeyFn key, F f, std::size_t workers,
                    pattern_options options = {}) {
  return detail::processing_time_pattern<T>(detail::pattern::window_farming, spec, std::move(key),
                                            std::move(f), workers, std::move(options));
}

}  // namespace spate::window
