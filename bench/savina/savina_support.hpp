#pragma once
// What the Savina benchmarks share, in every implementation: Savina's timing of an iteration
// (set-up and clean-up untimed), a seeded generator (spate uses its own, never Savina's:
// every implementation draws the same numbers), the checks' failure and the work functions
// whose cost the benchmarks prescribe.
#include <cmath>
#include <cstdint>
#include <future>
#include <stdexcept>
#include <string>

#include "../runner/measure.hpp"

namespace spate_bench::savina {

/// A benchmark whose result is wrong: the run fails naming what was wrong.
class check_failed : public std::runtime_error {
 public:
  check_failed(const std::string& benchmark, const std::string& what)
      : std::runtime_error(benchmark + ": result check failed: " + what) {}
};

/// Throws check_failed unless `ok`.
inline void require(bool ok, const std::string& benchmark, const std::string& what) {
  if (!ok) throw check_failed(benchmark, what);
}

/// splitmix64 (Steele, Lea and Flood, OOPSLA 2014): small, fast and the same everywhere.
/// Each actor seeds its own from (benchmark seed, actor index) at the start of an
/// iteration, so a replay outside the timed part draws the same numbers.
class random64 {
 public:
  explicit random64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) (n > 0; the modulo bias is below 2^-40 for the n used here).
  std::uint64_t below(std::uint64_t n) noexcept { return next() % n; }
  /// Uniform in (0, 1].
  double unit() noexcept { return double((next() >> 11) + 1) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

/// Savina's timing of one iteration: `setup(done)` creates the actors (untimed) and returns
/// the first send; the clock runs from that send until `done` is set; `teardown()` then
/// stops what is left and waits for it (untimed). Returns the seconds timed.
template <class Setup, class Teardown>
double timed_iteration(Setup setup, Teardown teardown) {
  std::promise<void> done;
  auto start = setup(&done);
  const auto begin = now_ns();
  start();
  done.get_future().wait();
  const double elapsed = double(now_ns() - begin) / 1e9;
  teardown();
  return elapsed;
}

/// bndbuffer's processItem (Savina's ProdConsBoundedBufferConfig): 100 * cost logarithms
/// of draws from a generator seeded afresh on each call, added to `current`. The amount
/// added is the same on every call; the work is what the benchmark prescribes.
inline double process_item(double current, std::int64_t cost) {
  random64 random(static_cast<std::uint64_t>(cost));
  double result = current;
  const std::int64_t draws = cost > 0 ? cost * 100 : 1;
  for (std::int64_t i = 0; i < draws; ++i) result += std::log(random.unit() + 0.01);
  return result;
}

/// logmap's step, x' = r * x * (1 - x), kept out of line so that every caller (the actors
/// and the sequential reference) evaluates it with the same instructions: the map is
/// chaotic, and one rounding difference grows to a different sum.
[[gnu::noinline]] inline double logistic_step(double rate, double x) {
  return rate * x * (1.0 - x);
}

/// trapezoid's integrand (Savina's TrapezoidalConfig.fx).
inline double trapezoid_f(double x) {
  const double a = std::sin(x * x * x - 1);
  const double b = x + 1;
  const double c = a / b;
  const double d = std::sqrt(1 + std::exp(std::sqrt(2 * x)));
  return c * d;
}

/// One worker's share of trapezoid: `pieces` trapezoids of width h from `left`. Out of line
/// for the same reason as logistic_step: its result is checked bit for bit against the
/// reference, so every caller must evaluate it with the same instructions.
[[gnu::noinline]] inline double trapezoid_area(double left, std::int64_t pieces, double h) {
  double area = 0;
  for (std::int64_t k = 0; k < pieces; ++k) {
    const double x = double(k) * h + left;
    area += 0.5 * (trapezoid_f(x) + trapezoid_f(x + h)) * h;
  }
  return area;
}

}  // namespace spate_bench::savina
