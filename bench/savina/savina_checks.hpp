#pragma once
// The Savina concurrency and parallelism benchmarks' parameters, per-iteration results and
// result checks, free of any actor library: every implementation (spate's actors and
// reactors, CAF 0.17, CAF 1.1) uses the same `*_case`, so each must end with the same
// verified result. A case validates its parameters (usage_error) and computes its
// sequential reference before any actor exists. (The bndbuffer check reads a consumer's row
// only as far as it goes, so that a consumer that never exited fails the check instead of
// reading out of bounds.)
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "savina_support.hpp"
#include "savina_workloads.hpp"

namespace spate_bench::savina {

// ---------------------------------------------------------------- concdict
struct dict_result {
  std::uint64_t replies = 0, written_sum = 0;
  dictionary final_map;
};
struct concdict_case {
  explicit concdict_case(const bench_params& p)
      : workers(p.integer("workers")),
        messages(p.integer("messages")),
        write_percent(p.integer("write_percent")),
        prefill(valid(workers, messages, write_percent)),
        reference(workers, messages, write_percent) {}
  void check(const dict_result& result) const {
    reference.check("concdict", result.replies, result.written_sum, result.final_map);
  }
  std::int64_t workers, messages, write_percent;
  /// Every key mapped to itself (Savina's prefill; copied untimed here, timed in Savina).
  dictionary prefill;
  dictionary_reference reference;

