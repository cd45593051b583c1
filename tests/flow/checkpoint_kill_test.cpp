// The proof of checkpoints (flow/checkpoints.hpp) against crashes: a stateful job
// (checkpoint_job.cpp: word count or Fraud Detection in keyed state, in memory or in
// RocksDB, or a windowed word count; a sink with state of its own) is killed
// with SIGKILL at random points, many times, and started again on the same checkpoint
// directory each time; its final output equals a run without checkpoints or failures,
// exactly. A kill may land anywhere: inside a part's write, between the parts and the
// manifest, in the middle of a restore.
//
// SPATE_KILL_ROUNDS sets the number of kills (default 12 for words, 8 for the others); a
// soak: SPATE_KILL_ROUNDS=500.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../../examples/apps/fraud_detection/fraud_detection.hpp"
#include "../temp_dir.hpp"

extern char** environ;

namespace fs = std::filesystem;
using spate::test::temp_dir;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Starts the job with its standard output (its announcements, see checkpoint_job.cpp) on
// `stdout_fd`, or on /dev/null when it is -1.
pid_t spawn_job(const std::vector<std::string>& args, int stdout_fd = -1) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  if (stdout_fd < 0) {
    ::posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  } else {
    ::posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  }
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("posix_spawn " + args[0] + ": " + std::strerror(rc));
  return pid;
}

// Reads the job's announcements from `fd` until it has said both that it started (its line
// in <output>.restores is written) and that a checkpoint is complete: the checkpoint it
// started from (0: none). Nothing when the job ended first (end of file). Blocks in read(): the
// job's exit ends the wait; a job that hangs hangs the test until CTest's timeout, as the last
// run of kill_and_compare would.
std::optional<std::uint64_t> wait_for_a_checkpoint(int fd) {
  std::string pending;
  std::optional<std::uint64_t> started;
  bool checkpointed = false;
  char buffer[4096];
  while (!(started && checkpointed)) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw std::runtime_error(std::string("reading the job's output: ") + std::strerror(errno));
    if (n == 0) return std::nullopt;
    pending.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t end; (end = pending.find('\n')) != std::string::npos;
         pending.erase(0, end + 1)) {
      if (pending.starts_with("started ")) started = std::stoull(pending.substr(8, end - 8));
      checkpointed |= pending.starts_with("checkpoint ");
    }
  }
  return started;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// The job's output equals the reference. Reported by its first differing line: gtest's diff
// of two multi-line strings this long would take tens of GB.
void expect_same_output(const std::string& actual, const std::string& expected) {
  if (actual == expected) return;
  std::istringstream a(actual), e(expected);
  std::string line_a, line_e;
  int line = 1;
  for (;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, line_a));
    const bool more_e = static_cast<bool>(std::getline(e, line_e));
    if (!more_a || !more_e || line_a != line_e) {
      ADD_FAILURE() << "the output differs from the failure-free run's at line " << line << ": '"
                    << (more_a ? line_a : "<end>") << "', expected '" << (more_e ? line_e : "<end>")
                    << "' (" << actual.size() << " bytes, expected " << expected.size() << ")";
      return;
    }
  }
}

