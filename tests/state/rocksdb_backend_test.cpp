// Keyed state on a backend (state/backend_keyed_store.hpp) and the RocksDB backend
// (state/rocksdb_backend.hpp): rows read, written and erased through the handles; snapshots
// that see the rows as they were while the node goes on; checkpoint parts that restore into
// either backend; graphs whose output and restarts are exactly the memory backend's; and the
// faults: a directory that cannot be made, a table already open, a write that fails, a row
// that does not decode.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../flow/checkpoint_test_support.hpp"
#include "spate/state/backend_keyed_store.hpp"
#include "spate/state/keyed_store.hpp"
#include "spate/state/rocksdb_backend.hpp"

using namespace checkpoint_test;

namespace {

// A node's states, outside a graph: a count and a list of words per key.
struct fields {
  state::value<std::int64_t> count{"count"};
  state::list<std::string> words{"words"};
  auto tie() { return std::tie(count, words); }
};
using tie_type = decltype(std::declval<fields&>().tie());
using on_backend = state::backend_keyed_store<std::string, tie_type>;
using in_memory = state::keyed_store<std::string, tie_type>;

// "k" and 7: "k7". (Not "k" + std::to_string(7): GCC 12 warns of a false overflow there.)
std::string named(const char* prefix, long long i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

// A small memtable, so that most rows go to files on disk; `cached_rows` rows in memory.
std::shared_ptr<state::keyed_state_backend> small_rocksdb(const fs::path& dir,
                                                          std::size_t cached_rows = 65536) {
  return state::rocksdb_backend(
      {.directory = dir, .write_buffer_bytes = 64 << 10, .cached_rows = cached_rows});
}

// The cache sizes every store test runs with: none (each item reads and writes the table),
// smaller than the keys (rows evicted and read again), and larger.
constexpr std::size_t cache_sizes[] = {0, 64, 1 << 20};

// Runs check(backend, cached rows, its directory) once per cache size, each on a fresh
// RocksDB backend.
template <class Check>
void for_each_cache(Check&& check) {
  for (const std::size_t cache : cache_sizes) {
    SCOPED_TRACE(named("cached rows: ", static_cast<long long>(cache)));
    temp_dir dir;
    check(*small_rocksdb(dir.path), cache, dir.path);
  }
}

void add(on_backend& s, fields& f, const std::string& key, const std::string& word) {
  s.with_key(key, f.tie(), [&] {
    ++f.count.get_or_init(0);
    f.words.add(word);
  });
}

// Every row of a part, decoded into a memory store and read back as (key -> count, words).
std::map<std::string, std::pair<std::int64_t, std::vector<std::string>>> rows_of(
    std::string_view part, std::uint32_t key_groups) {
  fields f;
  in_memory m;
  m.restore(part, in_memory::layout(f.tie()), key_groups, [](std::uint32_t) { return true; });
  std::map<std::string, std::pair<std::int64_t, std::vector<std::string>>> out;
  m.for_each([&](const std::string& key, const in_memory::row_type& row) {
    out[key] = {std::get<0>(row).value_or(-1), std::get<1>(row)};
  });
  return out;
}

}  // namespace

TEST(rocksdb_backend, rows_are_written_read_back_and_erased_once_empty) {
  for_each_cache([](state::keyed_state_backend& backend, std::size_t cache, const fs::path& dir) {
    on_backend s(backend.open("count#0"), cache);
    fields f;
    for (int i = 0; i < 20'000; ++i) add(s, f, named("k", i % 5'000), named("w", i));
    for (int k = 0; k < 5'000; ++k) {
      const auto row = s.find(named("k", k));
      ASSERT_TRUE(row.has_value()) << k;
      EXPECT_EQ(std::get<0>(*row), 4);
      ASSERT_EQ(std::get<1>(*row).size(), 4u);
      EXPECT_EQ(std::get<1>(*row)[3], named("w", 15'000 + k));
    }
    s.with_key("k7", f.tie(), [&] {
      f.count.clear();
      f.words.clear();
    });
    EXPECT_FALSE(s.find("k7").has_value());
    EXPECT_FALSE(f.count.bound());  // unbound after the item
    EXPECT_LE(s.cached(), cache);
    EXPECT_TRUE(fs::exists(dir / "count#0"));
  });
}

TEST(rocksdb_backend, a_throwing_item_keeps_what_it_changed_and_the_exception_goes_on) {
  for_each_cache([](state::keyed_state_backend& backend, std::size_t cache, const fs::path&) {
    on_backend s(backend.open("count#0"), cache);
    fields f;
    EXPECT_THROW(s.with_key("k", f.tie(),
                            [&] {
                              f.count.set(41);
                              throw std::runtime_error("bad item");
                            }),
                 std::runtime_error);
    EXPECT_FALSE(f.count.bound());
    ASSERT_TRUE(s.find("k").has_value());
    EXPECT_EQ(std::get<0>(*s.find("k")), 41);
  });
}

// A snapshot sees the rows as they were when it was taken, while the store goes on writing,
// and after the store is gone; the table's files go once both are.
TEST(rocksdb_backend, a_snapshot_sees_the_rows_as_they_were_and_may_outlive_the_store) {
  for_each_cache([](state::keyed_state_backend& backend, std::size_t cache, const fs::path& dir) {
    fields f;
    std::string layout = on_backend::layout(f.tie());
    on_backend::snapshot_type view;
    {
      on_backend s(backend.open("count#0"), cache);
      for (int i = 0; i < 3'000; ++i) add(s, f, named("k", i % 1'000), "a");
      view = s.snapshot();
      for (int i = 0; i < 3'000; ++i) add(s, f, named("k", i % 1'000), "b");
      s.with_key("k0", f.tie(), [&] {
        f.count.clear();
        f.words.clear();
      });
      add(s, f, "new", "b");
    }
    const auto rows = rows_of(on_backend::encode(*view, layout, 16), 16);
    ASSERT_EQ(rows.size(), 1'000u);
    for (const auto& [key, row] : rows) {
      EXPECT_EQ(row.first, 3) << key;
      EXPECT_EQ(row.second, (std::vector<std::string>{"a", "a", "a"})) << key;
    }
    EXPECT_TRUE(fs::exists(dir / "count#0"));
    view.reset();
    EXPECT_FALSE(fs::exists(dir / "count#0"));
  });
}

// Parts are the same whichever store wrote them: the memory store's part restores into a
// backend (only the key groups asked for) and the backend's part back into memory, equal.
TEST(rocksdb_backend, parts_restore_across_backends_by_key_group) {
  temp_dir dir;
  auto backend = small_rocksdb(dir.path);
  fields f;
  const std::string layout = in_memory::layout(f.tie());
  in_memory m;
  for (int i = 0; i < 5'000; ++i) {
    m.with_key(named("k", i % 700), f.tie(), [&] {
      ++f.count.get_or_init(0);
      f.words.add(std::to_string(i));
    });
  }
  const std::string from_memory = in_memory::encode(m.snapshot(), layout, 8);
  const auto all = rows_of(from_memory, 8);
  ASSERT_EQ(all.size(), 700u);

  on_backend even(backend->open("even"));
  const std::size_t restored =
      even.restore(from_memory, layout, 8, [](std::uint32_t g) { return g % 2 == 0; });
  const auto back = rows_of(on_backend::encode(*even.snapshot(), layout, 8), 8);
  EXPECT_EQ(restored, back.size());
  EXPECT_GT(back.size(), 0u);
  EXPECT_LT(back.size(), all.size());
  for (const auto& [key, row] : all) {
    const auto h = state::mixed_hash(std::hash<std::string>{}(key));
    const bool wanted = state::key_group_of(h, 8) % 2 == 0;
    const auto it = back.find(key);
    ASSERT_EQ(it != back.end(), wanted) << key;
    if (wanted) {
      EXPECT_EQ(it->second, row) << key;
    }
  }

  on_backend whole(backend->open("whole"));
  whole.restore(from_memory, layout, 8, [](std::uint32_t) { return true; });
  EXPECT_EQ(rows_of(on_backend::encode(*whole.snapshot(), layout, 8), 8), all);
}

// A part of another layout adds nothing; a restore after the first item is refused (a
// restore fills an empty store), and so is a key group restored twice.
TEST(rocksdb_backend, a_part_that_fails_to_restore_is_refused) {
  for_each_cache([](state::keyed_state_backend& backend, std::size_t cache, const fs::path&) {
    fields f;
    const std::string layout = in_memory::layout(f.tie());
    in_memory m;
    for (int k = 0; k < 100; ++k) {
      m.with_key(named("k", k), f.tie(), [&] { f.count.set(k); });
    }
    const std::string part = in_memory::encode(m.snapshot(), layout, 4);
    on_backend s(backend.open("count#0"), cache);
    EXPECT_THROW(s.restore(part, "another layout", 4, [](std::uint32_t) { return true; }),
                 std::runtime_error);
    EXPECT_EQ(rows_of(on_backend::encode(*s.snapshot(), layout, 4), 4).size(), 0u);
    EXPECT_EQ(s.restore(part, layout, 4, [](std::uint32_t group) { return group < 2; }) +
                  s.restore(part, layout, 4, [](std::uint32_t group) { return group >= 2; }),
              100u);
    try {
      s.restore(part, layout, 4, [](std::uint32_t group) { return group == 1; });
      FAIL() << "restored a key group twice";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("key group 1 restored twice"), std::string::npos)
          << e.what();
    }
    s.with_key("k50", f.tie(), [&] { f.count.set(-1); });
    try {
      s.restore(part, layout, 4, [](std::uint32_t) { return true; });
      FAIL() << "restored after an item";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("after the first item"), std::string::npos) << e.what();
    }
    const auto rows = rows_of(on_backend::encode(*s.snapshot(), layout, 4), 4);
    ASSERT_EQ(rows.size(), 100u);
    EXPECT_EQ(rows.at("k50").first, -1);
    EXPECT_EQ(rows.at("k51").first, 51);
  });
}