 private:
  static dictionary valid(std::int64_t workers, std::int64_t messages, std::int64_t write_percent) {
    if (workers < 1 || messages < 1 || write_percent < 0 || write_percent > 100) {
      throw usage_error("concdict needs workers, messages >= 1 and 0 <= write_percent <= 100");
    }
    return prefilled_dictionary();
  }
};

// ---------------------------------------------------------------- concsll
struct list_result {
  std::uint64_t replies = 0;
  std::vector<std::uint32_t> final_values;
};
struct concsll_case {
  explicit concsll_case(const bench_params& p)
      : workers(p.integer("workers")),
        messages(p.integer("messages")),
        write_percent(p.integer("write_percent")),
        size_percent(p.integer("size_percent")) {
    if (workers < 1 || messages < 1 || write_percent < 0 || size_percent < 0 ||
        write_percent + size_percent > 100) {
      throw usage_error("concsll needs workers, messages >= 1 and write + size percent <= 100");
    }
    expected = expected_list(workers, messages, write_percent, size_percent);
  }
  void check(const list_result& result) const {
    require(result.replies == std::uint64_t(workers * messages), "concsll",
            std::to_string(result.replies) + " replies, expected " +
                std::to_string(workers * messages));
    require(result.final_values == expected, "concsll",
            "the list is not the sorted values written (" +
                std::to_string(result.final_values.size()) + " values, expected " +
                std::to_string(expected.size()) + ")");
  }
  std::int64_t workers, messages, write_percent, size_percent;
  std::vector<std::uint32_t> expected;
};

// ---------------------------------------------------------------- bndbuffer
struct bb_result {
  std::vector<std::vector<std::int64_t>> consumed_per_consumer;  ///< [consumer][producer]
  std::vector<std::int64_t> seq_sum_per_consumer;
  std::size_t max_pending = 0;
};
struct bndbuffer_case {
  explicit bndbuffer_case(const bench_params& p)
      : buffer(p.integer("buffer")),
        producers(p.integer("producers")),
        consumers(p.integer("consumers")),
        items(p.integer("items")),
        produce_cost(p.integer("produce_cost")),
        consume_cost(p.integer("consume_cost")) {
    if (producers < 1 || consumers < 1 || items < 0 || buffer <= producers) {
      throw usage_error(
          "bndbuffer needs producers, consumers >= 1, items >= 0 and "
          "buffer > producers (Savina holds buffer - producers items)");
    }
  }
  /// Savina's adjusted buffer size: what the manager holds before it stops asking.
  std::size_t adjusted_buffer() const { return std::size_t(buffer - producers); }
  bb_result new_result() const {
    bb_result result;
    result.consumed_per_consumer.resize(std::size_t(consumers));
    result.seq_sum_per_consumer.resize(std::size_t(consumers));
    return result;
  }
  void check(const bb_result& result) const {
    std::vector<std::int64_t> per_producer(static_cast<std::size_t>(producers));
    std::int64_t seq_sum = 0;
    for (std::size_t c = 0; c < std::size_t(consumers); ++c) {
      // A consumer that never ran its exit handler left its row empty: no item counted.
      const auto& row = result.consumed_per_consumer[c];
      for (std::size_t q = 0; q < per_producer.size() && q < row.size(); ++q) {
        per_producer[q] += row[q];
      }
      seq_sum += result.seq_sum_per_consumer[c];
    }
    for (std::size_t q = 0; q < per_producer.size(); ++q) {
      require(per_producer[q] == items, "bndbuffer",
              "producer " + std::to_string(q) + ": " + std::to_string(per_producer[q]) +
                  " items consumed, expected " + std::to_string(items));
    }
    require(seq_sum == producers * items * (items - 1) / 2, "bndbuffer",
            "an item was consumed twice and another never");
    require(result.max_pending <= std::size_t(buffer), "bndbuffer", "the buffer overflowed");
  }
  std::int64_t buffer, producers, consumers, items, produce_cost, consume_cost;
};

// ---------------------------------------------------------------- philosopher
struct ph_result {
  std::vector<std::int64_t> meals;
  std::int64_t denials = 0, conflicts = 0;
  bool forks_free_at_end = false;
};
struct philosopher_case {
  explicit philosopher_case(const bench_params& p)
      : count(p.integer("philosophers")), rounds(p.integer("rounds")) {
    if (count < 2 || rounds < 1) {
      throw usage_error("philosopher needs >= 2 philosophers, rounds >= 1");
    }
  }
  ph_result new_result() const {
    ph_result result;
    result.meals.resize(std::size_t(count));
    return result;
  }
  void check(const ph_result& result) const {
    for (std::size_t i = 0; i < result.meals.size(); ++i) {
      require(result.meals[i] == rounds, "philosopher",
              "philosopher " + std::to_string(i) + " ate " + std::to_string(result.meals[i]) +
                  " times, expected " + std::to_string(rounds));
    }
    require(result.conflicts == 0, "philosopher", "a fork was released that was not held");
    require(result.forks_free_at_end, "philosopher", "a fork is still held at the end");
  }
  std::int64_t count, rounds;
};

// ---------------------------------------------------------------- logmap
/// A series worker's answer to "get term": its last term and how many it computed.
struct lm_term {
  std::int32_t series = 0;
  double x = 0;
  std::int64_t terms = 0;
};
struct logmap_case {
  explicit logmap_case(const bench_params& p)
      : terms(p.integer("terms")), series(p.integer("series")), rate(p.number("rate")) {
    if (terms < 1 || series < 1) throw usage_error("logmap needs terms, series >= 1");
    expected = expected_logmap_sum(terms, series, rate);
  }
  void check(const std::vector<lm_term>& results) const {
    double sum = 0;
    for (const auto& r : results) {
      require(r.terms == terms, "logmap",
              "series " + std::to_string(r.series) + " computed " + std::to_string(r.terms) +
                  " terms, expected " + std::to_string(terms));
      sum += r.x;
    }
    require(sum == expected, "logmap", "the terms' sum differs from the sequential one");
  }
  std::int64_t terms, series;
  double rate, expected = 0;
};

// ---------------------------------------------------------------- banking
struct banking_case {
  explicit banking_case(const bench_params& p)
      : accounts(p.integer("accounts")), transactions(p.integer("transactions")) {
    if (accounts < 2 || transactions < 1) {
      throw usage_error("banking needs >= 2 accounts and >= 1 transaction");
    }
    transfers = bank_transfers(accounts, transactions);
    expected = expected_balances(accounts, transfers);
  }
  void check(const std::vector<std::int64_t>& balances) const {
    for (std::size_t i = 0; i < balances.size(); ++i) {
      require(balances[i] == expected[i], "banking",
              "account " + std::to_string(i) + " holds " + std::to_string(balances[i]) +
                  ", expected " + std::to_string(expected[i]));
    }
  }
  std::int64_t accounts, transactions;
  std::vector<transfer> transfers;
  std::vector<std::int64_t> expected;
};

// ---------------------------------------------------------------- trapezoid
struct trapezoid_case {
  explicit trapezoid_case(const bench_params& p)
      : pieces(p.integer("pieces")),
        workers(p.integer("workers")),
        left(p.number("left")),
        right(p.number("right")) {
    if (pieces < 1 || workers < 1 || !(right > left)) {
      throw usage_error("trapezoid needs pieces, workers >= 1 and right > left");
    }
    expected = expected_trapezoid(left, right, pieces, workers);
    // The integral over Savina's default interval (mpmath): the benchmark computes the right
    // thing, not only the same thing as its reference.
    if (left == 1 && right == 5 && pieces >= 1'000'000) {
      require(std::abs(expected - 0.27108075195307752) < 1e-6, "trapezoid",
              "the sequential reference is off the integral");
    }
  }
  void check(double area) const {
    require(area == expected, "trapezoid", "the area differs from the sequential one");
  }
  std::int64_t pieces, workers;
  double left, right, expected = 0;
};

// ---------------------------------------------------------------- nqueenk
struct nqueenk_case {
  explicit nqueenk_case(const bench_params& p)
      : workers(p.integer("workers")),
        size(p.integer("size")),
        threshold(p.integer("threshold")),
        limit(p.integer("limit")) {
    if (workers < 1 || size < 1 || size > std::int64_t(max_queens) || threshold < 0 || limit < 1) {
      throw usage_error("nqueenk needs workers >= 1, 1 <= size <= 16, threshold >= 0, limit >= 1");
    }
    // The number of solutions (OEIS A000170), and the sequential search must find it too.
    static constexpr std::int64_t known[] = {
        1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};
    const std::int64_t all = known[size - 1];
    require(count_queens(queens_board{}, std::int32_t(size)) == all, "nqueenk",
            "the sequential search disagrees with the known count");
    expected = std::min(all, limit);
  }
  void check(std::int64_t solutions) const {
    require(solutions == expected, "nqueenk",
            std::to_string(solutions) + " solutions, expected " + std::to_string(expected));
  }
  std::int64_t workers, size, threshold, limit, expected = 0;
};

// ---- radixsort
struct radixsort_case {
  explicit radixsort_case(const bench_params& p)
      : count(p.integer("n")),
        max_value(std::uint64_t(p.integer("max"))),
        seed(std::uint64_t(p.integer("seed"))) {
    if (count < 1 || max_value < 2) {
      throw usage_error("radixsort needs n >= 1 and max >= 2 (n=" + std::to_string(count) +
                        ", max=" + std::to_string(max_value) + ")");
    }
    bits = radix_bits(max_value);
    values = radix_values(count, max_value, seed);
    expected = values;
    std::sort(expected.begin(), expected.end());
  }
  void check(const std::vector<std::uint64_t>& sorted) const {
    require(sorted.size() == expected.size(), "radixsort",
            std::to_string(sorted.size()) + " values came out, expected " +
                std::to_string(expected.size()));
    require(sorted == expected, "radixsort", "the output is not the sorted input");
  }
  /// An order-sensitive digest of a sorted output (the reactor versions' `result`).
  static std::uint64_t digest(const std::vector<std::uint64_t>& sorted) {
    std::uint64_t d = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i) d += (std::uint64_t(i) * 2 + 1) * sorted[i];
    return d;
  }
  std::int64_t count;
  std::uint64_t max_value, seed;
  int bits = 0;  ///< stages in the chain
  std::vector<std::uint64_t> values, expected;
};