// Kills the job (`app`, on `input`) `rounds` times at random points, then runs it to its
// end: its output must equal the failure-free run's (with the same `extra` arguments: a
// RocksDB directory). Each run resumes where the last checkpoint left it, so each kill lets the job
// progress. Even rounds kill at a random time, at most 2T/rounds after the start (T the
// failure-free run's time, so that the kills of all rounds together span about one run and
// most land in a run, not after its end): anywhere, in a restore too. Odd rounds kill at a random
// time after the job announced its start and a complete checkpoint, so every start after the first
// odd round restores from a checkpoint whatever the machine's speed: the kills are proven to land
// on restored runs, not only assumed to.
void kill_and_compare(const std::string& app, const fs::path& input, const std::string& ends_with,
                      const std::vector<std::string>& extra, int rounds) {
  const fs::path dir = input.parent_path();
  const std::string job = SPATE_CHECKPOINT_JOB;
  const fs::path reference = dir / "reference.txt";
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> reference_args{job, app, input, reference, "-", "0"};
  reference_args.insert(reference_args.end(), extra.begin(), extra.end());
  ASSERT_EQ(wait_for(spawn_job(reference_args)), 0);
  const auto run_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
  const auto latest_ms = std::max<long>(40, 20 + run_ms / std::max(rounds, 1));
  const std::string expected = read_all(reference);
  ASSERT_NE(expected.find(ends_with), std::string::npos) << expected.substr(0, 200);

  const fs::path output = dir / "output.txt";
  const fs::path checkpoints = dir / "checkpoints";
  std::vector<std::string> args{job, app, input, output, checkpoints, "10"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::mt19937 random(2026);
  int killed = 0;
  for (int r = 0; r < rounds; ++r) {
    int status = 0;
    if (r % 2 == 0) {
      const pid_t pid = spawn_job(args);
      std::this_thread::sleep_for(std::chrono::milliseconds(10 + random() % (latest_ms - 10)));
      ::kill(pid, SIGKILL);
      status = wait_for(pid);
    } else {
      int announcements[2];
      ASSERT_EQ(::pipe2(announcements, O_CLOEXEC), 0) << std::strerror(errno);
      const pid_t pid = spawn_job(args, announcements[1]);
      ::close(announcements[1]);
      std::optional<std::uint64_t> started_from;
      try {
        started_from = wait_for_a_checkpoint(announcements[0]);
      } catch (...) {
        ::kill(pid, SIGKILL);
        wait_for(pid);
        ::close(announcements[0]);
        throw;
      }
      if (started_from) {
        std::this_thread::sleep_for(std::chrono::milliseconds(random() % (latest_ms / 2)));
      }
      ::kill(pid, SIGKILL);
      status = wait_for(pid);
      ::close(announcements[0]);
      // The first such round sees a checkpoint complete; every later start restores one.
      if (r == 1) {
        EXPECT_TRUE(started_from.has_value()) << "the job ended before a checkpoint";
      } else if (started_from) {
        EXPECT_NE(*started_from, 0u) << "round " << r;
      }
    }
    if (WIFSIGNALED(status)) {
      ++killed;
    } else {
      ASSERT_EQ(status, 0) << "round " << r << ": the job failed";  // it finished first
    }
  }
  fs::remove(output);
  ASSERT_EQ(wait_for(spawn_job(args)), 0);
  expect_same_output(read_all(output), expected);

  // Kills landed in runs, and the runs restored from checkpoints (else the test proves
  // nothing about them): rounds 3, 5, ... and the last run, at least.
  EXPECT_GE(killed, rounds / 3) << "kills within " << latest_ms << " ms of a start";
  std::ifstream restores(output.string() + ".restores");
  int restored = 0;
  for (std::uint64_t id = 0; restores >> id;) restored += id != 0 ? 1 : 0;
  EXPECT_GE(restored, rounds / 2) << killed << " kills";
}

// `lines` lines of 6 words of 997.
fs::path words_input(const fs::path& dir, int lines) {
  const fs::path input = dir / "input.txt";
  std::ofstream out(input);
  std::mt19937 words(7);
  for (int line = 0; line < lines; ++line) {
    for (int w = 0; w < 6; ++w) out << (w ? " " : "") << "w" << words() % 997;
    out << '\n';
  }
  return input;
}

// 2,500,000 transactions of 1,000 cards (fraud_detection.hpp's generator).
fs::path fraud_input(const fs::path& dir) {
  namespace fd = apps::fraud_detection;
  const fs::path input = dir / "transactions.txt";
  std::ofstream out(input);
  for (const auto& line : fd::generate_lines(fd::markov_model::load(SPATE_FD_MODEL), 2'500'000, 11))
    out << line << '\n';
  return input;
}

int kill_rounds(int fallback) {
  const char* rounds = std::getenv("SPATE_KILL_ROUNDS");
  return rounds ? std::atoi(rounds) : fallback;
}

}  // namespace

TEST(checkpoint_kill, a_job_killed_at_random_points_ends_with_the_failure_free_result) {
  temp_dir dir("kill-test");
  kill_and_compare("words", words_input(dir.path, 500'000), "updates 3000000", {}, kill_rounds(12));
}

// With unaligned checkpoints: the lines, words and updates queued between the stages when
// a barrier overtook them are stored with the checkpoint and taken back once each.
TEST(checkpoint_kill, a_job_with_unaligned_checkpoints_killed_at_random_points_ends_the_same) {
  temp_dir dir("kill-test");
  kill_and_compare("words-unaligned", words_input(dir.path, 500'000), "updates 3000000", {},
                   kill_rounds(12));
}

// Fraud Detection: each card's recent states in keyed state, the alerts in the sink's.
TEST(checkpoint_kill, fraud_detection_killed_at_random_points_raises_the_same_alerts) {
  temp_dir dir("kill-test");
  kill_and_compare("fraud", fraud_input(dir.path), "alerts ", {}, kill_rounds(8));
}

// A windowed word count: the windows open in the workers, the emitter's watermark and the
// collector's results waiting for the other worker's all survive the kills.
TEST(checkpoint_kill, a_windowed_word_count_killed_at_random_points_counts_the_same_windows) {
  temp_dir dir("kill-test");
  kill_and_compare("windows", words_input(dir.path, 300'000), "windows ", {}, kill_rounds(8));
}

// The same with the keyed state in RocksDB: each start finds the tables a killed run left
// (clears them, restores from the checkpoint), and rows evicted from the cache of 64 go to
// RocksDB and come back between the barriers.
TEST(checkpoint_kill, a_job_with_state_in_rocksdb_killed_at_random_points_ends_the_same) {
  if (!SPATE_JOB_WITH_ROCKSDB) GTEST_SKIP() << "built without spate::rocksdb";
  temp_dir dir("kill-test");
  kill_and_compare("words", words_input(dir.path, 100'000), "updates 600000",
                   {(dir.path / "tables").string()}, kill_rounds(8));
}
