#pragma once
// Reading a consumer group's committed offsets and the checkpoint tags spate's transactions
// put on them (kafka/sink.hpp T5): the exactly-once sink's restore and the partitioned
// job's check that a partition's checkpoints are in view share it.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spate::kafka::detail {

/// The metadata spate's transactions commit offsets with: "spate checkpoint N", and " end"
/// after it for the commit at the end of a finite input.
inline constexpr std::string_view checkpoint_tag_prefix = "spate checkpoint ";
inline constexpr std::string_view checkpoint_tag_end = " end";

/// A partition's committed offset (negative, RD_KAFKA_OFFSET_INVALID, and no metadata when
/// nothing is committed).
struct committed_offset {
  std::int64_t offset = -1;
  std::string metadata;
};

/// The offsets `group` committed for `partitions` of `topic`, read with a consumer handle
/// that joins nothing (the settings: a producer's or consumer's own, minus what only a
/// producer takes). Throws std::runtime_error prefixed by `where` when the broker does not
/// answer within `timeout` or reports an error for a partition.
std::map<std::int32_t, committed_offset> read_committed_offsets(
    const std::string& brokers, const std::map<std::string, std::string>& settings,
    const std::string& group, const std::string& topic, const std::vector<std::int32_t>& partitions,
    std::chrono::milliseconds timeout, const std::string& where);

/// The checkpoint a tag names, with whether it is an end-of-input commit (id 0 when an end
/// tag's number does not parse); nullopt for metadata that is not spate's.
struct checkpoint_tag {
  std::uint64_t id = 0;
  bool at_end = false;
};
std::optional<checkpoint_tag> parse_checkpoint_tag(std::string_view metadata);

}  // namespace spate::kafka::detail