// ---- recmatmul
struct recmatmul_case {
  explicit recmatmul_case(const bench_params& p)
      : workers(p.integer("workers")), n(p.integer("n")), threshold(p.integer("threshold")) {
    if (workers < 1 || n < 1 || (n & (n - 1)) != 0 || threshold < 1) {
      throw usage_error("recmatmul needs workers >= 1, n a power of two, threshold >= 1 (workers=" +
                        std::to_string(workers) + ", n=" + std::to_string(n) +
                        ", threshold=" + std::to_string(threshold) + ")");
    }
  }
  /// The first work item: all of C = A·B.
  matmul_work whole() const { return {0, 0, 0, 0, 0, 0, n * n, std::int32_t(n)}; }
  void check(const matmul_data& data) const {
    require(data.product_right(), "recmatmul", "C is not A·B");
  }
  /// The sum of C's cells (exact: n·(n(n-1)/2)² when C is right; the `result` metric).
  static double sum(const matmul_data& data) {
    double s = 0;
    for (const double v : data.c) s += v;
    return s;
  }
  std::int64_t workers, n, threshold;
};

// ---- apsp
struct apsp_case {
  explicit apsp_case(const bench_params& p)
      : nodes(std::size_t(p.integer("nodes"))),
        block(std::size_t(p.integer("block"))),
        max_weight(p.integer("max_weight")) {
    if (nodes < 2 || block < 1 || nodes % block != 0 || nodes / block < 2 || max_weight < 1) {
      throw usage_error(
          "apsp needs nodes a multiple of block, at least two blocks a side, max_weight >= 1 "
          "(nodes=" +
          std::to_string(nodes) + ", block=" + std::to_string(block) +
          ", max_weight=" + std::to_string(max_weight) + ")");
    }
    side = nodes / block;
    graph = apsp_graph(nodes, max_weight);
    expected = floyd_warshall(graph, nodes);
  }
  void check(const std::vector<std::int64_t>& distances) const {
    require(distances == expected, "apsp", "the distances differ from sequential Floyd-Warshall");
  }
  /// The sum of all distances (the reactor versions' `result`).
  static std::int64_t sum(const std::vector<std::int64_t>& distances) {
    std::int64_t s = 0;
    for (const std::int64_t d : distances) s += d;
    return s;
  }
  std::size_t nodes, block, side = 0;  ///< side: blocks per row
  std::int64_t max_weight;
  std::vector<std::int64_t> graph, expected;
};

