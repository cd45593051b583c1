// The checkpoint store (state/checkpoint_store.hpp): round trips, retirement, and every way
// a checkpoint on disk can be broken — each detected, named, and the previous complete one
// used instead; I/O errors name the path and the OS reason.
#include "spate/state/checkpoint_store.hpp"
#include "../temp_dir.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace {

namespace fs = std::filesystem;
using spate::state::checkpoint_manifest;
using spate::state::checkpoint_store;
using spate::test::temp_dir;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void spit(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Checkpoint `id` with parts a and b (their bytes name the checkpoint) and one extra.
checkpoint_manifest write_checkpoint(const checkpoint_store& store, std::uint64_t id,
                                     const std::string& fingerprint = "graph-1") {
  checkpoint_manifest m;
  m.id = id;
  m.created_ms = 1'700'000'000'000 + static_cast<std::int64_t>(id);
  m.fingerprint = fingerprint;
  m.key_groups = 128;
  std::string a = "state of a at ";
  a += std::to_string(id);
  m.parts.push_back(store.write_part(id, "a", a));
  m.parts.push_back(store.write_part(id, "b#1", std::string(1000, char('0' + id % 10))));
  std::string offset = "offset ";
  offset += std::to_string(id * 10);
  m.extras["source"] = offset;
  store.commit(m);
  return m;
}

// latest() after breaking checkpoint 2 with `breaker`: checkpoint 1, and one problem that
// contains `expected`.
void expect_fallback(const std::function<void(const fs::path& chk2)>& breaker,
                     const std::string& expected) {
  temp_dir dir;
  checkpoint_store store({.directory = dir.path});
  const auto first = write_checkpoint(store, 1);
  write_checkpoint(store, 2);
  breaker(store.checkpoint_directory(2));
  std::vector<std::string> problems;
  const auto found = store.latest("graph-1", problems);
  ASSERT_TRUE(found.has_value()) << expected;
  EXPECT_EQ(*found, first);
  ASSERT_EQ(problems.size(), 1u) << expected;
  EXPECT_NE(problems[0].find(expected), std::string::npos) << problems[0];
}

}  // namespace

TEST(checkpoint_store, a_committed_checkpoint_reads_back_exactly) {
  temp_dir dir;
  checkpoint_store store({.directory = dir.path});
  EXPECT_EQ(store.next_id(), 1u);
  const auto written = write_checkpoint(store, 1);
  std::vector<std::string> problems;
  const auto found = store.latest("graph-1", problems);
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(*found, written);
  EXPECT_EQ(store.read_part(*found, "a"), "state of a at 1");
  EXPECT_EQ(store.read_part(*found, "b#1"), std::string(1000, '1'));
  EXPECT_THROW((void)store.read_part(*found, "c"), std::invalid_argument);
  EXPECT_EQ(store.next_id(), 2u);
  // An empty part and a checkpoint without parts are fine.
  checkpoint_manifest empty{.id = 2, .fingerprint = "graph-1"};
  empty.parts.push_back(store.write_part(2, "nothing", ""));
  store.commit(empty);
  const auto with_empty_part = store.latest("graph-1", problems);
  ASSERT_TRUE(with_empty_part.has_value());
  EXPECT_EQ(store.read_part(*with_empty_part, "nothing").size(), 0u);
  checkpoint_manifest none{.id = 3, .fingerprint = "graph-1"};
  store.commit(none);
  const auto newest = store.latest("graph-1", problems);
  ASSERT_TRUE(newest.has_value());
  EXPECT_EQ(newest->id, 3u);
  EXPECT_TRUE(newest->parts.empty());
  EXPECT_TRUE(problems.empty());
}

TEST(checkpoint_store, retire_keeps_the_newest_and_the_one_asked_for) {
  temp_dir dir;
  checkpoint_store store({.directory = dir.path, .retain = 2});
  for (std::uint64_t id = 1; id <= 5; ++id) write_checkpoint(store, id);
  store.retire(/*keep=*/2);
  EXPECT_EQ(store.complete(), (std::vector<std::uint64_t>{2, 4, 5}));
  store.retire();
  EXPECT_EQ(store.complete(), (std::vector<std::uint64_t>{4, 5}));
  EXPECT_FALSE(fs::exists(store.checkpoint_directory(1)));
  EXPECT_EQ(store.next_id(), 6u);
}

