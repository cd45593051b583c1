// The memory backend's copy-on-write table (state/detail/cow_table.hpp): rows against a
// std::map model under random operations, snapshots that stay as they were while the owner
// writes (from another thread too, under ThreadSanitizer), and the lifetimes of S5.
#include "spate/state/detail/cow_table.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using spate::state::detail::cow_table;

// Few buckets' worth of distinct hashes: long chains, so copies of the entries before a
// written one (S2) are exercised.
struct colliding_hash {
  std::size_t operator()(int k) const noexcept { return static_cast<std::size_t>(k % 5); }
};

using table = cow_table<int, std::string, colliding_hash>;
using model = std::map<int, std::string>;

template <class View>
model contents(const View& view) {
  model m;
  view.for_each([&](const int& k, const std::string& v, auto&&...) {
    EXPECT_TRUE(m.emplace(k, v).second) << "key " << k << " twice";
  });
  return m;
}

// One random write: insert or overwrite (via find_or_insert), or erase.
void random_write(table& t, model& m, std::mt19937& rng, int keys) {
  const int k = static_cast<int>(rng() % static_cast<unsigned>(keys));
  const std::size_t h = t.hash_of(k);
  if (rng() % 4 == 0) {
    EXPECT_EQ(t.erase(k, h), m.erase(k) == 1) << "erase " << k;
  } else {
    std::string v = "v";
    v += std::to_string(rng() % 1000);
    t.find_or_insert(k, h) = v;
    m[k] = v;
  }
}

}  // namespace

TEST(cow_table, rows_follow_a_model_through_random_writes_and_growth) {
  table t;
  model m;
  std::mt19937 rng(7);
  for (int i = 0; i < 20'000; ++i) random_write(t, m, rng, 3'000);
  EXPECT_EQ(t.size(), m.size());
  EXPECT_EQ(contents(t), m);
  for (const auto& [k, v] : m) {
    const std::string* row = t.find(k, t.hash_of(k));
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(*row, v);
  }
  EXPECT_EQ(t.find(-1, t.hash_of(-1)), nullptr);
  EXPECT_EQ(t.copies(), 0u);  // no snapshot, no copy
}

// A snapshot shows the table as it was at S1 however the owner writes after it, and the
// table shows every write; each shared entry is copied at most once per snapshot.
TEST(cow_table, a_snapshot_keeps_its_view_while_the_owner_writes) {
  table t;
  model m;
  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 500; ++i) random_write(t, m, rng, 400);
    const model frozen = m;
    auto view = t.take_snapshot();
    EXPECT_EQ(view.size(), frozen.size());
    const auto copies_before = t.copies();
    for (int i = 0; i < 500; ++i) random_write(t, m, rng, 400);
    EXPECT_LE(t.copies() - copies_before, frozen.size() + 5 * 400)
        << "an entry was copied more than once (or a chain's prefix beyond reason)";
    EXPECT_EQ(contents(view), frozen) << "round " << round;
    EXPECT_EQ(contents(t), m) << "round " << round;
    view.finish();
  }
}

// After finish() the owner stops copying (S5), and a view dropped unread counts as finished.
TEST(cow_table, a_finished_or_dropped_snapshot_costs_no_more_copies) {
  table t;
  for (int k = 0; k < 100; ++k) t.find_or_insert(k, t.hash_of(k)) = "x";
  {
    auto view = t.take_snapshot();
    t.find_or_insert(1, t.hash_of(1)) = "y";
    EXPECT_GE(t.copies(), 1u);
    view.finish();
  }
  const auto after_first = t.copies();
  t.find_or_insert(2, t.hash_of(2)) = "y";
  EXPECT_EQ(t.copies(), after_first);
  { auto dropped = t.take_snapshot(); }
  t.find_or_insert(3, t.hash_of(3)) = "y";
  EXPECT_EQ(t.copies(), after_first);
}

TEST(cow_table, a_second_snapshot_while_one_is_open_is_refused) {
  table t;
  t.find_or_insert(1, t.hash_of(1)) = "a";
  auto first = t.take_snapshot();
  EXPECT_THROW((void)t.take_snapshot(), std::logic_error);
  first.finish();
  auto second = t.take_snapshot();
  EXPECT_EQ(contents(second), (model{{1, "a"}}));
}

// S5's last case: the table goes while its snapshot is still read; the view stays readable
// (AddressSanitizer would see a freed entry) and frees everything with itself (LSan).
TEST(cow_table, a_snapshot_outlives_its_table) {
  table::snapshot view;
  model frozen;
  {
    table t;
    for (int k = 0; k < 200; ++k) {
      std::string v = "v";
      v += std::to_string(k);
      t.find_or_insert(k, t.hash_of(k)) = v;
      frozen[k] = v;
    }
    view = t.take_snapshot();
    for (int k = 0; k < 200; k += 3) t.erase(k, t.hash_of(k));
    for (int k = 1; k < 200; k += 3) t.find_or_insert(k, t.hash_of(k)) = "changed";
    for (int k = 200; k < 300; ++k) t.find_or_insert(k, t.hash_of(k)) = "new";
  }
  EXPECT_EQ(contents(view), frozen);
}

// The reader on another thread, as a checkpoint writer reads: it walks the view again and
// again while the owner writes, inserts past the growth threshold and erases. ThreadSanitizer
// checks that no entry the reader sees is written.
TEST(cow_table, a_reader_thread_sees_the_view_while_the_owner_writes) {
  table t;
  model m;
  std::mt19937 rng(3);
  for (int i = 0; i < 2'000; ++i) random_write(t, m, rng, 1'000);
  for (int round = 0; round < 5; ++round) {
    const model frozen = m;
    auto view = t.take_snapshot();
    std::thread reader([&view, &frozen] {
      for (int pass = 0; pass < 20; ++pass) EXPECT_EQ(contents(view), frozen);
      view.finish();
    });
    for (int i = 0; i < 20'000; ++i) random_write(t, m, rng, 4'000);
    reader.join();
    EXPECT_EQ(contents(t), m);
  }
}
