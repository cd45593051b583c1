// The proof of checkpoints (flow/checkpoints.hpp) against crashes: a stateful job
// (checkpoint_job.cpp: word count in keyed state, a sink with state of its own) is killed
// with SIGKILL at random points, many times, and started again on the same checkpoint
// directory each time; its final output equals a run without checkpoints or failures,
// exactly. A kill may land anywhere: inside a part's write, between the parts and the
// manifest, in the middle of a restore.
//
// SPATE_KILL_ROUNDS sets the number of kills (default 12); a soak: SPATE_KILL_ROUNDS=500.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

pid_t spawn_job(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (rc != 0) throw std::runtime_error("posix_spawn " + args[0] + ": " + std::strerror(rc));
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

struct temp_dir {
  fs::path path = fs::temp_directory_path() / ("spate-kill-test-" + std::to_string(::getpid()));
  temp_dir() { fs::create_directories(path); }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST(checkpoint_kill, a_job_killed_at_random_points_ends_with_the_failure_free_result) {
  temp_dir dir;
  const fs::path input = dir.path / "input.txt";
  {
    std::ofstream out(input);
    std::mt19937 words(7);
    for (int line = 0; line < 500'000; ++line) {
      for (int w = 0; w < 6; ++w) out << (w ? " " : "") << "w" << words() % 997;
      out << '\n';
    }
  }
  const std::string job = SPATE_CHECKPOINT_JOB;
  const fs::path reference = dir.path / "reference.txt";
  ASSERT_EQ(wait_for(spawn_job({job, input, reference, "-", "0"})), 0);
  const std::string expected = read_all(reference);
  ASSERT_NE(expected.find("updates 3000000"), std::string::npos);

  const char* rounds_env = std::getenv("SPATE_KILL_ROUNDS");
  const int rounds = rounds_env ? std::atoi(rounds_env) : 12;
  const fs::path output = dir.path / "output.txt";
  const fs::path checkpoints = dir.path / "checkpoints";
  std::mt19937 random(2026);
  int killed = 0;
  for (int r = 0; r < rounds; ++r) {
    const pid_t pid = spawn_job({job, input, output, checkpoints, "10"});
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + random() % 400));
    ::kill(pid, SIGKILL);
    const int status = wait_for(pid);
    if (WIFSIGNALED(status)) {
      ++killed;
    } else {
      ASSERT_EQ(status, 0) << "round " << r << ": the job failed";  // it finished first
    }
  }
  fs::remove(output);
  ASSERT_EQ(wait_for(spawn_job({job, input, output, checkpoints, "10"})), 0);
  EXPECT_EQ(read_all(output), expected);

  // The runs restored from checkpoints (else the test proves nothing about them).
  std::ifstream restores(output.string() + ".restores");
  int restored = 0;
  for (std::uint64_t id = 0; restores >> id;) restored += id != 0 ? 1 : 0;
  EXPECT_GE(restored, rounds / 2) << killed << " kills";
}
