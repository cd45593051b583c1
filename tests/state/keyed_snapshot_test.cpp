// Checkpoint parts of keyed state (state/keyed_store.hpp): a snapshot's rows encoded by key
// group and restored exactly, all or some groups; parts of another layout, key-group count
// or corrupted bytes refused with what and where; encoding on another thread while the node
// writes (ThreadSanitizer).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "spate/state/keyed.hpp"
#include "spate/state/keyed_store.hpp"

namespace {

namespace state = spate::state;

struct node_states {
  state::value<std::int64_t> total{"total"};
  state::map<std::string, std::uint32_t> seen{"seen"};
  state::list<std::int32_t> recent{"recent"};
  auto fields() { return std::tie(total, seen, recent); }
};
using store_type = state::keyed_store<std::string, decltype(std::declval<node_states&>().fields())>;
using row_type = store_type::row_type;

std::string key_of(int k) {
  std::string key = "key-";
  key += std::to_string(k);
  return key;
}

// `keys` keys with rows that depend on the key and `salt`.
void fill(store_type& store, node_states& s, int keys, int salt) {
  for (int k = 0; k < keys; ++k) {
    store.with_key(key_of(k), s.fields(), [&] {
      s.total.set(std::int64_t{k} * 1000 + salt);
      std::string tag = "t";
      tag += std::to_string(k % 7);
      s.seen[tag] = static_cast<std::uint32_t>(k + salt);
      if (k % 3 != 0) s.recent.add(k);
    });
  }
}

std::map<std::string, row_type> rows_of(const store_type& store) {
  std::map<std::string, row_type> out;
  store.for_each([&](const std::string& k, const row_type& r) { out.emplace(k, r); });
  return out;
}

}  // namespace

TEST(keyed_snapshot, a_part_restores_every_row_exactly) {
  node_states s;
  store_type written;
  fill(written, s, 2'000, 1);
  const std::string layout = store_type::layout(s.fields());
  EXPECT_NE(layout.find("total"), std::string::npos) << layout;
  auto view = written.snapshot();
  const std::string part = store_type::encode(view, layout, 128);
  view.finish();

  node_states t;
  store_type restored;
  EXPECT_EQ(restored.restore(part, store_type::layout(t.fields()), 128,
                             [](std::uint32_t) { return true; }),
            2'000u);
  EXPECT_EQ(rows_of(restored), rows_of(written));
  // The restored rows are live: the node goes on from them.
  restored.with_key(key_of(5), t.fields(), [&] { EXPECT_EQ(*t.total, 5'001); });
}

// Two restores that split the key groups between them hold every row once.
TEST(keyed_snapshot, key_groups_split_the_rows_between_restores) {
  node_states s;
  store_type written;
  fill(written, s, 3'000, 2);
  const auto layout = store_type::layout(s.fields());
  const std::string part = store_type::encode(written.snapshot(), layout, 16);
  store_type even, odd;
  const auto a = even.restore(part, layout, 16, [](std::uint32_t g) { return g % 2 == 0; });
  const auto b = odd.restore(part, layout, 16, [](std::uint32_t g) { return g % 2 == 1; });
  EXPECT_EQ(a + b, 3'000u);
  EXPECT_GT(a, 1'000u);  // a fair split: each side well over a third
  EXPECT_GT(b, 1'000u);
  auto all = rows_of(even);
  for (auto& [k, r] : rows_of(odd)) EXPECT_TRUE(all.emplace(k, r).second) << k << " in both";
  EXPECT_EQ(all, rows_of(written));
}

TEST(keyed_snapshot, a_part_of_another_layout_or_key_group_count_is_refused) {
  node_states s;
  store_type written;
  fill(written, s, 10, 0);
  const auto layout = store_type::layout(s.fields());
  const std::string part = store_type::encode(written.snapshot(), layout, 8);
  const auto all = [](std::uint32_t) { return true; };

  struct renamed_states {
    state::value<std::int64_t> total{"sum"};
    state::map<std::string, std::uint32_t> seen{"seen"};
    state::list<std::int32_t> recent{"recent"};
    auto fields() { return std::tie(total, seen, recent); }
  } r;
  store_type other;
  try {
    other.restore(part, store_type::layout(r.fields()), 8, all);
    FAIL() << "expected runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("total: std::optional<long>"), std::string::npos) << what;
    EXPECT_NE(what.find("sum: std::optional<long>"), std::string::npos) << what;
  }
  try {
    other.restore(part, layout, 16, all);
    FAIL() << "expected runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the part has 8 key groups; this graph has 16"),
              std::string::npos)
        << e.what();
  }
  // Restoring the same part twice would hold keys twice.
  EXPECT_EQ(other.restore(part, layout, 8, all), 10u);
  EXPECT_THROW(other.restore(part, layout, 8, all), std::runtime_error);
}

// Every truncation of a part, and flipped bytes, fail with an error, never a crash
// (AddressSanitizer would see an overread), and never restore silently wrong rows.
TEST(keyed_snapshot, truncated_or_corrupt_parts_are_refused) {
  node_states s;
  store_type written;
  fill(written, s, 40, 3);
  const auto layout = store_type::layout(s.fields());
  const std::string part = store_type::encode(written.snapshot(), layout, 4);
  const auto all = [](std::uint32_t) { return true; };
  for (std::size_t n = 0; n < part.size(); ++n) {
    const std::string cut = part.substr(0, n);
    store_type target;
    EXPECT_ANY_THROW(target.restore(std::string_view(cut), layout, 4, all)) << "cut at " << n;
    EXPECT_EQ(target.size(), 0u) << "a failed restore added rows, cut at " << n;
  }
  std::size_t refused = 0;
  for (std::size_t at = 0; at < part.size(); at += 7) {
    std::string bent = part;
    bent[at] = static_cast<char>(bent[at] ^ 0x5a);
    store_type target;
    try {
      target.restore(bent, layout, 4, all);
      // A flip inside a value's bytes decodes to another value: only checksums (the
      // checkpoint store's) catch that. It must still be a whole, well-formed part.
      EXPECT_EQ(target.size(), written.size()) << "flip at " << at;
    } catch (const std::exception&) {
      ++refused;
      EXPECT_EQ(target.size(), 0u) << "a failed restore added rows, flip at " << at;
    }
  }
  EXPECT_GT(refused, 0u);
}

// The encoder reads the snapshot on its own thread while the node keeps writing (S1..S5).
TEST(keyed_snapshot, a_part_is_encoded_while_the_node_writes) {
  node_states s;
  store_type store;
  fill(store, s, 5'000, 0);
  const auto layout = store_type::layout(s.fields());
  const auto frozen = rows_of(store);
  auto view = store.snapshot();
  std::string part;
  std::thread encoder([&] {
    part = store_type::encode(view, layout, 32);
    view.finish();
  });
  for (int round = 1; round <= 3; ++round) fill(store, s, 6'000, round * 10);
  for (int k = 0; k < 6'000; k += 5) {
    store.with_key(key_of(k), s.fields(), [&] {
      s.total.clear();
      s.seen.clear();
      s.recent.clear();
    });
  }
  encoder.join();
  store_type restored;
  restored.restore(part, layout, 32, [](std::uint32_t) { return true; });
  EXPECT_EQ(rows_of(restored), frozen);
}
