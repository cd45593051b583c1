#pragma once
// Key groups: the unit keyed state is divided into for checkpoints and for moving between
// replicas (Flink's KeyGroupRangeAssignment). A key's group is its mixed hash modulo the
// key-group count; with checkpoints on, a by_key farm of R replicas gives group g to replica
// g * R / groups, so each replica owns a contiguous range of whole groups, and a restore onto
// another replica count hands each replica the groups it now owns. More replicas than key
// groups leave some replicas without keys.
#include <cstddef>
#include <cstdint>

namespace spate::state {

// The table keeps the mixed hash in a std::size_t; the router computes it in 64 bits.
static_assert(sizeof(std::size_t) == sizeof(std::uint64_t),
              "spate::state: key groups need a 64-bit std::size_t");

/// The user's hash of a key, mixed (splitmix64's finalizer): the hash keyed state uses for
/// its tables (the low bits pick a bucket) and its key groups (the high bits).
inline std::uint64_t mixed_hash(std::uint64_t h) noexcept {
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

/// The key group of a key whose mixed hash is `mixed`, of `key_groups` (at least 1): from
/// the hash's high 32 bits, scaled (Lemire's multiply-shift), so that a replica's keys, which
/// share their group range, still spread over all of its table's buckets (the low bits).
inline std::uint32_t key_group_of(std::uint64_t mixed, std::uint32_t key_groups) noexcept {
  return static_cast<std::uint32_t>(((mixed >> 32) * key_groups) >> 32);
}

/// The replica, of `replicas`, that owns key group `group` of `key_groups`.
inline std::size_t replica_of_group(std::uint32_t group, std::size_t replicas,
                                    std::uint32_t key_groups) noexcept {
  return static_cast<std::size_t>(static_cast<std::uint64_t>(group) * replicas / key_groups);
}

}  // namespace spate::state