// A part larger than a restore batch (4 MiB) restores whole; restored again, its key groups
// are refused.
TEST(rocksdb_backend, a_large_part_restores_in_batches) {
  temp_dir dir;
  auto backend = small_rocksdb(dir.path);
  fields f;
  const std::string layout = in_memory::layout(f.tie());
  in_memory m;
  const std::string filler(100, 'x');
  for (int k = 0; k < 60'000; ++k) {
    m.with_key(named("k", k), f.tie(), [&] {
      f.count.set(k);
      f.words.add(filler);
    });
  }
  const std::string part = in_memory::encode(m.snapshot(), layout, 8);
  ASSERT_GT(part.size(), std::size_t{6} << 20);
  on_backend s(backend->open("count#0"), 0);
  EXPECT_EQ(s.restore(part, layout, 8, [](std::uint32_t) { return true; }), 60'000u);
  EXPECT_EQ(rows_of(on_backend::encode(*s.snapshot(), layout, 8), 8), rows_of(part, 8));
  EXPECT_THROW(s.restore(part, layout, 8, [](std::uint32_t) { return true; }), std::runtime_error);
}

// Tables of one backend under one replica name (two unnamed farms of one node type, two
// graphs) each get a directory of their own.
TEST(rocksdb_backend, tables_under_one_name_get_directories_of_their_own) {
  temp_dir dir;
  auto backend = small_rocksdb(dir.path);
  fields f;
  auto first = std::make_unique<on_backend>(backend->open("count#0"), 0);
  on_backend second(backend->open("count#0"), 0);
  on_backend third(backend->open("count:0"), 0);  // the same directory name, count_0
  on_backend fourth(backend->open("count_0"), 0);
  add(*first, f, "k", "a");
  add(second, f, "k", "b");
  add(second, f, "k", "c");
  EXPECT_EQ(std::get<0>(*first->find("k")), 1);
  EXPECT_EQ(std::get<0>(*second.find("k")), 2);
  EXPECT_TRUE(fs::exists(dir.path / "count#0"));
  EXPECT_TRUE(fs::exists(dir.path / "count#0~2"));
  EXPECT_TRUE(fs::exists(dir.path / "count_0"));
  EXPECT_TRUE(fs::exists(dir.path / "count_0~2"));
  first.reset();
  EXPECT_FALSE(fs::exists(dir.path / "count#0"));
  on_backend again(backend->open("count#0"), 0);  // the freed directory, empty
  EXPECT_FALSE(again.find("k").has_value());
}

// ---- graphs

TEST(rocksdb_backend, a_graph_counts_exactly_as_in_memory) {
  spate::runtime rt(runtime_with(workers(2)));
  const std::size_t n = 200'000;
  for (const std::size_t cache : {std::size_t{0}, std::size_t{16}, std::size_t{65536}}) {
    temp_dir dir;
    auto out = std::make_shared<highest_count::kept>();
    auto g = counting_job(n, out, std::nullopt, 3, small_rocksdb(dir.path, cache));
    g.run(rt);
    EXPECT_EQ(*out, expected(n)) << cache << " cached rows";
    EXPECT_TRUE(fs::is_empty(dir.path));  // the replicas' tables are deleted at the end
  }
}

// Cancelled after two checkpoints and started again, each time with another backend or
// replica count: the counts come out exact (a checkpoint is the same whichever wrote it).
TEST(rocksdb_backend, a_restart_resumes_exactly_from_either_backend_onto_either) {
  spate::runtime rt(runtime_with(workers(2)));
  const std::size_t n = 300'000;
  struct round {
    bool first_on_disk;
    bool second_on_disk;
    std::size_t second_replicas;
    std::size_t cached_rows;  // 16: fewer than the keys (101), rows evicted and read again
  };
  for (const round r : {round{true, true, 2, 65536}, round{true, true, 2, 16},
                        round{false, true, 3, 16}, round{true, false, 1, 0}}) {
    temp_dir checkpoints;
    temp_dir tables;
    const std::uint64_t id = run_until_checkpoints(
        rt, checkpoints.path, n, 2,
        r.first_on_disk ? small_rocksdb(tables.path, r.cached_rows) : nullptr);
    auto out = std::make_shared<highest_count::kept>();
    auto second = counting_job(
        n, out, flow::checkpoint_options{.directory = checkpoints.path}, r.second_replicas,
        r.second_on_disk ? small_rocksdb(tables.path, r.cached_rows) : nullptr);
    second.run(rt);
    const std::string what = std::string(r.first_on_disk ? "disk" : "memory") + " to " +
                             (r.second_on_disk ? "disk" : "memory") + ", " +
                             std::to_string(r.second_replicas) + " replicas, " +
                             std::to_string(r.cached_rows) + " cached rows";
    EXPECT_GE(second.checkpoints().restored_from, id) << what;
    EXPECT_EQ(*out, expected(n)) << what;
  }
}

// ---- faults

// The directory cannot be made (a file is in the way): the graph does not start, and the
// error names the directory and the OS reason.
TEST(rocksdb_backend, a_directory_that_cannot_be_made_fails_the_start_naming_it) {
  temp_dir dir;
  const fs::path file = dir.path / "a-file";
  std::ofstream(file) << "x";
  spate::runtime rt(runtime_with(workers(2)));
  auto out = std::make_shared<highest_count::kept>();
  auto g = counting_job(1'000, out, std::nullopt, 2, small_rocksdb(file / "tables"));
  try {
    g.run(rt);
    FAIL() << "started";
  } catch (const std::system_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((file / "tables").string()), std::string::npos) << what;
    EXPECT_NE(what.find("Not a directory"), std::string::npos) << what;
  }
}

// A second backend on a directory whose table is open (two graphs each with its own
// backend on one directory) is refused, naming the table; the first goes on.
TEST(rocksdb_backend, a_table_already_open_is_refused_by_name) {
  temp_dir dir;
  auto backend = small_rocksdb(dir.path);
  on_backend first(backend->open("count#0"));
  fields f;
  add(first, f, "k", "a");
  try {
    auto second = small_rocksdb(dir.path)->open("count#0");
    FAIL() << "opened twice";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'count#0'"), std::string::npos) << what;
    EXPECT_NE(what.find("lock"), std::string::npos) << what;
  }
  add(first, f, "k", "b");
  EXPECT_EQ(std::get<0>(*first.find("k")), 2);
}

namespace {

// A backend in memory whose tables fail on demand: the Nth put throws (a full disk), or
// every get returns bytes that do not decode.
struct failing_backend : state::keyed_state_backend {
  struct options {
    int fail_put_at = -1;
    bool corrupt_reads = false;
    std::size_t cached_rows = 0;
  };
  struct table : state::row_table {
    options o;
    std::map<std::string, std::string, std::less<>> rows;
    int puts = 0;
    explicit table(options opt) : o(opt) {}
    bool get(std::string_view key, std::string& value) override {
      const auto it = rows.find(key);
      if (it == rows.end()) return false;
      value = o.corrupt_reads ? std::string("\xff\xff\xff", 3) : it->second;
      return true;
    }
    void put(std::string_view key, std::string_view value) override {
      if (++puts == o.fail_put_at) {
        throw std::runtime_error("writing a row: No space left on device");
      }
      rows[std::string(key)] = std::string(value);
    }
    void erase(std::string_view key) override { rows.erase(std::string(key)); }
    void write(const batch& b) override {
      for (const auto& [k, v] : b.puts) put(k, v);
    }
    std::unique_ptr<state::row_snapshot> snapshot() override {
      struct copy : state::row_snapshot {
        std::map<std::string, std::string> rows;
        void for_each(const std::function<void(std::string_view, std::string_view)>& f) override {
          for (const auto& [k, v] : rows) f(k, v);
        }
      };
      auto c = std::make_unique<copy>();
      c->rows.insert(rows.begin(), rows.end());
      return c;
    }
  };
  options o;
  explicit failing_backend(options opt) : o(opt) {}
  std::unique_ptr<state::row_table> open(const std::string&) override {
    return std::make_unique<table>(o);
  }
  std::string describe() const override { return "failing"; }
  std::size_t cached_rows() const noexcept override { return o.cached_rows; }
};

// Runs the counting job on `backend` (with checkpoints into `checkpoints`, if given);
// returns the failure's text (empty: none).
std::string failure_of(std::shared_ptr<state::keyed_state_backend> backend,
                       const fs::path& checkpoints = {}) {
  spate::runtime rt(runtime_with(workers(2)));
  auto out = std::make_shared<highest_count::kept>();
  std::optional<flow::checkpoint_options> c;
  if (!checkpoints.empty()) {
    c = flow::checkpoint_options{.directory = checkpoints,
                                 .interval = std::chrono::milliseconds(5)};
  }
  auto g = counting_job(50'000, out, std::move(c), 2, std::move(backend));
  try {
    g.run(rt);
  } catch (const flow::node_error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

// The 1000th write fails: without a cache an item's, with 16 cached rows (of 101 keys) an
// eviction's; with a cache that holds every key, the first barrier's batch of changed rows.
TEST(rocksdb_backend, a_write_that_fails_fails_the_graph_naming_the_node_and_the_reason) {
  for (const std::size_t cache : {0, 16}) {
    const std::string what = failure_of(std::make_shared<failing_backend>(
        failing_backend::options{.fail_put_at = 1'000, .cached_rows = cache}));
    EXPECT_NE(what.find("counter#"), std::string::npos) << cache << ": " << what;
    EXPECT_NE(what.find("No space left on device"), std::string::npos) << what;
  }
  temp_dir checkpoints;
  const std::string what = failure_of(std::make_shared<failing_backend>(failing_backend::options{
                                          .fail_put_at = 1, .cached_rows = 1 << 20}),
                                      checkpoints.path);
  EXPECT_NE(what.find("counter#"), std::string::npos) << "at a barrier: " << what;
  EXPECT_NE(what.find("No space left on device"), std::string::npos) << what;
}

TEST(rocksdb_backend, a_row_that_does_not_decode_fails_the_graph_naming_the_byte) {
  for (const std::size_t cache : {0, 16}) {
    const std::string what = failure_of(std::make_shared<failing_backend>(
        failing_backend::options{.corrupt_reads = true, .cached_rows = cache}));
    EXPECT_NE(what.find("counter#"), std::string::npos) << cache << ": " << what;
    EXPECT_NE(what.find("at byte"), std::string::npos) << what;
  }
}
