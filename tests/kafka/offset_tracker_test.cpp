// The commit bookkeeping of kafka::source (offset_tracker.hpp), without a broker: what may
// be committed is the offset after the last record done in order, never past a record still
// in flight, never for a partition this member does not own, and never from a record read
// under an older assignment.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "spate/kafka/offset_tracker.hpp"

namespace kafka = spate::kafka;

namespace {
using commits = std::vector<std::pair<std::int32_t, std::int64_t>>;
}

TEST(offset_tracker, commits_only_the_prefix_done_in_order) {
  kafka::offset_tracker tracker;
  tracker.assign(0);
  std::vector<kafka::position> read;
  for (std::int64_t offset = 10; offset < 15; ++offset) read.push_back(*tracker.emitted(0, offset));
  EXPECT_EQ(tracker.committable(), (commits{{0, 10}}));  // where the reading started
  read[1].done();
  read[2].done();
  EXPECT_TRUE(tracker.committable().empty()) << "offset 10 is still in flight";
  read[0].done();
  EXPECT_EQ(tracker.committable(), (commits{{0, 13}}));
  read[4].dropped();
  EXPECT_TRUE(tracker.committable().empty()) << "offset 13 is still in flight";
  read[3].done();
  EXPECT_EQ(tracker.committable(), (commits{{0, 15}}));
  EXPECT_EQ(tracker.in_flight(), 0u);
  EXPECT_EQ(tracker.done_count(), 5u);
}

TEST(offset_tracker, a_record_of_a_partition_not_assigned_gets_no_position_and_no_commit) {
  kafka::offset_tracker tracker;
  tracker.assign(0);
  EXPECT_FALSE(tracker.emitted(1, 500).has_value());
  tracker.assign(1);
  tracker.revoke(1);
  EXPECT_FALSE(tracker.emitted(1, 501).has_value()) << "revoked: another member owns it";
  EXPECT_TRUE(tracker.committable().empty());
  EXPECT_EQ(tracker.in_flight(), 0u);
}

TEST(offset_tracker, records_of_an_older_assignment_move_nothing) {
  kafka::offset_tracker tracker;
  tracker.assign(0);
  const kafka::position old_record = *tracker.emitted(0, 100);
  EXPECT_EQ(tracker.committable(), (commits{{0, 100}}));
  tracker.revoke(0);
  tracker.assign(0);  // the same partition again: read again from its last commit
  const kafka::position again = *tracker.emitted(0, 100);
  old_record.done();  // its output arrives late: the new owner reads it again anyway
  EXPECT_EQ(tracker.committable(), (commits{{0, 100}})) << "where the new reading started";
  EXPECT_EQ(tracker.in_flight(), 1u);
  again.done();
  EXPECT_EQ(tracker.committable(), (commits{{0, 101}}));
}
