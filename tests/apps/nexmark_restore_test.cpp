// Nexmark's queries with keyed state survive a crash: each runs from a paced source with a
// checkpoint every 5 ms, is cancelled once two checkpoints are complete, and runs again from
// the same directory to the end. The sink folds the rows into its own checkpointed state —
// the rows' count and digest, or for a final-table query (q4, q6) each key's last row's digest
// — so a row lost or sent twice across the restart changes the result, which must equal the
// one-thread loop's. The queries tried hold every kind of state the updating queries keep:
// q4 and q6 (two keyed farms; q6 a vector per seller), q9 (an auction with its texts, a list of
// early bids), q16 (a text key, two hash maps per group).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../../examples/apps/common/replay_source.hpp"
#include "../../examples/apps/nexmark/aggregate_queries.hpp"
#include "../../examples/apps/nexmark/generator.hpp"
#include "../../examples/apps/nexmark/q4.hpp"
#include "../../examples/apps/nexmark/q6.hpp"
#include "../../examples/apps/nexmark/q9.hpp"
#include "../temp_dir.hpp"

namespace flow = spate::flow;
namespace nx = apps::nexmark;
using spate::test::temp_dir;

namespace {

// What a sink keeps of the rows: their count and digest sum; for a final-table query, each
// key's last row's digest instead.
struct tally {
  std::uint64_t rows = 0, digest = 0;
  std::map<std::int64_t, std::uint64_t> table;
  template <class Row>
  void add(const Row& r) {
    if constexpr (requires { r.table_key(); }) {
      table[r.table_key()] = r.digest();
    } else {
      ++rows;
      digest += r.digest();
    }
  }
  friend bool operator==(const tally&, const tally&) = default;
};

}  // namespace

template <>
struct spate::state::codec<tally> {
  static void encode(const tally& t, byte_writer& out) {
    state::encode(t.rows, out);
    state::encode(t.digest, out);
    state::encode(t.table, out);
  }
  static tally decode(byte_reader& in) {
    tally t;
    t.rows = state::decode<std::uint64_t>(in);
    t.digest = state::decode<std::uint64_t>(in);
    t.table = state::decode<decltype(t.table)>(in);
    return t;
  }
};

namespace {

// The sink: its tally in its own checkpointed state; `ended` learns it at the end of a run,
// or nullptr when the run was cancelled or failed.
template <class Row>
struct tally_sink : flow::node<Row, void> {
  std::function<void(const tally*)> ended;
  tally now;
  explicit tally_sink(std::function<void(const tally*)> e) : ended(std::move(e)) {}
  void consume(Row& r) { now.add(r); }
  tally snapshot_state() const { return now; }
  void restore_state(tally t) { now = std::move(t); }
  void on_stop() { ended(&now); }
  void on_cancel() { ended(nullptr); }
};

template <class Row, class MakeQuery, class Sequential>
void expect_a_restored_run_ends_the_same(MakeQuery make_query, Sequential sequential) {
  temp_dir dir("nexmark-restore");
  const auto events = std::make_shared<const std::vector<nx::event>>(
      nx::generate(nx::generator(nx::generator_config{}), 200'000));
  tally expected;
  for (const Row& r : sequential(*events)) expected.add(r);
  spate::runtime rt;
  // 1,000,000 events a second: at least 200 ms, against a checkpoint every 5 ms.
  const auto job = [&](flow::checkpoint_options checkpoints, std::function<void(const tally*)> e) {
    return flow::graph(
        flow::pipeline(
            flow::make_stage<apps::replay_source<nx::event>>(events, 1e6, events->size()),
            make_query(2), flow::make_stage<tally_sink<Row>>(std::move(e))),
        flow::graph_options{.links = {.capacity = 64}, .checkpoints = std::move(checkpoints)});
  };
  // Either the second checkpoint's id, or 0 when the run ended, failed or was cancelled first
  // (so no wait hangs): whichever is told first.
  std::promise<std::uint64_t> second_checkpoint;
  auto reached = second_checkpoint.get_future();
  std::atomic<bool> told{false};
  const auto tell = [&](std::uint64_t id) {
    if (!told.exchange(true)) second_checkpoint.set_value(id);
  };
  std::atomic<int> completed{0};
  auto first = job({.directory = dir.path,
                    .interval = std::chrono::milliseconds(5),
                    .on_complete =
                        [&](std::uint64_t id) {
                          if (++completed == 2) tell(id);
                        }},
                   [&](const tally*) { tell(0); });
  first.start(rt, [&](const std::string&) { tell(0); });
  const std::uint64_t id = reached.get();
  first.cancel();
  first.wait();
  ASSERT_NE(id, 0u) << "the run ended before its second checkpoint";

  tally got;
  auto second = job({.directory = dir.path}, [&](const tally* t) {
    if (t != nullptr) got = *t;
  });
  second.run(rt);
  EXPECT_GE(second.checkpoints().restored_from, id);
  EXPECT_EQ(got.rows, expected.rows);
  EXPECT_TRUE(got == expected) << "the rows' digest or table differs from the one-thread loop's";
}

TEST(nexmark_restore, q4_ends_with_the_same_table) {
  expect_a_restored_run_ends_the_same<nx::q4_row>(nx::q4, nx::q4_sequential);
}

TEST(nexmark_restore, q6_ends_with_the_same_table) {
  expect_a_restored_run_ends_the_same<nx::q6_row>(nx::q6, nx::q6_sequential);
}

TEST(nexmark_restore, q9_ends_with_the_same_rows) {
  expect_a_restored_run_ends_the_same<nx::q9_row>(nx::q9, nx::q9_sequential);
}

TEST(nexmark_restore, q16_ends_with_the_same_rows) {
  expect_a_restored_run_ends_the_same<nx::q16_row>(nx::q16, nx::q16_sequential);
}

}  // namespace
