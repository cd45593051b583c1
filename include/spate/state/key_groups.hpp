#pragma once
// Key groups: the unit keyed state is divided into for checkpoints and for moving between
// replicas (Flink's KeyGroupRangeAssignment). A key's group is its mixed hash modulo the
// key-group count; with checkpoints on, a by_key farm of R replicas gives group g to replica
// g * R / groups, so each replica owns a contiguous range of whole groups, and a restore onto
// another replica count hands each replica the groups it now owns.
#include <cstddef>
#include <cstdint>

namespace spate::state {

/// The user's hash of a key, mixed (splitmix64's finalizer): the hash keyed state uses for
/// its tables and its key groups. Without the mixing a by_key replica's keys would share
/// their low bits.
inline std::uint64_t mixed_hash(std::uint64_t h) noexcept {
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

/// The key group of a key whose mixed hash is `mixed`, of `key_groups` (at least 1).
inline std::uint32_t key_group_of(std::uint64_t mixed, std::uint32_t key_groups) noexcept {
  return static_cast<std::uint32_t>(mixed % key_groups);
}

/// The replica, of `replicas`, that owns key group `group` of `key_groups`.
inline std::size_t replica_of_group(std::uint32_t group, std::size_t replicas,
                                    std::uint32_t key_groups) noexcept {
  return static_cast<std::size_t>(static_cast<std::uint64_t>(group) * replicas / key_groups);
}

}  // namespace spate::state
