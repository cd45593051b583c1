#pragma once
// Support for the ported Lingua Franca tests (tests/reactor/lf/): each LF test is a program
// whose reactions check the expected behaviour and call lf_fail(...) (LF's `exit(1)`), which
// throws, stops the program and makes environment::run() rethrow. Reactions also record
// what they saw in a log keyed by tag and reaction, so that runs with different worker
// counts and scheduling modes can be compared byte for byte (determinism_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "spate/exec/runtime.hpp"
#include "spate/reactor.hpp"

namespace lf_test {

using namespace spate::reactor;
using namespace std::chrono_literals;

struct check_failed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// LF's `std::cerr << ...; exit(1);`.
[[noreturn]] inline void lf_fail(const std::string& why) {
  throw check_failed(why);
}
inline void lf_check(bool ok, const std::string& why) {
  if (!ok) lf_fail(why);
}

// What reactions saw, per tag: sorted by (elapsed time, microstep, reaction), so concurrent
// reactions of one tag may record in any order and the log is still canonical.
class value_log {
 public:
  void record(const reactor& r, const std::string& what) {
    const tag t = r.current_tag();
    std::lock_guard lock(mutex_);
    entries_.emplace_back((t.time - r.start_time()).count(), t.step, r.fully_qualified_name(),
                          what);
  }
  std::string canonical() const {
    std::lock_guard lock(mutex_);
    auto sorted = entries_;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
             std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b));
    });
    std::ostringstream out;
    for (auto& [time, step, who, what] : sorted)
      out << time << '+' << step << ' ' << who << ": " << what << '\n';
    return out.str();
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::tuple<std::int64_t, microstep, std::string, std::string>> entries_;
};

// The log of the program being built (set by run_program for the program's constructors).
inline value_log*& current_log() {
  static value_log* log = nullptr;
  return log;
}
inline void note(const reactor& r, const std::string& what) {
  if (value_log* log = current_log()) log->record(r, what);
}
template <class T>
std::string str(const T& v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

struct run_settings {
  std::size_t workers = 2;
  scheduling_mode mode = scheduling_mode::precise;
  bool force_fast = false;  // determinism runs: logical behaviour without waiting
  sparse_tags sparse = sparse_tags::automatic;
};

// Runs a program's main reactor `Top` with the LF target properties `target`; returns the
// canonical value log. Throws what a reaction threw.
template <class Top, class... Args>
std::string run_program(environment_options target, const run_settings& settings, Args&&... args) {
  spate::runtime_config config;
  config.scheduler.threads = settings.workers;
  config.read_environment = false;
  spate::runtime rt{config};
  target.mode = settings.mode;
  target.sparse = settings.sparse;
  if (settings.force_fast) target.fast = true;
  value_log log;
  current_log() = &log;
  {
    environment env{rt, target};
    env.make_top<Top>("main", std::forward<Args>(args)...);
    env.run();
  }
  current_log() = nullptr;
  return log.canonical();
}

// Every ported program, for the determinism test: name, whether its log is deterministic
// (no physical time in it), and a runner.
struct registered_program {
  std::string name;
  bool deterministic;
  bool sleeps = false;  // reactions sleep on purpose: the sweep runs it fewer times
  std::function<std::string(const run_settings&)> run;
};
inline std::vector<registered_program>& registry() {
  static std::vector<registered_program> programs;
  return programs;
}
struct registrar {
  registrar(std::string name, bool deterministic,
            std::function<std::string(const run_settings&)> run, bool sleeps = false) {
    registry().push_back({std::move(name), deterministic, sleeps, std::move(run)});
  }
};

}  // namespace lf_test

// LF_TEST(Name, Top, target): a gtest that runs the program as LF's test runner does, and
// its registration for the determinism sweep. LF_TEST_PHYSICAL: the log depends on physical
// time (asynchronous callbacks, deadlines), so it is run but not compared.
#define LF_TEST_IMPL(Name, Top, target, deterministic, sleeps)                                 \
  static ::lf_test::registrar lf_registrar_##Name{                                             \
      #Name, deterministic,                                                                    \
      [](const ::lf_test::run_settings& s) { return ::lf_test::run_program<Top>(target, s); }, \
      sleeps};                                                                                 \
  TEST(LinguaFrancaCpp, Name) {                                                                \
    try {                                                                                      \
      ::lf_test::run_program<Top>(target, ::lf_test::run_settings{});                          \
    } catch (const std::exception& e) {                                                        \
      FAIL() << e.what();                                                                      \
    }                                                                                          \
  }
#define LF_TEST(Name, Top, target) LF_TEST_IMPL(Name, Top, target, true, false)
#define LF_TEST_PHYSICAL(Name, Top, target) LF_TEST_IMPL(Name, Top, target, false, false)
// Deterministic, but its reactions sleep (LF's tests of parallel speed-up).
#define LF_TEST_SLEEPING(Name, Top, target) LF_TEST_IMPL(Name, Top, target, true, true)
