// Markers through a node's output port (flow/detail/output_port.hpp, link M1/M2): a marker
// goes on every edge of the port, after everything the node sent before it on that edge,
// whether those items are in the ring or still buffered because the ring was full. And
// barrier alignment (flow/detail/barrier_alignment.hpp A3) over inputs that end, and the
// unaligned barrier's parts (flow/detail/unaligned_barrier.hpp): a marker before the
// buffered items, which are stored, and the items up to a marker read without popping.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "spate/exec/link.hpp"
#include "spate/flow/detail/barrier_alignment.hpp"
#include "spate/flow/detail/output_port.hpp"
#include "spate/flow/detail/unaligned_barrier.hpp"

namespace {

namespace detail = spate::flow::detail;

// Even items to edge 0, odd ones to edge 1.
struct by_parity {
  std::size_t choose(int v, std::size_t n) const { return static_cast<std::size_t>(v) % n; }
};

std::vector<int> drain_before_marker(spate::link<int>& l) {
  std::vector<int> got;
  for (;;) {
    const auto batch = l.readable_before_marker(100);
    if (batch.size() == 0) return got;
    for (std::size_t k = 0; k < batch.size(); ++k) got.push_back(batch[k]);
    l.pop_n(batch.size());
  }
}

}  // namespace

TEST(flow_markers, a_marker_follows_every_item_sent_before_it_on_each_edge) {
  spate::link<int> even({.capacity = 2, .notify_batch = 1});
  spate::link<int> odd({.capacity = 8, .notify_batch = 1});
  detail::routing_port<int, by_parity> port({&even, &odd}, by_parity{}, 0);
  for (int i = 0; i < 8; ++i) port.send(int(i));
  EXPECT_TRUE(port.has_pending());  // 4 and 6 wait: the even ring holds two
  ASSERT_TRUE(port.post_marker(42));
  port.send(8);
  port.send(9);
  port.notify_consumers();

  ASSERT_EQ(even.markers_queued(), 1u);
  ASSERT_EQ(odd.markers_queued(), 1u);
  EXPECT_EQ(even.front_marker()->id, 42u);
  EXPECT_EQ(even.front_marker()->position, 4u);  // 0, 2 in the ring; 4, 6 buffered
  EXPECT_EQ(odd.front_marker()->position, 4u);   // 1, 3, 5, 7

  EXPECT_EQ(drain_before_marker(odd), (std::vector<int>{1, 3, 5, 7}));
  ASSERT_TRUE(odd.at_marker());
  odd.pop_marker();
  EXPECT_EQ(drain_before_marker(odd), (std::vector<int>{9}));

  std::vector<int> even_got = drain_before_marker(even);
  EXPECT_FALSE(even.at_marker());  // 4 and 6 are not in the ring yet
  EXPECT_FALSE(port.flush());      // 4 and 6 move into the ring; 8 still waits behind them
  port.notify_consumers();
  for (int v : drain_before_marker(even)) even_got.push_back(v);
  EXPECT_EQ(even_got, (std::vector<int>{0, 2, 4, 6}));
  ASSERT_TRUE(even.at_marker());
  even.pop_marker();
  ASSERT_TRUE(port.flush());
  port.notify_consumers();
  EXPECT_EQ(drain_before_marker(even), (std::vector<int>{8}));
}

// A marker is posted on all edges or on none: a full marker queue on one edge refuses it
// without leaving it on the others.
TEST(flow_markers, a_marker_goes_on_every_edge_or_on_none) {
  spate::link<int> a, b;
  detail::routing_port<int, by_parity> port({&a, &b}, by_parity{}, 0);
  for (std::uint64_t id = 0; id < spate::link_base::marker_capacity; ++id) {
    ASSERT_TRUE(b.post_marker({.id = id, .position = 0}));
  }
  EXPECT_FALSE(port.post_marker(9));
  EXPECT_EQ(a.markers_queued(), 0u);
  EXPECT_EQ(b.markers_queued(), spate::link_base::marker_capacity);
  b.pop_marker();
  EXPECT_TRUE(port.post_marker(9));
  EXPECT_EQ(a.markers_queued(), 1u);
}