// ---- barber
/// What a barber iteration ends with; each field is written by one actor only (named), a
/// customer's slots by that customer, so that the check compares independent counts.
struct barber_result {
  std::vector<std::int64_t> haircuts;  ///< [customer id]: haircuts given (barber)
  std::vector<std::int64_t> cut;       ///< [customer id]: haircuts it saw end (the customer)
  std::vector<std::int64_t> returns;   ///< [customer id]: times it was turned away (the customer)
  std::int64_t returned = 0;           ///< Returned messages handled (factory)
  std::int64_t entries = 0;            ///< Enter messages handled (room)
  std::int64_t turned_away = 0;        ///< Full messages sent (room)
  std::int64_t max_waiting = 0;        ///< the most customers waiting at once (room)
  std::int64_t barber_units = 0;       ///< busy-wait units cutting (barber)
};
struct barber_case {
  explicit barber_case(const bench_params& p)
      : haircuts(p.integer("haircuts")),
        waiting_room(p.integer("waiting_room")),
        production_rate(p.integer("production_rate")),
        haircut_rate(p.integer("haircut_rate")) {
    if (haircuts < 1 || waiting_room < 1 || production_rate < 1 || haircut_rate < 1) {
      throw usage_error(
          "barber needs haircuts, waiting_room, production_rate, haircut_rate >= 1 "
          "(haircuts=" +
          std::to_string(haircuts) + ", waiting_room=" + std::to_string(waiting_room) +
          ", production_rate=" + std::to_string(production_rate) +
          ", haircut_rate=" + std::to_string(haircut_rate) + ")");
    }
    expected_barber_units = barber_total_units(barber_barber_random(), haircuts, haircut_rate);
  }
  barber_result new_result() const {
    barber_result result;
    result.haircuts.resize(std::size_t(haircuts));
    result.cut.resize(std::size_t(haircuts));
    result.returns.resize(std::size_t(haircuts));
    return result;
  }
  /// Every customer cut exactly once, by the barber's count and by its own; the room's
  /// arrivals are every customer's first visit and every return the customers report, and the
  /// room's, the factory's and the customers' counts of the returns agree. How many returns
  /// there are depends on the interleaving.
  void check(const barber_result& r) const {
    const auto customers = std::size_t(haircuts);
    require(r.haircuts.size() == customers && r.cut.size() == customers &&
                r.returns.size() == customers,
            "barber", "the result has no slot per customer");
    std::int64_t cut = 0, returns = 0;
    for (std::size_t i = 0; i < customers; ++i) {
      require(r.haircuts[i] == 1 && r.cut[i] == 1, "barber",
              "customer " + std::to_string(i) + " was cut " + std::to_string(r.haircuts[i]) +
                  " times by the barber's count and " + std::to_string(r.cut[i]) +
                  " by its own, expected 1");
      cut += r.cut[i];
      returns += r.returns[i];
    }
    require(cut == haircuts, "barber",
            std::to_string(cut) + " customers were cut, expected " + std::to_string(haircuts));
    require(r.entries == haircuts + returns, "barber",
            "the room saw " + std::to_string(r.entries) + " arrivals, expected " +
                std::to_string(haircuts) + " customers and the " + std::to_string(returns) +
                " returns they report");
    require(r.turned_away == returns && r.returned == returns, "barber",
            "the room turned " + std::to_string(r.turned_away) + " away, the factory sent " +
                std::to_string(r.returned) + " back, the customers report " +
                std::to_string(returns) + " returns");
    require(r.max_waiting <= waiting_room, "barber",
            std::to_string(r.max_waiting) + " customers waited in a room of " +
                std::to_string(waiting_room));
    require(r.barber_units == expected_barber_units, "barber",
            "the barber's busy waits differ from the generator's replay for " +
                std::to_string(haircuts) + " haircuts");
  }
  /// Savina's "customer attempts": every arrival at the room, first visits and returns.
  static std::int64_t attempts(const barber_result& r) { return r.entries; }
  std::int64_t haircuts, waiting_room, production_rate, haircut_rate;
  std::int64_t expected_barber_units = 0;
};

// ---- cigsmok
/// The rounds are counted on the smokers' side: the arbiter's own count is what ends the run.
struct cigsmok_result {
  std::vector<std::int64_t> smoked, units;  ///< [smoker], by that smoker: rounds smoked, units
};
struct cigsmok_case {
  explicit cigsmok_case(const bench_params& p)
      : rounds(p.integer("rounds")), smokers(p.integer("smokers")) {
    if (rounds < 1 || smokers < 1) {
      throw usage_error("cigsmok needs rounds, smokers >= 1 (rounds=" + std::to_string(rounds) +
                        ", smokers=" + std::to_string(smokers) + ")");
    }
    // Only the arbiter draws, once per round: its choices replayed give every smoker's share.
    expected_smoked.assign(std::size_t(smokers), 0);
    expected_units.assign(std::size_t(smokers), 0);
    random64 random = cigsmok_random(rounds, smokers);
    for (std::int64_t r = 0; r < rounds; ++r) {
      const smoke_choice c = next_smoke_choice(random, smokers);
      ++expected_smoked[std::size_t(c.smoker)];
      expected_units[std::size_t(c.smoker)] += c.units;
    }
  }
  cigsmok_result new_result() const {
    cigsmok_result result;
    result.smoked.resize(std::size_t(smokers));
    result.units.resize(std::size_t(smokers));
    return result;
  }
  void check(const cigsmok_result& r) const {
    require(r.smoked.size() == expected_smoked.size() && r.units.size() == expected_units.size(),
            "cigsmok", "the result has no slot per smoker");
    std::int64_t total = 0;
    for (std::size_t i = 0; i < expected_smoked.size(); ++i) {
      total += r.smoked[i];
      require(r.smoked[i] == expected_smoked[i] && r.units[i] == expected_units[i], "cigsmok",
              "smoker " + std::to_string(i) + " smoked " + std::to_string(r.smoked[i]) +
                  " times for " + std::to_string(r.units[i]) + " units, expected " +
                  std::to_string(expected_smoked[i]) + " for " + std::to_string(expected_units[i]));
    }
    require(total == rounds, "cigsmok",
            std::to_string(total) + " cigarettes smoked in " + std::to_string(rounds) + " rounds");
  }
  std::int64_t rounds, smokers;
  std::vector<std::int64_t> expected_smoked, expected_units;
};

