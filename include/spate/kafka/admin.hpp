#pragma once
// Creating topics (librdkafka's admin API), for tools, tests and set-up scripts.
#include <string>
#include "spate/platform/export.hpp"

namespace spate::kafka {

/// Creates `topic` with `partitions` partitions (replication factor 1) on the cluster at
/// `brokers`; a topic that already exists is fine. Throws std::runtime_error naming the
/// topic and the broker's answer otherwise, or when no answer comes within 30 s.
SPATE_API void create_topic(const std::string& brokers, const std::string& topic, int partitions);

}  // namespace spate::kafka