// What a crash during a checkpoint leaves: parts without a MANIFEST, or a MANIFEST.tmp
// never renamed. The next store deletes them; the complete one before stays the latest.
TEST(checkpoint_store, a_crash_before_the_commit_leaves_nothing_a_restore_would_use) {
  temp_dir dir;
  {
    checkpoint_store store({.directory = dir.path});
    write_checkpoint(store, 1);
    store.write_part(2, "a", "half written");
    store.write_part(3, "a", "whole, manifest not renamed");
    spit(store.checkpoint_directory(3) / "MANIFEST.tmp", "SPATECKP partial");
  }
  checkpoint_store reopened({.directory = dir.path});
  EXPECT_FALSE(fs::exists(reopened.checkpoint_directory(2)));
  EXPECT_FALSE(fs::exists(reopened.checkpoint_directory(3)));
  EXPECT_EQ(reopened.complete(), (std::vector<std::uint64_t>{1}));
  std::vector<std::string> problems;
  const auto found = reopened.latest("graph-1", problems);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, 1u);
  EXPECT_TRUE(problems.empty());
}

TEST(checkpoint_store, a_truncated_part_is_skipped_naming_the_file) {
  expect_fallback(
      [](const fs::path& chk) {
        const auto bytes = slurp(chk / "part-b#1.bin");
        spit(chk / "part-b#1.bin", bytes.substr(0, 100));
      },
      "chk-000002/part-b#1.bin: truncated, 100 of ");
}

TEST(checkpoint_store, a_missing_part_is_skipped_naming_the_file) {
  expect_fallback([](const fs::path& chk) { fs::remove(chk / "part-a.bin"); },
                  "chk-000002/part-a.bin: missing (No such file or directory)");
}

TEST(checkpoint_store, a_corrupt_part_is_skipped_naming_the_file) {
  expect_fallback(
      [](const fs::path& chk) {
        auto bytes = slurp(chk / "part-b#1.bin");
        bytes[bytes.size() / 2] ^= 0x20;
        spit(chk / "part-b#1.bin", bytes);
      },
      "chk-000002/part-b#1.bin: checksum mismatch");
}

TEST(checkpoint_store, a_part_of_another_checkpoint_is_skipped) {
  expect_fallback(
      [](const fs::path& chk) {
        fs::copy_file(chk.parent_path() / "chk-000001" / "part-a.bin", chk / "part-a.bin",
                      fs::copy_options::overwrite_existing);
      },
      "chk-000002/part-a.bin: its header does not name checkpoint 2 and part 'a'");
}

TEST(checkpoint_store, a_manifest_of_another_format_is_skipped_naming_both_versions) {
  expect_fallback(
      [](const fs::path& chk) {
        auto bytes = slurp(chk / "MANIFEST");
        const std::uint32_t version = 9;
        bytes.replace(8, sizeof version, reinterpret_cast<const char*>(&version), sizeof version);
        spit(chk / "MANIFEST", bytes);
      },
      "chk-000002/MANIFEST: format 9, this build reads 1");
}

TEST(checkpoint_store, a_truncated_or_foreign_manifest_is_skipped) {
  expect_fallback(
      [](const fs::path& chk) {
        const auto bytes = slurp(chk / "MANIFEST");
        spit(chk / "MANIFEST", bytes.substr(0, bytes.size() - 3));
      },
      "chk-000002/MANIFEST: checksum mismatch");
  expect_fallback([](const fs::path& chk) { spit(chk / "MANIFEST", "{\"json\": true}"); },
                  "chk-000002/MANIFEST: not a spate checkpoint manifest");
}

TEST(checkpoint_store, a_checkpoint_of_another_graph_is_not_restored) {
  temp_dir dir;
  checkpoint_store store({.directory = dir.path});
  write_checkpoint(store, 1, "graph-1");
  write_checkpoint(store, 2, "graph-2");
  std::vector<std::string> problems;
  const auto found = store.latest("graph-1", problems);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, 1u);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("written by another graph (fingerprint 'graph-2'"), std::string::npos)
      << problems[0];
  EXPECT_FALSE(store.latest("graph-3", problems).has_value());
  EXPECT_EQ(problems.size(), 3u);
}

// A part changed after latest() checked it is refused when read.
TEST(checkpoint_store, read_part_checks_again) {
  temp_dir dir;
  checkpoint_store store({.directory = dir.path});
  write_checkpoint(store, 1);
  std::vector<std::string> problems;
  const auto found = store.latest("graph-1", problems);
  ASSERT_TRUE(found.has_value());
  spit(store.checkpoint_directory(1) / "part-a.bin", "short");
  try {
    (void)store.read_part(*found, "a");
    FAIL() << "expected runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("part-a.bin: truncated, 5 of "), std::string::npos)
        << e.what();
  }
}

