#pragma once
// One worker's memory of ids, for window::deduplicate (deduplicate.hpp): per id, the time
// of the last tuple that passed. A tuple at t whose id is remembered at k is a duplicate
// when |t − k| <= within; otherwise it passes and is remembered instead. An id is forgotten
// once the watermark has passed k + within: a tuple on time (t >= watermark) can then no
// longer be within `within` of k, so forgetting never lets a duplicate through.
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
  /// the time of the tuple that passed.
  using kept = std::pair<window_shape, std::unordered_map<Id, std::uint64_t>>;
  static constexpr bool checkpointable = state::encodable<kept>;

  dedup_keeper(std::uint64_t within, std::uint64_t lateness)
      : within_(within), lateness_(lateness) {}

  // Whether a tuple with `id` at `time` passes (and is remembered).
  bool admit(const Id& id, std::uint64_t time) {
    const auto [it, fresh] = passed_.try_emplace(id, time);
    if (!fresh) {
      const std::uint64_t k = it->second;
      if ((time >= k ? time - k : k - time) <= within_) return false;
      it->second = time;
    }
    expiry_.push({saturating_add(time, within_), id});
    return true;
  }

  // Forgets the ids whose span the watermark has passed.
  void advance(std::uint64_t watermark) {
    while (!expiry_.empty() && expiry_.top().first < watermark) {
      const auto& [at, id] = expiry_.top();
      const auto it = passed_.find(id);
      // A later pass of the id pushed a later expiry; this one is stale then.
      if (it != passed_.end() && saturating_add(it->second, within_) == at) passed_.erase(it);
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
    for (const auto& [id, time] : passed_) {
      if (!owns_key(id)) foreign_key();
      expiry_.push({saturating_add(time, within_), id});
    }
  }

 private:
  window_shape shape() const noexcept { return {within_, lateness_, 0}; }

  using expiry = std::pair<std::uint64_t, Id>;
  struct later_first {
    bool operator()(const expiry& a, const expiry& b) const noexcept { return a.first > b.first; }
  };

  std::uint64_t within_, lateness_;
  std::unordered_map<Id, std::uint64_t> passed_;
  std::priority_queue<expiry, std::vector<expiry>, later_first> expiry_;  // earliest on top
};

}  // namespace spate::window::detail