// A3: an input that ends without the barrier counts as aligned; one cut short before a
// marker it holds (its cancelled producer dropped items the marker counted) does not. A
// barrier passed there would complete a checkpoint whose producer state counts items no
// consumer state holds.
TEST(flow_markers, an_input_cut_short_before_its_barrier_does_not_align) {
  for (const bool cut_short : {false, true}) {
    SCOPED_TRACE(cut_short ? "cut short" : "ended");
    spate::link<int> at_barrier, ending;
    std::vector<spate::link<int>*> inputs{&at_barrier, &ending};
    detail::barrier_alignment<int> alignment;
    alignment.add_input();
    alignment.add_input();
    ASSERT_TRUE(at_barrier.post_marker({.id = 7, .position = 0}));
    ASSERT_TRUE(ending.try_push(1));
    if (cut_short) {
      ASSERT_TRUE(ending.post_marker({.id = 7, .position = 3}));  // 2 dropped
    }
    ending.close();
    alignment.begin(inputs);
    alignment.hold(0, at_barrier);
    EXPECT_FALSE(alignment.ready(inputs));  // item 1 is still to read
    ending.pop_n(ending.readable_before_marker(10).size());
    EXPECT_TRUE(ending.ended());
    EXPECT_EQ(ending.ended_before_marker(), cut_short);
    EXPECT_EQ(alignment.ready(inputs), !cut_short);
  }
}

// U1/U2: an unaligned marker stands after the items in the ring and before the buffered
// ones, which come back encoded; U4: the items up to it are read without popping them.
TEST(flow_markers, an_unaligned_marker_goes_before_the_buffered_items_which_are_stored) {
  spate::link<int> even({.capacity = 2, .notify_batch = 1});
  spate::link<int> odd({.capacity = 8, .notify_batch = 1});
  detail::routing_port<int, by_parity> port({&even, &odd}, by_parity{}, 0);
  for (int i = 0; i < 8; ++i) port.send(int(i));
  ASSERT_TRUE(port.stores_buffered_items());
  std::string buffered;
  ASSERT_EQ(port.post_marker_before_buffered(42, buffered), std::optional<std::size_t>(2));
  EXPECT_EQ(detail::decode_stored_items<int>(detail::stored_items<int>(2, buffered)),
            (std::vector<int>{4, 6}));
  EXPECT_EQ(even.front_marker()->position, 2u);  // 0 and 2; 4 and 6 still buffered
  EXPECT_EQ(odd.front_marker()->position, 4u);

  detail::unaligned_barrier<int> barrier;
  barrier.add_input();
  barrier.add_input();
  barrier.begin(42);
  EXPECT_TRUE(barrier.recording(0) && barrier.recording(1));
  barrier.reach_marker(1, odd);  // 1, 3, 5, 7 recorded, left in the ring
  EXPECT_EQ(odd.markers_queued(), 0u);
  EXPECT_EQ(odd.popped(), 0u);
  EXPECT_FALSE(barrier.complete());
  barrier.record(100);            // consumed from `even` while it records (U3)
  barrier.reach_marker(0, even);  // 0, 2
  ASSERT_TRUE(barrier.complete());
  std::uint64_t count = 0;
  const std::string stored = barrier.finish(count);
  EXPECT_EQ(count, 7u);
  EXPECT_EQ(detail::decode_stored_items<int>(stored), (std::vector<int>{1, 3, 5, 7, 100, 0, 2}));
  EXPECT_FALSE(barrier.taking());
  EXPECT_EQ(drain_before_marker(odd), (std::vector<int>{1, 3, 5, 7}));  // read on as usual
}

// Items stored as one type do not restore as another: the part names the type.
TEST(flow_markers, items_in_flight_of_another_type_are_refused_by_name) {
  const std::string stored = detail::stored_items<int>(1, spate::state::to_bytes(7));
  EXPECT_EQ(detail::decode_stored_items<int>(stored), (std::vector<int>{7}));
  try {
    detail::decode_stored_items<unsigned>(stored);
    FAIL() << "decoded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("items in flight are int"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(detail::decode_stored_items<int>("").empty());
}
