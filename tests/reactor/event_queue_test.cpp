// The reactor event queue: tag order, one event per target and tag (the later value wins),
// placement order within a tag, and the same answers once a tag holds enough events to be
// indexed.
#include <spate/reactor/detail/event_queue.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <set>
#include <vector>

namespace spate::reactor::detail {
namespace {

using namespace std::chrono_literals;

struct test_target final : event_target {
  test_target() : event_target(target_kind::other) {}
};

tag at(int microseconds, unsigned microstep = 0) {
  return tag{time_point{} + std::chrono::microseconds(microseconds), microstep};
}

std::vector<int> values_of(const std::vector<event>& events) {
  std::vector<int> values;
  for (const event& e : events) values.push_back(e.value.get<int>());
  return values;
}

TEST(event_queue, hands_out_tags_earliest_first_whatever_the_insertion_order) {
  event_queue queue;
  test_target a, b, c;
  queue.insert(at(30), &a, erased_value::of(3));
  queue.insert(at(10), &b, erased_value::of(1));
  queue.insert(at(20, 1), &c, erased_value::of(22));
  queue.insert(at(20), &c, erased_value::of(2));
  std::vector<event> out;
  std::vector<int> seen;
  while (auto next = queue.earliest()) {
    queue.take(*next, out);
    ASSERT_EQ(out.size(), 1u);
    seen.push_back(out[0].value.get<int>());
  }
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 22, 3}));
  EXPECT_TRUE(queue.empty());
}

// Checked on both sides of the size at which a tag's events are indexed.
TEST(event_queue, one_event_per_target_and_tag_the_later_value_wins_in_first_placement_order) {
  for (int targets : {3, 15, 16, 17, 200}) {
    event_queue queue;
    std::deque<test_target> pool(static_cast<std::size_t>(targets));
    for (int i = 0; i < targets; ++i) queue.insert(at(5), &pool[i], erased_value::of(i));
    for (int i = 0; i < targets; i += 2) queue.insert(at(5), &pool[i], erased_value::of(1000 + i));
    for (int i = 1; i < targets; i += 2)
      EXPECT_TRUE(queue.replace(at(5), &pool[i], erased_value::of(2000 + i)));
    EXPECT_FALSE(queue.replace(at(6), &pool[0], erased_value::of(-1)));
    std::vector<event> out;
    queue.take(at(5), out);
    ASSERT_EQ(out.size(), static_cast<std::size_t>(targets)) << targets << " targets";
    for (int i = 0; i < targets; ++i) {
      EXPECT_EQ(out[i].target, &pool[i]);
      EXPECT_EQ(out[i].value.get<int>(), (i % 2 == 0 ? 1000 : 2000) + i);
    }
    EXPECT_TRUE(queue.empty());
  }
}

TEST(event_queue, raise_to_moves_early_events_to_the_floor_keeping_their_order) {
  event_queue queue;
  test_target a, b, c, d;
  queue.insert(at(1), &a, erased_value::of(1));
  queue.insert(at(2), &b, erased_value::of(2));
  queue.insert(at(2), &a, erased_value::of(3));   // same target, later tag: wins at the floor
  queue.insert(at(10), &c, erased_value::of(4));  // already at the floor
  queue.insert(at(20), &d, erased_value::of(5));
  queue.raise_to(at(10));
  std::vector<event> out;
  queue.take(at(10), out);
  EXPECT_EQ(values_of(out), (std::vector<int>{4, 3, 2}));
  queue.take(at(20), out);
  EXPECT_EQ(values_of(out), (std::vector<int>{5}));
}

TEST(event_queue, drop_targets_removes_every_event_of_a_removed_target) {
  event_queue queue;
  std::deque<test_target> pool(40);
  for (int t = 0; t < 3; ++t)
    for (int i = 0; i < 40; ++i) queue.insert(at(t), &pool[i], erased_value::of(t * 100 + i));
  std::set<event_target*> gone;
  for (int i = 0; i < 40; i += 3) gone.insert(&pool[i]);
  queue.insert(at(7), &pool[0], erased_value::of(-1));  // a tag left with no event
  queue.drop_targets(gone);
  // The dropped events are gone from lookups too, including in indexed tags.
  EXPECT_FALSE(queue.replace(at(1), &pool[3], erased_value::of(-1)));
  EXPECT_TRUE(queue.replace(at(1), &pool[4], erased_value::of(104)));
  std::vector<event> out;
  for (int t = 0; t < 3; ++t) {
    ASSERT_EQ(queue.earliest(), at(t));
    queue.take(at(t), out);
    std::vector<int> expected;
    for (int i = 0; i < 40; ++i)
      if (i % 3 != 0) expected.push_back(t * 100 + i);
    EXPECT_EQ(values_of(out), expected);
  }
  EXPECT_TRUE(queue.empty());
}

}  // namespace
}  // namespace spate::reactor::detail