// A full disk: the part's file is /dev/full, so the write fails with ENOSPC, named.
TEST(checkpoint_store, a_full_disk_fails_the_write_naming_the_file_and_the_reason) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  temp_dir dir;
  checkpoint_store store({.directory = dir.path});
  fs::create_directories(store.checkpoint_directory(1));
  fs::create_symlink("/dev/full", store.checkpoint_directory(1) / "part-a.bin");
  try {
    store.write_part(1, "a", std::string(100'000, 'x'));
    FAIL() << "expected system_error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOSPC);
    EXPECT_NE(std::string(e.what()).find("chk-000001/part-a.bin"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
}

TEST(checkpoint_store, misuse_is_refused) {
  temp_dir dir;
  spit(dir.path / "file", "x");
  try {
    checkpoint_store store({.directory = dir.path / "file" / "sub"});
    FAIL() << "expected system_error";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find("file/sub"), std::string::npos) << e.what();
  }
  EXPECT_THROW(checkpoint_store({.directory = ""}), std::invalid_argument);
  EXPECT_THROW(checkpoint_store({.directory = dir.path, .retain = 0}), std::invalid_argument);
  checkpoint_store store({.directory = dir.path / "ok"});
  EXPECT_THROW(store.write_part(1, "a/b", "x"), std::invalid_argument);
  EXPECT_THROW(store.write_part(1, "", "x"), std::invalid_argument);
  EXPECT_THROW(store.write_part(1, "..", "x"), std::invalid_argument);
}

// One store per directory: a second one would delete the first one's checkpoint in progress
// as incomplete.
TEST(checkpoint_store, a_second_store_on_the_directory_is_refused) {
  temp_dir dir;
  checkpoint_store first({.directory = dir.path});
  first.write_part(1, "a", "in progress");
  try {
    checkpoint_store second({.directory = dir.path});
    FAIL() << "expected system_error";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find("another checkpoint store has the directory open"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(fs::exists(first.checkpoint_directory(1) / "part-a.bin"));
}

// The commit point refuses a manifest whose parts are not all there as listed.
TEST(checkpoint_store, a_manifest_with_a_missing_or_changed_part_is_not_committed) {
  temp_dir dir;
  checkpoint_store store({.directory = dir.path});
  checkpoint_manifest m{.id = 1, .fingerprint = "graph-1"};
  m.parts.push_back(store.write_part(1, "a", "bytes"));
  m.parts.push_back({.name = "never-written", .file_size = 10, .checksum = 0});
  try {
    store.commit(m);
    FAIL() << "expected runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("part-never-written.bin is missing"), std::string::npos)
        << e.what();
  }
  m.parts.pop_back();
  m.parts[0].file_size += 1;
  EXPECT_THROW(store.commit(m), std::runtime_error);
  EXPECT_TRUE(store.complete().empty());
}

// Ids go up within a store, even past a removed checkpoint.
TEST(checkpoint_store, ids_are_not_given_twice) {
  temp_dir dir;
  checkpoint_store store({.directory = dir.path});
  const auto first = store.next_id();
  write_checkpoint(store, first);
  const auto second = store.next_id();
  store.write_part(second, "a", "aborted");
  store.remove(second);
  EXPECT_GT(store.next_id(), second);
}

// holds_checkpoints() (kafka::partitioned_job's check that a partition's checkpoints are in
// view) reads the directory without opening a store: no lock, nothing deleted; it counts
// complete checkpoints only.
TEST(checkpoint_store, holds_checkpoints_sees_complete_checkpoints_only) {
  temp_dir dir;
  const fs::path root = dir.path / "partition-3";
  EXPECT_FALSE(checkpoint_store::holds_checkpoints(root));  // not there
  {
    checkpoint_store store({.directory = root});
    EXPECT_FALSE(checkpoint_store::holds_checkpoints(root));  // its LOCK file only
    store.write_part(4, "a", "half written");  // incomplete: a store opened there deletes it
    EXPECT_FALSE(checkpoint_store::holds_checkpoints(root));
    write_checkpoint(store, 5);
    EXPECT_TRUE(checkpoint_store::holds_checkpoints(root)) << "checked while the store is open";
  }
  temp_dir other;
  spit(other.path / "chk-notanumber", "");
  fs::create_directory(other.path / "chk-x1");
  EXPECT_FALSE(checkpoint_store::holds_checkpoints(other.path));
  fs::create_directory(other.path / "chk-000001");
  EXPECT_FALSE(checkpoint_store::holds_checkpoints(other.path));  // no MANIFEST
  spit(other.path / "chk-000001" / "MANIFEST", "");
  EXPECT_TRUE(checkpoint_store::holds_checkpoints(other.path));
}
