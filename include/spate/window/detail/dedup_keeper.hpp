#pragma once
// One worker's memory of ids, for window::deduplicate (deduplicate.hpp): per id, the times of
// the tuples that passed and are still remembered. A tuple at t is a duplicate when some
// remembered time k of its id has |t − k| <= within; otherwise it passes and t is remembered
// too (out of order, a tuple may pass more than `within` before one that passed: both spans
// then hold). Each time k is forgotten once the watermark has passed k + within: a tuple on
// time (t >= watermark) can then no longer be within `within` of k, so forgetting never lets
// a duplicate through.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spate/state/codec.hpp"
#include "spate/window/detail/time_math.hpp"
#include "spate/window/detail/window_checkpoints.hpp"

namespace spate::window::detail {

template <class Id>
class dedup_keeper {
 public:
  /// A checkpoint's copy: the span and lateness (a shape, checked at restore), and per id
  /// the remembered times of the tuples that passed.
  using kept = std::pair<window_shape, std::unordered_map<Id, std::vector<std::uint64_t>>>;
  static constexpr bool checkpointable = state::encodable<kept>;

  dedup_keeper(std::uint64_t within, std::uint64_t lateness)
      : within_(within), lateness_(lateness) {}

  // Whether a tuple with `id` at `time` passes (and is remembered).
  bool admit(const Id& id, std::uint64_t time) {
    std::vector<std::uint64_t>& times = passed_[id];
    for (const std::uint64_t k : times)
      if ((time >= k ? time - k : k - time) <= within_) return false;
    times.push_back(time);
    expiry_.push({saturating_add(time, within_), id});
    return true;
  }

  // Forgets the times whose span the watermark has passed (and an id with none left).
  void advance(std::uint64_t watermark) {
    while (!expiry_.empty() && expiry_.top().first < watermark) {
      const auto& [at, id] = expiry_.top();
      const auto it = passed_.find(id);
      if (it != passed_.end()) {
        std::vector<std::uint64_t>& times = it->second;
        const auto k = std::find_if(times.begin(), times.end(), [&](std::uint64_t t) {
          return saturating_add(t, within_) == at;
        });
        if (k != times.end()) times.erase(k);
        if (times.empty()) passed_.erase(it);
      }
      expiry_.pop();
    }
  }

  std::size_t remembered() const noexcept { return passed_.size(); }

  kept snapshot() const { return {shape(), passed_}; }
  // Before the first tuple; throws for another span or lateness, or an id whose tuples
  // `owns_key` says go elsewhere.
  template <class OwnsKey>
  void restore(kept k, const OwnsKey& owns_key) {
    check_window_shape(k.first, shape());
    passed_ = std::move(k.second);
    expiry_ = {};
    for (const auto& [id, times] : passed_) {
      if (!owns_key(id)) foreign_key();
      for (const std::uint64_t time : times) expiry_.push({saturating_add(time, within_), id});
    }
  }

 private:
  window_shape shape() const noexcept { return {within_, lateness_, 0}; }

  using expiry = std::pair<std::uint64_t, Id>;
  struct later_first {
    bool operator()(const expiry& a, const expiry& b) const noexcept { return a.first > b.first; }
  };

  std::uint64_t within_, lateness_;
  std::unordered_map<Id, std::vector<std::uint64_t>> passed_;             // usually one time each
  std::priority_queue<expiry, std::vector<expiry>, later_first> expiry_;  // earliest on top
};

}  // namespace spate::window::detail
