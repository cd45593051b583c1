// Determinism, checked (issue: every ported test gives byte-identical output on 1, 2, 4 and 8
// workers in both scheduling modes, over many runs), sparse tags forced or not. Each registered LF
// program is run in fast mode (logical behaviour without waiting for physical time) under every
// configuration and its canonical value log compared with the first run's.
//
// CI runs SPATE_DETERMINISM_RUNS rounds (default 2; 1 under AddressSanitizer, whose build is
// there for memory errors, which one round meets as well as two); for a large count:
//   SPATE_DETERMINISM_RUNS=200 build/release/tests/test_reactor --gtest_filter='Determinism*'
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "lf_test_support.hpp"

namespace lf_test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr int default_rounds = 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int default_rounds = 1;
#else
constexpr int default_rounds = 2;
#endif
#else
constexpr int default_rounds = 2;
#endif

int rounds() {
  const char* text = std::getenv("SPATE_DETERMINISM_RUNS");
  return text == nullptr ? default_rounds : std::max(1, std::atoi(text));
}

TEST(Determinism, EveryPortedProgramGivesTheSameLogOnAnyWorkerCountAndMode) {
  std::size_t compared = 0;
  for (const registered_program& program : registry()) {
    if (!program.deterministic) continue;
    std::string reference;
    auto program_start = std::chrono::steady_clock::now();
    const int program_rounds = program.sleeps ? 1 : rounds();
    for (int round = 0; round < program_rounds; ++round) {
      for (std::size_t workers : {1, 2, 4, 8}) {
        if (program.sleeps && workers != 8) continue;  // 1 worker: 800 ms a tag
        // Levels mode (always sparse tags); precise mode with cone tags only, as it chooses,
        // and with sparse tags only.
        for (const auto& [mode, sparse] :
             {std::pair{scheduling_mode::levels, sparse_tags::automatic},
              std::pair{scheduling_mode::precise, sparse_tags::never},
              std::pair{scheduling_mode::precise, sparse_tags::automatic},
              std::pair{scheduling_mode::precise, sparse_tags::always}}) {
          std::string log;
          try {
            log = program.run(run_settings{workers, mode, true, sparse});
          } catch (const std::exception& e) {
            FAIL() << program.name << " on " << workers << " workers: " << e.what();
          }
          if (reference.empty()) {
            reference = log;
            continue;
          }
          ASSERT_EQ(log, reference)
              << program.name << " differs on " << workers << " workers in "
              << (mode == scheduling_mode::levels ? "levels" : "precise") << " mode, sparse "
              << int(sparse) << " (round " << round << ")";
          ++compared;
        }
      }
    }
    if (std::getenv("SPATE_DETERMINISM_TIMES"))
      std::fprintf(
          stderr, "%s %.3f s\n", program.name.c_str(),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - program_start).count());
  }
  EXPECT_GT(compared, 250u * static_cast<unsigned>(rounds()));
}

// The logs are not trivially equal: they hold what the programs computed.
TEST(Determinism, LogsRecordTheValuesPerTag) {
  for (const registered_program& program : registry()) {
    if (program.name != "DoubleReaction") continue;
    std::string log = program.run(run_settings{2, scheduling_mode::precise, true});
    EXPECT_NE(log.find("1000000000+0 main.d: Sum of inputs is: 4"), std::string::npos) << log;
    EXPECT_NE(log.find("10000000000+0 main.d: Sum of inputs is: 22"), std::string::npos) << log;
    return;
  }
  FAIL() << "DoubleReaction is not registered";
}

}  // namespace
}  // namespace lf_test