// ---- fjcreate
struct fjcreate_case {
  explicit fjcreate_case(const bench_params& p) : n(p.integer("n")), share(compute(theta)) {
    if (n < 1) throw usage_error("fjcreate needs n >= 1 (n=" + std::to_string(n) + ")");
    require(std::abs(share - 0.22910191538134758) < 1e-12, "fjcreate",
            "the reference computation is off sin²(37.2)");
  }
  /// Savina's ForkJoinConfig.performComputation: what each worker computes once.
  static double compute(double angle) {
    const double s = std::sin(angle);
    return s * s;
  }
  /// `completed` workers reported, their results adding up to `total`.
  void check(std::int64_t completed, double total) const {
    require(completed == n, "fjcreate",
            std::to_string(completed) + " workers finished, expected " + std::to_string(n));
    require(std::abs(total - double(n) * share) <= 1e-9 * double(n), "fjcreate",
            "the workers' results add up to " + std::to_string(total) + ", expected " +
                std::to_string(double(n) * share));
  }
  static constexpr double theta = 37.2;  ///< Savina's argument
  std::int64_t n;
  double share;  ///< one worker's result
};

// ---- fib
struct fib_case {
  explicit fib_case(const bench_params& p) : n(p.integer("n")) {
    if (n < 0 || n > 40) throw usage_error("fib needs 0 <= n <= 40 (n=" + std::to_string(n) + ")");
    std::int64_t next = 1;
    for (std::int64_t i = 0; i < n; ++i) expected = std::exchange(next, expected + next);
    // Binet's closed form, exact in double this far: the iterative reference must agree.
    const double root5 = std::sqrt(5.0);
    require(std::llround(std::pow((1 + root5) / 2, double(n)) / root5) == expected, "fib",
            "the iterative reference disagrees with the closed form");
  }
  void check(std::int64_t result) const {
    require(result == expected, "fib",
            "fib(" + std::to_string(n) + ") = " + std::to_string(result) + ", expected " +
                std::to_string(expected));
  }
  std::int64_t n, expected = 0;
};

// ---- sieve
struct sieve_result {
  std::int64_t primes = 0;   ///< primes held by all the filters
  std::int64_t filters = 0;  ///< filters in the chain
  std::int64_t largest = 0;  ///< the last filter's last prime
};
struct sieve_case {
  explicit sieve_case(const bench_params& p)
      : limit(p.integer("limit")), local_primes(p.integer("local_primes")) {
    if (limit < 3 || local_primes < 1) {
      throw usage_error(
          "sieve needs limit >= 3, local_primes >= 1 (limit=" + std::to_string(limit) +
          ", local_primes=" + std::to_string(local_primes) + ")");
    }
    reference = primes_below(limit);
    if (limit == 100'000) {  // Savina's size: pi(10^5) = 9,592, the largest 99,991
      require(reference.count == 9'592 && reference.largest == 99'991, "sieve",
              "the sequential sieve is wrong");
    }
  }
  /// Every filter but the last holds local_primes primes.
  std::int64_t expected_filters() const {
    return (reference.count + local_primes - 1) / local_primes;
  }
  void check(const sieve_result& r) const {
    require(r.primes == reference.count, "sieve",
            std::to_string(r.primes) + " primes below " + std::to_string(limit) + ", expected " +
                std::to_string(reference.count));
    require(r.largest == reference.largest, "sieve",
            "the largest prime found is " + std::to_string(r.largest) + ", expected " +
                std::to_string(reference.largest));
    require(r.filters == expected_filters(), "sieve",
            std::to_string(r.filters) + " filters, expected " + std::to_string(expected_filters()));
  }
  std::int64_t limit, local_primes;
  prime_count reference;
};

