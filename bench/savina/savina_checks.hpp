#pragma once
// The Savina concurrency and parallelism benchmarks' parameters, per-iteration results and
// result checks, free of any actor library: every implementation (spate's actors and
// reactors, CAF 0.17, CAF 1.1) uses the same `*_case`, so each must end with the same
// verified result. A case validates its parameters (usage_error) and computes its
// sequential reference before any actor exists. (The bndbuffer check reads a consumer's row
// only as far as it goes, so that a consumer that never exited fails the check instead of
// reading out of bounds.)
#include <algorithm>
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

}  // namespace spate_bench::savina
