#pragma once
// Farm routing policies: which replica gets the next item.
#include <cstddef>
#include <functional>
#include <type_traits>
#include <utility>

namespace spate::flow {

/// The default ("forward" in FastFlow's terms). Items go to the replicas in turn, in runs
/// of `run_length`: every replica gets the same share (to within one run), and each edge
/// receives a batch at a time, which its consumer takes in one activation.
struct round_robin {
  static constexpr std::size_t run_length = 128;  ///< items in a row to one replica
};
struct random_choice {};
struct least_loaded {};  ///< the replica with the shortest input queue
struct broadcast {};     ///< every replica; one shared, reference-counted copy

/// Same key, same replica, always: replica = hash(key(item)) % replicas; with checkpoints on,
/// the replica that owns the key's key group (state/key_groups.hpp).
template <class KeyFn>
struct by_key {
  KeyFn key;  ///< the item's key (any hashable value)
};
template <class KeyFn>
by_key(KeyFn) -> by_key<KeyFn>;

/// `choose(item, replicas)` returns the replica index (taken modulo `replicas`).
template <class ChooseFn>
struct custom_policy {
  ChooseFn choose;  ///< `(const T& item, std::size_t replicas) -> std::size_t`
};
template <class ChooseFn>
custom_policy(ChooseFn) -> custom_policy<ChooseFn>;

template <class P>
inline constexpr bool is_broadcast_v = std::is_same_v<P, broadcast>;

/// The policy as a topology picture labels the edges it routes (observe/topology.hpp).
template <class P>
constexpr const char* policy_name() noexcept {
  if constexpr (std::is_same_v<P, round_robin>) {
    return "round robin";
  } else if constexpr (std::is_same_v<P, random_choice>) {
    return "random";
  } else if constexpr (std::is_same_v<P, least_loaded>) {
    return "least loaded";
  } else if constexpr (std::is_same_v<P, broadcast>) {
    return "broadcast";
  } else if constexpr (requires(P p) { p.key; }) {
    return "by key";
  } else {
    return "custom";
  }
}

}  // namespace spate::flow