// ---- uct
struct uct_case {
  explicit uct_case(const bench_params& p) {
    const auto max_nodes = p.integer("max_nodes"), avg_comp = p.integer("avg_comp"),
               stdev_comp = p.integer("stdev_comp"), binomial = p.integer("binomial"),
               urgent_percent = p.integer("urgent_percent");
    // binomial <= 255: the reactor version names a node by its path of child indices (bytes).
    if (binomial < 1 || binomial > 255 || max_nodes <= binomial || max_nodes > 100'000'000 ||
        avg_comp < 1 || avg_comp > 1'000'000 || stdev_comp > 1'000'000 || urgent_percent > 100) {
      throw usage_error(
          "uct needs 1 <= binomial <= 255, binomial < max_nodes <= 100000000, "
          "1 <= avg_comp <= 1000000, stdev_comp <= 1000000, urgent_percent <= 100 (max_nodes=" +
          std::to_string(max_nodes) + ", avg_comp=" + std::to_string(avg_comp) +
          ", stdev_comp=" + std::to_string(stdev_comp) + ", binomial=" + std::to_string(binomial) +
          ", urgent_percent=" + std::to_string(urgent_percent) + ")");
    }
    params = {std::int32_t(max_nodes), std::int32_t(avg_comp), std::int32_t(stdev_comp),
              std::int32_t(binomial), std::int32_t(urgent_percent)};
    expected_nodes = expected_uct_nodes(params);
  }
  /// `nodes`: in the tree at the end; `traversed`: nodes the traversal visited exactly once.
  void check(std::int64_t nodes, std::int64_t traversed) const {
    require(nodes == expected_nodes, "uct",
            std::to_string(nodes) + " nodes in the tree, expected " +
                std::to_string(expected_nodes) + " (the root's decisions replayed)");
    require(traversed == nodes, "uct",
            std::to_string(traversed) + " of the " + std::to_string(nodes) +
                " nodes were traversed exactly once");
  }
  /// `visits[id]`: how often node `id` (the root is 0) was traversed, each node counting its
  /// own. The tree's nodes are ids 0 .. expected_nodes - 1 (the root's grants replayed): each
  /// must have been traversed exactly once, and no other id at all.
  template <class Count>
  void check_traversal(const std::vector<Count>& visits) const {
    require(visits.size() >= std::size_t(expected_nodes), "uct",
            "no slot for each of the " + std::to_string(expected_nodes) + " nodes");
    for (std::size_t id = 0; id < visits.size(); ++id) {
      const int expected = id < std::size_t(expected_nodes) ? 1 : 0;
      if (int(visits[id]) == expected) continue;  // the message only for the first wrong id
      require(false, "uct",
              "node " + std::to_string(id) + " was traversed " + std::to_string(int(visits[id])) +
                  " times, expected " + std::to_string(expected) + " (the tree has " +
                  std::to_string(expected_nodes) + " nodes)");
    }
  }
  uct_params params{};
  std::int64_t expected_nodes = 0;
};

// ---- astar
struct astar_case {
  explicit astar_case(const bench_params& p)
      : workers(p.integer("workers")), side(p.integer("grid")), threshold(p.integer("threshold")) {
    if (workers < 1 || side < 2 || side > 248 || threshold < 1) {
      throw usage_error(
          "astar needs workers >= 1, 2 <= grid <= 248 (Savina's largest) and threshold >= 1 "
          "(workers=" +
          std::to_string(workers) + ", grid=" + std::to_string(side) +
          ", threshold=" + std::to_string(threshold) + ")");
    }
    grid = make_search_grid(std::int32_t(side));
    distance = search_distances(grid);
    reachable = std::count_if(distance.begin(), distance.end(), [](auto d) { return d >= 0; });
  }
  /// Hops of the shortest path from the origin to the target (-1: there is none).
  std::int32_t shortest() const { return distance[std::size_t(grid.target())]; }
  /// `found`: the run reported reaching the target; `parent_of(v)`: the node that claimed v
  /// (-1: none; the origin is its own). Which node claims which, and so the path, depends on
  /// the interleaving: every claim must follow an edge, and the path from the target back to
  /// the origin must exist exactly when the search says so, and be no shorter than the
  /// sequential search's; a search that ends without it must have claimed every node it can
  /// reach. Returns the path's hops (0 when there is none).
  template <class ParentOf>
  std::int64_t check(bool found, ParentOf parent_of) const {
    require(found == (shortest() >= 0), "astar",
            found ? "a path to an unreachable target was reported"
                  : "the target, " + std::to_string(shortest()) + " hops away, was not reached");
    std::int64_t claimed = 0;
    for (std::int32_t v = 0; v < grid.nodes(); ++v) {
      const std::int32_t by = parent_of(v);
      require(by == -1 || (v == search_grid::origin ? by == v : grid.edge(by, v)), "astar",
              "node " + std::to_string(v) + " was claimed from " + std::to_string(by) +
                  ", which has no edge to it");
      claimed += by != -1 || v == search_grid::origin;
    }
    if (!found) {
      require(claimed == reachable, "astar",
              "the search ended with " + std::to_string(claimed) + " of the " +
                  std::to_string(reachable) + " reachable nodes claimed");
      return 0;
    }
    std::int64_t hops = 0;
    for (std::int32_t v = grid.target(); v != search_grid::origin; v = parent_of(v)) {
      require(parent_of(v) >= 0, "astar",
              "the path from the target breaks off at node " + std::to_string(v));
      require(++hops <= grid.nodes(), "astar", "the path from the target has a cycle");
    }
    require(hops >= shortest(), "astar",
            "a path of " + std::to_string(hops) + " hops, shorter than the shortest (" +
                std::to_string(shortest()) + ")");
    return hops;
  }
  std::int64_t workers, side, threshold;
  search_grid grid;
  std::vector<std::int32_t> distance;  ///< hops from the origin (-1: unreachable)
  std::int64_t reachable = 0;          ///< nodes with a path from the origin
};

// ---- facloc
struct facloc_result {
  std::int64_t facilities = 0;  ///< Savina's count (facloc_facilities)
  std::int64_t customers = 0;   ///< customers the quadrants keep at the end
  std::uint64_t checksum = 0;   ///< the sum of their facloc_point_hash
};
struct facloc_case {
  explicit facloc_case(const bench_params& p)
      : points(p.integer("points")),
        grid(p.number("grid")),
        alpha(p.number("alpha")),
        seed(std::uint64_t(p.integer("seed"))) {
    if (points < 1 || !(grid > 0) || !(alpha > 0)) {
      throw usage_error(
          "facloc needs points >= 1, grid > 0 and alpha > 0 (points=" + std::to_string(points) +
          ", grid=" + std::to_string(grid) + ", alpha=" + std::to_string(alpha) + ")");
    }
    threshold = alpha * std::sqrt(2.0) * grid;  // Savina: ALPHA · F, F = √2 · GRID_SIZE
    random64 random(seed);
    for (std::int64_t n = 0; n < points; ++n) {
      expected_checksum += facloc_point_hash(facloc_customer(random, grid));
    }
    settled_facilities = settled_facloc_facilities(points, grid, threshold, seed);
  }
  /// What every run ends with, whatever the interleaving: each customer sent kept by exactly
  /// one quadrant, and between one facility and one per customer (a customer splits at most
  /// one quadrant).
  void check(const facloc_result& r) const {
    require(r.customers == points, "facloc",
            std::to_string(r.customers) + " customers kept, expected " + std::to_string(points));
    require(r.checksum == expected_checksum, "facloc",
            "the customers kept are not the customers sent");
    require(
        r.facilities >= 1 && r.facilities <= points, "facloc",
        std::to_string(r.facilities) + " facilities for " + std::to_string(points) + " customers");
  }
  /// A run that delivers every facility notice before the next customer arrives (the reactor
  /// version): exactly the sequential count too.
  void check_settled(const facloc_result& r) const {
    check(r);
    require(r.facilities == settled_facilities, "facloc",
            std::to_string(r.facilities) + " facilities, expected " +
                std::to_string(settled_facilities) + " (the sequential run)");
  }
  std::int64_t points;
  double grid, alpha;
  std::uint64_t seed;
  double threshold = 0;
  std::uint64_t expected_checksum = 0;
  std::int64_t settled_facilities = 0;
};

// ---- filterbank, piprecise, sor, quicksort, bitonicsort
/// A double as its shortest exact decimal form (for the checks' messages).
inline std::string exact_text(double v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::string(text, end);
}

// ---- filterbank
struct filterbank_case {
  explicit filterbank_case(const bench_params& p)
      : columns(p.integer("columns")),
        simulations(p.integer("simulations")),
        channels(p.integer("channels")) {
    // Savina takes 2 to 33 channels; the sink gets simulations - 2·columns + 2 values.
    if (columns < 2 || channels < 2 || channels > 33 || simulations < 2 * columns - 1) {
      throw usage_error(
          "filterbank needs columns >= 2, 2 <= channels <= 33 and simulations >= 2 * columns - 1 "
          "(columns=" +
          std::to_string(columns) + ", simulations=" + std::to_string(simulations) +
          ", channels=" + std::to_string(channels) + ")");
    }
    coefficients = filterbank_filters(channels, columns);
    expected = expected_filterbank(coefficients, columns, simulations);
  }
  /// Bit for bit: every stage computes in the reference's order (see expected_filterbank).
  /// At Savina's sizes every value is 0 (nonzero values need simulations >= 3·columns - 1).
  void check(const std::vector<double>& sink) const {
    require(sink.size() == expected.size(), "filterbank",
            std::to_string(sink.size()) + " values reached the sink, expected " +
                std::to_string(expected.size()));
    for (std::size_t i = 0; i < sink.size(); ++i) {
      require(sink[i] == expected[i], "filterbank",
              "sink value " + std::to_string(i) + " is " + exact_text(sink[i]) + ", expected " +
                  exact_text(expected[i]));
    }
  }
  /// The sum of the sink's values in order (the reactor versions' `result`).
  static double sum(const std::vector<double>& sink) {
    double s = 0;
    for (const double v : sink) s += v;
    return s;
  }
  std::int64_t columns, simulations, channels;
  filterbank_coefficients coefficients;
  std::vector<double> expected;
};

// ---- piprecise
/// The master's sum of the terms it received, in units of 10^-precision.
struct pi_sum {
  mpz_class sum;
  std::int64_t terms = 0;
};
struct piprecise_case {
  explicit piprecise_case(const bench_params& p)
      : workers(p.integer("workers")), precision(p.integer("precision")) {
    if (workers < 1 || precision < 1 || precision > 1'000'000) {
      throw usage_error("piprecise needs workers >= 1 and 1 <= precision <= 1000000 (workers=" +
                        std::to_string(workers) + ", precision=" + std::to_string(precision) + ")");
    }
    unit = power_of_ten(precision);
    expected = machin_pi(precision);
    // The reference's leading digits are π's (floor(π·10^49)), up to its last digit's rounding.
    const mpz_class known("31415926535897932384626433832795028841971693993751");
    const std::int64_t shown = std::min<std::int64_t>(precision, 49);
    const mpz_class lead = expected / power_of_ten(precision - shown);
    require(abs(lead - known / power_of_ten(49 - shown)) <= 1, "piprecise",
            "the sequential reference is not π");
  }
  /// Savina's first round of work: min(precision, 10·workers) terms.
  std::int64_t first_terms() const { return std::min(precision, 10 * workers); }
  /// Within what the roundings allow. Term k is off by at most 1/2 + 2/16^k units (the four
  /// quotients by 1/2 each before the division by 16^k, that one by 1/2), so `terms` of them
  /// by terms/2 + 2.2; the terms not summed, all after one of at most 1 unit, add under 0.1;
  /// the reference is off by 1/2. Measured: 17 units at 5,000 digits (bound 2,092).
  void check(const pi_sum& r) const {
    const mpz_class bound = r.terms / 2 + 4;
    const mpz_class off = abs(r.sum - expected);
    require(r.terms >= 1 && off <= bound, "piprecise",
            "the sum of " + std::to_string(r.terms) + " terms is " + off.get_str() +
                " units of 10^-" + std::to_string(precision) + " off π, more than the " +
                bound.get_str() + " its roundings allow");
  }
  std::int64_t workers, precision;
  mpz_class unit;      ///< 10^precision: 1 in the terms' units
  mpz_class expected;  ///< π · 10^precision, rounded
};

// ---- sor
struct sor_case {
  explicit sor_case(const bench_params& p) : size(p.integer("size")) {
    if (size < 2 || size > 2000) {
      throw usage_error("sor needs 2 <= size <= 2000 (size=" + std::to_string(size) + ")");
    }
    initial = sor_grid(size);
    for (const double v : sor_reference(initial, std::size_t(size))) {
      expected += v;
      magnitude += std::abs(v);
    }
    // Savina's sums for its sizes (SucOverRelaxConfig.REF_VAL), to Savina's tolerance: the
    // reference computes what Savina computes.
    static constexpr std::pair<std::int64_t, double> savina[] = {
        {20, 0.000003189420084871275}, {80, 0.001846644602759566},  {100, 0.0032099996270638005},
        {120, 0.0050869220175413146},  {150, 0.008496328291240363}, {200, 0.016479973604143234},
        {250, 0.026575660248076397}};
    for (const auto& [n, sum] : savina) {
      if (n == size) {
        require(std::abs(expected - sum) <= 1e-12, "sor",
                "the sequential reference is off Savina's sum for size " + std::to_string(n));
      }
    }
  }
  /// Every cell's value is the reference's, bit for bit (each adds its neighbours in
  /// sor_neighbours' order); the grid's sum adds them in another order, which moves a sum of n
  /// terms by at most (n - 1)·2^-53·Σ|v| (any order, Higham's bound); twice that is allowed.
  double tolerance() const { return double(size * size) * 0x1p-52 * magnitude; }
  void check(double total) const {
    require(std::abs(total - expected) <= tolerance(), "sor",
            "the grid's sum is " + exact_text(total) + ", expected " + exact_text(expected) +
                " within " + exact_text(tolerance()));
  }
  std::int64_t size;
  std::vector<double> initial;  ///< row-major
  double expected = 0, magnitude = 0;
};

// ---- quicksort, bitonicsort
/// A sorting benchmark's input, and its check: the output is sorted and is a permutation of
/// the input (as long, and equal to the input sorted sequentially).
struct sort_case {
  sort_case(const char* benchmark, std::int64_t n, std::int64_t max, std::int64_t seed)
      : benchmark(benchmark), input(sort_input(n, max, std::uint64_t(seed))), expected(input) {
    std::sort(expected.begin(), expected.end());
  }
  void check(const std::vector<std::int64_t>& output) const {
    require(output.size() == expected.size(), benchmark,
            std::to_string(output.size()) + " values came out, expected " +
                std::to_string(expected.size()));
    const auto unsorted = std::is_sorted_until(output.begin(), output.end());
    require(unsorted == output.end(), benchmark,
            "the output is not sorted: value " + std::to_string(unsorted - output.begin()) +
                " is less than the one before it");
    require(output == expected, benchmark,
            "the output is sorted but not a permutation of the input");
  }
  const char* benchmark;
  std::vector<std::int64_t> input, expected;
};
struct quicksort_case : sort_case {
  explicit quicksort_case(const bench_params& p)
      : sort_case("quicksort", valid(p), p.integer("max"), p.integer("seed")),
        threshold(p.integer("threshold")) {}
  std::int64_t threshold;  ///< below it a node sorts sequentially

 private:
  static std::int64_t valid(const bench_params& p) {
    const auto n = p.integer("n"), threshold = p.integer("threshold"), max = p.integer("max");
    if (n < 1 || threshold < 2 || max < 1) {
      throw usage_error(
          "quicksort needs n >= 1, threshold >= 2 and max >= 1 (n=" + std::to_string(n) +
          ", threshold=" + std::to_string(threshold) + ", max=" + std::to_string(max) + ")");
    }
    return n;
  }
};
struct bitonicsort_case : sort_case {
  explicit bitonicsort_case(const bench_params& p)
      : sort_case("bitonicsort", valid(p), p.integer("max"), p.integer("seed")) {}

 private:
  static std::int64_t valid(const bench_params& p) {
    const auto n = p.integer("n"), max = p.integer("max");
    if (n < 2 || (n & (n - 1)) != 0 || max < 1) {
      throw usage_error("bitonicsort needs n a power of two >= 2 and max >= 1 (n=" +
                        std::to_string(n) + ", max=" + std::to_string(max) + ")");
    }
    return n;
  }
};

}  // namespace spate_bench::savina
