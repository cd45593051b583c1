#pragma once
// The Savina benchmarks' inputs and their sequential references, shared by every
// implementation (spate actors, CAF): what each actor draws, and what a correct run must
// end with, computed outside the timed part. Sizes and protocols: docs/benchmarks.md.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gmpxx.h>  // piprecise's arbitrary precision (Debian: libgmp-dev)

#include "savina_support.hpp"

namespace spate_bench::savina {

// ---------------------------------------------------------------- concdict
/// Savina's key range, (2^31 - 1) / 4096: the dictionary starts with every key in it.
inline constexpr std::uint64_t dictionary_keys = 524'287;

struct dictionary_operation {
  bool write;
  std::uint64_t key, value;
};
/// Worker `worker`'s generator; its operations are drawn in order with next_operation.
inline random64 dictionary_random(std::int64_t worker) {
  return random64(0xD1C7'0000ull + std::uint64_t(worker));
}
inline dictionary_operation next_dictionary_operation(random64& random,
                                                      std::int64_t write_percent) {
  const bool write = std::int64_t(random.below(100)) < write_percent;
  const std::uint64_t key = random.below(dictionary_keys);
  return {write, key, write ? random.next() : 0};
}
using dictionary = std::unordered_map<std::uint64_t, std::uint64_t>;
/// Savina's starting dictionary: every key mapped to itself.
inline dictionary prefilled_dictionary() {
  dictionary d;
  d.reserve(dictionary_keys * 2);
  for (std::uint64_t k = 0; k < dictionary_keys; ++k) d.emplace(k, k);
  return d;
}
/// What a correct run ends with, replayed from the workers' generators.
class dictionary_reference {
 public:
  dictionary_reference(std::int64_t workers, std::int64_t messages, std::int64_t write_percent)
      : requests_(std::uint64_t(workers * messages)) {
    for (std::int64_t w = 0; w < workers; ++w) {
      random64 random = dictionary_random(w);
      for (std::int64_t m = 0; m < messages; ++m) {
        const auto op = next_dictionary_operation(random, write_percent);
        if (op.write) {
          written_sum_ += op.value;
          written_[op.key].push_back(op.value);
        }
      }
    }
  }
  /// Every request answered; the echoes of the writes add up to what was written; every key
  /// holds its prefilled value or one written to it (which one depends on the interleaving).
  void check(const std::string& benchmark, std::uint64_t replies, std::uint64_t echoed_sum,
             const dictionary& final_map) const {
    require(replies == requests_, benchmark,
            std::to_string(replies) + " replies, expected " + std::to_string(requests_));
    require(echoed_sum == written_sum_, benchmark,
            "the written values echoed do not add up to those written");
    require(final_map.size() == dictionary_keys, benchmark,
            "the dictionary holds " + std::to_string(final_map.size()) + " keys");
    for (const auto& [key, value] : final_map) {
      const auto it = written_.find(key);
      const bool ok = it == written_.end() ? value == key
                                           : std::find(it->second.begin(), it->second.end(),
                                                       value) != it->second.end();
      require(ok, benchmark, "key " + std::to_string(key) + " holds a value never written");
    }
  }

 private:
  std::uint64_t requests_, written_sum_ = 0;
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> written_;
};

// ---------------------------------------------------------------- concsll
enum class list_operation_kind : std::uint8_t { size, write, contains };
struct list_operation {
  list_operation_kind kind;
  std::uint32_t value;  ///< 16-bit values, as Savina's generator gives: the same hit/miss mix
};
inline random64 list_random(std::int64_t worker) {
  return random64(0x5011'0000ull + std::uint64_t(worker));
}
inline list_operation next_list_operation(random64& random, std::int64_t write_percent,
                                          std::int64_t size_percent) {
  const auto r = std::int64_t(random.below(100));
  const auto value = std::uint32_t(random.below(65'536));
  if (r < size_percent) return {list_operation_kind::size, 0};
  if (r < size_percent + write_percent) return {list_operation_kind::write, value};
  return {list_operation_kind::contains, value};
}
/// The values every worker writes, sorted: what the list must hold at the end.
inline std::vector<std::uint32_t> expected_list(std::int64_t workers, std::int64_t messages,
                                                std::int64_t write_percent,
                                                std::int64_t size_percent) {
  std::vector<std::uint32_t> values;
  for (std::int64_t w = 0; w < workers; ++w) {
    random64 random = list_random(w);
    for (std::int64_t m = 0; m < messages; ++m) {
      const auto op = next_list_operation(random, write_percent, size_percent);
      if (op.kind == list_operation_kind::write) values.push_back(op.value);
    }
  }
  std::sort(values.begin(), values.end());
  return values;
}

/// A sorted singly linked list: O(n) inserts, lookups and sizes, which is the work concsll
/// prescribes (a tree would change the benchmark).
class sorted_list {
 public:
  sorted_list() = default;
  sorted_list(const sorted_list&) = delete;
  sorted_list& operator=(const sorted_list&) = delete;
  ~sorted_list() {
    while (head_ != nullptr) delete std::exchange(head_, head_->next);
  }
  /// After the values equal to it (Savina's SortedLinkedList).
  void insert(std::uint32_t value) {
    node** at = &head_;
    while (*at != nullptr && (*at)->value <= value) at = &(*at)->next;
    *at = new node{value, *at};
  }
  /// A scan of the whole list on a miss, as Savina's contains.
  bool contains(std::uint32_t value) const {
    for (const node* n = head_; n != nullptr; n = n->next) {
      if (n->value == value) return true;
    }
    return false;
  }
  /// Counted by walking the list, as Savina's size.
  std::uint64_t size() const {
    std::uint64_t count = 0;
    for (const node* n = head_; n != nullptr; n = n->next) ++count;
    return count;
  }
  std::vector<std::uint32_t> values() const {
    std::vector<std::uint32_t> out;
    for (const node* n = head_; n != nullptr; n = n->next) out.push_back(n->value);
    return out;
  }

 private:
  struct node {
    std::uint32_t value;
    node* next;
  };
  node* head_ = nullptr;
};

// ---------------------------------------------------------------- banking
/// Integer amounts (Savina's doubles near 3.6e300 make every transfer a no-op: see
/// docs/benchmarks.md), so the final balances do not depend on the order of transfers.
inline constexpr std::int64_t initial_balance = 1'000'000'000'000;

struct transfer {
  std::int32_t from, to;  ///< to > from: an account waits only on higher ones (no deadlock)
  std::int64_t amount;
};
/// Savina's Teller: sources in the lower 80% of the accounts, destinations above them.
inline std::vector<transfer> bank_transfers(std::int64_t accounts, std::int64_t transactions) {
  random64 random(0xBA4C'0000ull);
  std::vector<transfer> out;
  out.reserve(std::size_t(transactions));
  const auto sources = std::max<std::int64_t>(1, accounts / 10 * 8);
  for (std::int64_t i = 0; i < transactions; ++i) {
    const auto from = std::int64_t(random.below(std::uint64_t(sources)));
    auto step = std::int64_t(random.below(std::uint64_t(accounts - from)));
    if (step == 0) step = 1;
    out.push_back(
        {std::int32_t(from), std::int32_t(from + step), std::int64_t(random.below(100'000)) + 1});
  }
  return out;
}
inline std::vector<std::int64_t> expected_balances(std::int64_t accounts,
                                                   const std::vector<transfer>& transfers) {
  std::vector<std::int64_t> balance(std::size_t(accounts), initial_balance);
  for (const auto& t : transfers) {
    balance[std::size_t(t.from)] -= t.amount;
    balance[std::size_t(t.to)] += t.amount;
  }
  return balance;
}

// ---------------------------------------------------------------- logmap
inline double series_rate(double start_rate, std::int64_t series) {
  return start_rate + 0.0025 * double(series);
}
inline double series_start(std::int64_t series) {
  return 0.0025 * double(series);
}
/// The sum of every series' last term, computed with the same step as the actors.
inline double expected_logmap_sum(std::int64_t terms, std::int64_t series, double start_rate) {
  double sum = 0;
  for (std::int64_t s = 0; s < series; ++s) {
    double x = series_start(s);
    const double rate = series_rate(start_rate, s);
    for (std::int64_t t = 0; t < terms; ++t) x = logistic_step(rate, x);
    sum += x;
  }
  return sum;
}

// ---------------------------------------------------------------- trapezoid
/// Worker `w`'s share, as Savina's Master splits [left, right].
struct trapezoid_share {
  double left, h;
  std::int64_t pieces;
};
inline trapezoid_share trapezoid_work(double left, double right, std::int64_t pieces,
                                      std::int64_t workers, std::int64_t w) {
  const double h = (right - left) / double(pieces);
  const double width = (right - left) / double(workers);
  const double wl = width * double(w) + left;
  const double wr = wl + width;
  return {wl, h, std::int64_t((wr - wl) / h)};
}
/// The workers' partial areas added in worker order, as the actors' results are.
inline double expected_trapezoid(double left, double right, std::int64_t pieces,
                                 std::int64_t workers) {
  double area = 0;
  for (std::int64_t w = 0; w < workers; ++w) {
    const auto s = trapezoid_work(left, right, pieces, workers, w);
    area += trapezoid_area(s.left, s.pieces, s.h);
  }
  return area;
}

// ---------------------------------------------------------------- radixsort
/// The values the source sends, in order: `count` draws below `max` from the seed.
inline std::vector<std::uint64_t> radix_values(std::int64_t count, std::uint64_t max,
                                               std::uint64_t seed) {
  random64 random(seed);
  std::vector<std::uint64_t> values(static_cast<std::size_t>(count));
  for (auto& v : values) v = random.below(max);
  return values;
}
/// The bits a radix chain needs for values below `max` (Savina: 60 for 2^60).
inline int radix_bits(std::uint64_t max) {
  int bits = 0;
  while (bits < 64 && (std::uint64_t(1) << bits) < max) ++bits;
  return std::max(bits, 1);
}

// ---------------------------------------------------------------- recmatmul
/// A = i in row i, B = j in column j, C = 0: then C = A·B has C[i][j] = n·i·j exactly.
struct matmul_data {
  std::size_t n;
  std::vector<double> a, b, c;  ///< row-major n × n
  explicit matmul_data(std::size_t n) : n(n), a(n * n), b(n * n), c(n * n, 0.0) {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        a[i * n + j] = double(i);
        b[i * n + j] = double(j);
      }
    }
  }
  /// Whether C holds A·B (every value an integer below 2^53: exact in double).
  bool product_right() const {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        if (c[i * n + j] != double(n) * double(i) * double(j)) return false;
      }
    }
    return true;
  }
};
/// A block of C = A·B to compute: rows and columns of A, B and C where it starts, its number
/// of cells (blocks) and its side (Savina's MatMul work item).
struct matmul_work {
  std::int32_t sr_a, sc_a, sr_b, sc_b, sr_c, sc_c;
  std::int64_t blocks;
  std::int32_t dim;
};
/// The eight quarter products of a block too big to compute at once (Savina's split).
inline std::array<matmul_work, 8> split_matmul(const matmul_work& w) {
  const std::int32_t d = w.dim / 2;
  const std::int64_t blocks = w.blocks / 4;
  auto at = [&](std::int32_t ar, std::int32_t ac, std::int32_t br, std::int32_t bc, std::int32_t cr,
                std::int32_t cc) {
    return matmul_work{w.sr_a + ar, w.sc_a + ac, w.sr_b + br, w.sc_b + bc,
                       w.sr_c + cr, w.sc_c + cc, blocks,      d};
  };
  return {at(0, 0, 0, 0, 0, 0), at(0, d, d, 0, 0, 0), at(0, 0, 0, d, 0, d), at(0, d, d, d, 0, d),
          at(d, 0, 0, 0, d, 0), at(d, d, d, 0, d, 0), at(d, 0, 0, d, d, d), at(d, d, d, d, d, d)};
}
/// A leaf: C += A·B on the block, in Savina's loop order (B walked by column).
inline void multiply_block(matmul_data& m, const matmul_work& w) {
  const std::size_t n = m.n;
  for (std::int32_t i = w.sr_c; i < w.sr_c + w.dim; ++i) {
    for (std::int32_t j = w.sc_c; j < w.sc_c + w.dim; ++j) {
      double sum = m.c[std::size_t(i) * n + std::size_t(j)];
      for (std::int32_t k = 0; k < w.dim; ++k) {
        sum += m.a[std::size_t(i) * n + std::size_t(w.sc_a + k)] *
               m.b[std::size_t(w.sr_b + k) * n + std::size_t(j)];
      }
      m.c[std::size_t(i) * n + std::size_t(j)] = sum;
    }
  }
}
/// Savina's routing: every contribution to one block of C goes to the same worker, so no two
/// workers add into the same cells.
inline std::size_t matmul_worker(const matmul_work& w, std::size_t workers) {
  return std::size_t(w.sr_c + w.sc_c) % workers;
}

// ---------------------------------------------------------------- apsp
/// A complete graph of `nodes` with weights in [1, max_weight], as a row-major distance
/// matrix (0 on the diagonal).
inline std::vector<std::int64_t> apsp_graph(std::size_t nodes, std::int64_t max_weight) {
  random64 random(0xA959'0000ull + nodes);
  std::vector<std::int64_t> d(nodes * nodes, 0);
  for (std::size_t i = 0; i < nodes; ++i) {
    for (std::size_t j = i + 1; j < nodes; ++j) {
      d[i * nodes + j] = d[j * nodes + i] =
          std::int64_t(random.below(std::uint64_t(max_weight))) + 1;
    }
  }
  return d;
}
/// Sequential Floyd–Warshall: the reference the blocked, distributed one must equal.
inline std::vector<std::int64_t> floyd_warshall(std::vector<std::int64_t> d, std::size_t nodes) {
  for (std::size_t k = 0; k < nodes; ++k) {
    for (std::size_t i = 0; i < nodes; ++i) {
      for (std::size_t j = 0; j < nodes; ++j) {
        d[i * nodes + j] = std::min(d[i * nodes + j], d[i * nodes + k] + d[k * nodes + j]);
      }
    }
  }
  return d;
}
/// One iteration of blocked Floyd–Warshall on a block of side b: its values relaxed through
/// node k, whose distances from this block's rows are column `offset` of `row_k` (the block
/// in this block-row holding column k) and to its columns row `offset` of `column_k`.
inline std::vector<std::int64_t> apsp_relax(const std::vector<std::int64_t>& block,
                                            const std::vector<std::int64_t>& row_k,
                                            const std::vector<std::int64_t>& column_k,
                                            std::size_t offset, std::size_t b) {
  std::vector<std::int64_t> next(b * b);
  for (std::size_t i = 0; i < b; ++i) {
    for (std::size_t j = 0; j < b; ++j) {
      next[i * b + j] =
          std::min(block[i * b + j], row_k[i * b + offset] + column_k[offset * b + j]);
    }
  }
  return next;
}
/// Block (row, column)'s cells out of a row-major matrix.
inline std::vector<std::int64_t> apsp_block(const std::vector<std::int64_t>& d, std::size_t nodes,
                                            std::size_t block, std::size_t row,
                                            std::size_t column) {
  std::vector<std::int64_t> out(block * block);
  for (std::size_t i = 0; i < block; ++i) {
    for (std::size_t j = 0; j < block; ++j) {
      out[i * block + j] = d[(row * block + i) * nodes + column * block + j];
    }
  }
  return out;
}

// ---------------------------------------------------------------- nqueenk
inline constexpr std::size_t max_queens = 16;
/// A partial board: queen `row` stands in column columns[row], for rows below `depth`.
struct queens_board {
  std::array<std::int8_t, max_queens> columns{};
  std::int32_t depth = 0;
};
/// Whether the queen in the last row attacks none before it (Savina's boardValid).
inline bool last_queen_safe(const queens_board& b) {
  const int row = b.depth - 1, column = b.columns[std::size_t(row)];
  for (int r = 0; r < row; ++r) {
    const int c = b.columns[std::size_t(r)];
    if (c == column || c - column == row - r || column - c == row - r) return false;
  }
  return true;
}
/// Solutions below `b` (a valid board of `depth` rows), searched sequentially.
inline std::int64_t count_queens(queens_board b, std::int32_t size) {
  if (b.depth == size) return 1;
  std::int64_t solutions = 0;
  ++b.depth;
  for (int c = 0; c < size; ++c) {
    b.columns[std::size_t(b.depth - 1)] = std::int8_t(c);
    if (last_queen_safe(b)) solutions += count_queens(b, size);
  }
  return solutions;
}

// ---- busy_wait (barber, cigsmok)
/// Savina's busyWait(units): `units` draws of a generator. The draws are folded into the
/// result, which the caller keeps, so the compiler cannot drop the loop. (A splitmix64 step
/// costs less than the JVM's Math.random(): the amount of work is Savina's, its unit ours.)
inline std::uint64_t busy_wait(std::int64_t units, std::uint64_t seed) {
  random64 random(seed);
  std::uint64_t folded = 0;
  for (std::int64_t k = 0; k < units; ++k) folded ^= random.next();
  return folded;
}

// ---- barber
/// The factory draws one busy-wait amount per customer it sends, the barber one per haircut,
/// each from its own generator: the sequences do not depend on the interleaving.
inline random64 barber_factory_random() {
  return random64(0xBA5B'E500'0001ull);
}
inline random64 barber_barber_random() {
  return random64(0xBA5B'E500'0002ull);
}
/// Savina's busyWait(random.nextInt(rate) + 10).
inline std::int64_t barber_busy_units(random64& random, std::int64_t rate) {
  return std::int64_t(random.below(std::uint64_t(rate))) + 10;
}
/// The busy-wait units of the first `draws` amounts of `random` (the reference for a factory
/// that sent `draws` customers, or a barber that cut `draws` times).
inline std::int64_t barber_total_units(random64 random, std::int64_t draws, std::int64_t rate) {
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < draws; ++i) total += barber_busy_units(random, rate);
  return total;
}

// ---- cigsmok
/// One round: the smoker the arbiter wakes and how long that smoker smokes (Savina:
/// |nextInt()| mod smokers, then nextInt(1000) + 10).
struct smoke_choice {
  std::int64_t smoker, units;
};
/// The arbiter's generator, seeded by rounds × smokers as Savina's is.
inline random64 cigsmok_random(std::int64_t rounds, std::int64_t smokers) {
  return random64(0xC165'0000'0000ull + std::uint64_t(rounds * smokers));
}
inline smoke_choice next_smoke_choice(random64& random, std::int64_t smokers) {
  const auto smoker = std::int64_t(random.below(std::uint64_t(smokers)));
  return {smoker, std::int64_t(random.below(1000)) + 10};
}

// ---- sieve
struct prime_count {
  std::int64_t count = 0, largest = 0;
};
/// The primes below `limit` by a sequential sieve of Eratosthenes (limit >= 3).
inline prime_count primes_below(std::int64_t limit) {
  std::vector<bool> composite(static_cast<std::size_t>(limit), false);
  prime_count out;
  for (std::int64_t i = 2; i < limit; ++i) {
    if (composite[std::size_t(i)]) continue;
    ++out.count;
    out.largest = i;
    for (std::int64_t j = i * i; j < limit; j += i) composite[std::size_t(j)] = true;
  }
  return out;
}

// ---- filterbank
/// Savina's coefficients (FilterBankConfig): channel j's first FIR filter has the taps h[j],
/// its second f[j], `columns` each. Every one is an integer below 2^53, exact in double.
struct filterbank_coefficients {
  std::vector<std::vector<double>> h, f;
};
inline filterbank_coefficients filterbank_filters(std::int64_t channels, std::int64_t columns) {
  filterbank_coefficients c;
  c.h.assign(std::size_t(channels), std::vector<double>(std::size_t(columns)));
  c.f = c.h;
  for (std::int64_t j = 0; j < channels; ++j) {
    for (std::int64_t i = 0; i < columns; ++i) {
      c.h[std::size_t(j)][std::size_t(i)] = double(i * columns + j * channels + 2 * j + i + 1);
      c.f[std::size_t(j)][std::size_t(i)] = double(i * j + j * j + j + i);
    }
  }
  return c;
}
/// What the source sends for simulation t: Savina's source counts modulo 1000.
inline double filterbank_source(std::int64_t t) {
  return double(t % 1000);
}
// The stages of a channel. Each takes one value and says whether it gives one (`out`).
/// Savina's Delay: gives the value it took `length` values before (zeros at first).
class fb_delay {
 public:
  explicit fb_delay(std::int64_t length) : state_(std::size_t(length), 0.0) {}
  bool push(double in, double& out) {
    out = std::exchange(state_[at_], in);
    at_ = (at_ + 1) % state_.size();
    return true;
  }

 private:
  std::vector<double> state_;
  std::size_t at_ = 0;
};
/// Savina's FirFilter: a ring of the last taps.size() values; once it is full, every value
/// gives Σ ring[i] · taps[size - 1 - i] over the ring's positions i in ascending order (not
/// in the order the values came). The order of the additions is the result's: keep it.
class fb_fir {
 public:
  explicit fb_fir(const std::vector<double>& taps) : taps_(&taps), ring_(taps.size(), 0.0) {}
  bool push(double in, double& out) {
    ring_[at_] = in;
    if (++at_ == ring_.size()) {
      at_ = 0;
      full_ = true;
    }
    if (!full_) return false;
    const std::size_t size = ring_.size();
    const double* taps = taps_->data();
    double sum = 0;
    for (std::size_t i = 0; i < size; ++i) sum += ring_[i] * taps[size - 1 - i];
    out = sum;
    return true;
  }

 private:
  const std::vector<double>* taps_;
  std::vector<double> ring_;
  std::size_t at_ = 0;
  bool full_ = false;
};
/// Savina's SampleFilter: passes the first of every `rate` values and gives 0 for the others.
class fb_sampler {
 public:
  explicit fb_sampler(std::int64_t rate) : rate_(rate) {}
  bool push(double in, double& out) {
    out = count_ == 0 ? in : 0.0;
    count_ = (count_ + 1) % rate_;
    return true;
  }

 private:
  std::int64_t rate_, count_ = 0;
};
/// What the sink receives, computed without the pipeline (delay, FIR h, sample, delay,
/// FIR f per channel; the channels added in ascending order from 0, as Combine adds them).
/// With C = columns: the sampler zeroes all but the first FIR's outputs 0, C, 2C, …, so only
/// those are computed (each in the filter's own order), and after the second delay each
/// window of the second FIR — C consecutive values — holds at most one of them: its output
/// is that one product. The pipeline adds +0.0 terms besides (every value here is >= 0, so
/// no -0.0 arises), which changes no bit: its output must equal this one exactly.
inline std::vector<double> expected_filterbank(const filterbank_coefficients& c,
                                               std::int64_t columns, std::int64_t simulations) {
  const auto taps = std::size_t(columns), lag = taps - 1;  // the sample rate is `taps` too
  const auto n = std::size_t(simulations);
  const std::size_t first_outputs = n >= taps ? n - taps + 1 : 0;
  const std::size_t sink_values = first_outputs >= taps ? first_outputs - taps + 1 : 0;
  std::vector<double> sink(sink_values, 0.0), channel(sink_values);
  for (std::size_t j = 0; j < c.h.size(); ++j) {
    std::fill(channel.begin(), channel.end(), 0.0);
    // The first FIR's sampled output m reaches the second FIR as its input m + lag.
    for (std::size_t m = 0; m + lag < first_outputs; m += taps) {
      // Output m's ring holds the delayed inputs m … m + lag, input u at position u mod taps.
      double y = 0;
      for (std::size_t i = 0; i < taps; ++i) {
        const std::size_t u = m + (i + taps - m % taps) % taps;
        const double delayed = u >= lag ? filterbank_source(std::int64_t(u - lag)) : 0.0;
        y += delayed * c.h[j][taps - 1 - i];
      }
      // The second FIR's outputs m … m + lag have input m + lag in their window.
      const std::size_t at = m + lag;
      const double product = y * c.f[j][taps - 1 - at % taps];
      for (std::size_t q = m; q <= at && q < sink_values; ++q) channel[q] = product;
    }
    for (std::size_t q = 0; q < sink_values; ++q) sink[q] += channel[q];
  }
  return sink;
}

// ---- piprecise
/// n / d rounded to the nearest integer, ties to even (BigDecimal's HALF_EVEN); n, d > 0.
inline mpz_class divide_half_even(const mpz_class& n, const mpz_class& d) {
  mpz_class q, r;
  mpz_fdiv_qr(q.get_mpz_t(), r.get_mpz_t(), n.get_mpz_t(), d.get_mpz_t());
  const int twice_r = cmp(mpz_class(2 * r), d);
  if (twice_r > 0 || (twice_r == 0 && mpz_odd_p(q.get_mpz_t()) != 0)) ++q;
  return q;
}
/// Savina's BBP term k (PiPrecisionConfig.calculateBbpTerm) in units of 10^-scale, `unit`
/// being 10^scale: (4/(8k+1) - 2/(8k+4) - 1/(8k+5) - 1/(8k+6)) / 16^k with every quotient
/// rounded to scale decimals, the last one a long division by the exact 16^k (Savina's cost).
inline mpz_class bbp_term(const mpz_class& unit, std::int64_t k) {
  const auto eight_k = static_cast<unsigned long>(8 * k);
  mpz_class term = divide_half_even(4 * unit, mpz_class(eight_k + 1));
  term -= divide_half_even(2 * unit, mpz_class(eight_k + 4));
  term -= divide_half_even(unit, mpz_class(eight_k + 5));
  term -= divide_half_even(unit, mpz_class(eight_k + 6));
  mpz_class power;
  mpz_ui_pow_ui(power.get_mpz_t(), 16, static_cast<unsigned long>(k));
  return divide_half_even(term, power);
}
/// 10^exponent.
inline mpz_class power_of_ten(std::int64_t exponent) {
  mpz_class p;
  mpz_ui_pow_ui(p.get_mpz_t(), 10, static_cast<unsigned long>(exponent));
  return p;
}
/// π in units of 10^-scale, rounded: Machin's π = 16 atan(1/5) - 4 atan(1/239) with ten guard
/// digits (each series term truncated: under 10^-5 units of error in all). A reference that
/// shares nothing with BBP but the integers.
inline mpz_class machin_pi(std::int64_t scale) {
  const mpz_class guarded = power_of_ten(scale + 10);
  auto arctan_inverse = [&](unsigned long x) {
    mpz_class power = guarded / x, sum = power, term;  // power: guarded / x^(2n+1), floored
    for (unsigned long n = 1; power != 0; ++n) {
      power /= x * x;
      term = power / (2 * n + 1);
      if (n % 2 == 1) {
        sum -= term;
      } else {
        sum += term;
      }
    }
    return sum;
  };
  return divide_half_even(16 * arctan_inverse(5) - 4 * arctan_inverse(239), power_of_ten(10));
}

// ---- sor
/// java.util.Random (its specified 48-bit linear congruential generator): sor's grid is
/// Savina's, drawn from Random(10101010), so that Savina's published sums check the
/// sequential reference.
class java_random {
 public:
  explicit java_random(std::int64_t seed) : seed_((std::uint64_t(seed) ^ multiplier) & mask) {}
  double next_double() {
    return double((std::uint64_t(next(26)) << 27) + std::uint64_t(next(27))) * 0x1.0p-53;
  }

 private:
  static constexpr std::uint64_t multiplier = 0x5DEECE66DULL, mask = (1ULL << 48) - 1;
  std::uint32_t next(int bits) {
    seed_ = (seed_ * multiplier + 0xBULL) & mask;
    return std::uint32_t(seed_ >> (48 - bits));
  }
  std::uint64_t seed_;
};
inline constexpr int sor_iterations = 100;  ///< Savina's JACOBI_NUM_ITER
inline constexpr double sor_omega = 1.25;   ///< Savina's OMEGA
/// Savina's starting grid, size × size row-major: Random(10101010).nextDouble() · 1e-6.
inline std::vector<double> sor_grid(std::int64_t size) {
  java_random random{10101010};
  std::vector<double> grid(std::size_t(size * size));
  for (auto& v : grid) v = random.next_double() * 1e-6;
  return grid;
}
/// The cells next to (x, y) — row x, column y — that are in the grid, in the order a cell
/// adds their values: (x, y+1), (x+1, y), (x, y-1), (x-1, y). (Savina adds them as they
/// arrive; a fixed order makes every cell's value a function of the grid alone.)
inline std::vector<std::size_t> sor_neighbours(std::size_t x, std::size_t y, std::size_t size) {
  std::vector<std::size_t> out;
  if (y + 1 < size) out.push_back(x * size + y + 1);
  if (x + 1 < size) out.push_back((x + 1) * size + y);
  if (y > 0) out.push_back(x * size + y - 1);
  if (x > 0) out.push_back((x - 1) * size + y);
  return out;
}
/// Savina's colour 1: the cells that start by sending their value (the others relax first).
inline bool sor_sends_first(std::size_t x, std::size_t y) {
  return (x + y + 1) % 2 == 1;
}
/// One relaxation of a cell, Savina's: omega/4 · its neighbours' sum + (1 - omega) · value.
inline double sor_relax(double neighbour_sum, double value) {
  return sor_omega / 4 * neighbour_sum + (1 - sor_omega) * value;
}
/// The grid after Savina's red-black sweeps, sequentially: the cells that relax first do so
/// sor_iterations times, the others (whose first step is to send) one time fewer, in
/// alternating half-sweeps. A half-sweep reads only the other colour, so updating in place
/// gives every cell the value the message-driven grid gives it, bit for bit.
inline std::vector<double> sor_reference(std::vector<double> grid, std::size_t size) {
  for (int half = 0; half < 2 * sor_iterations - 1; ++half) {
    const bool senders = half % 2 == 1;
    for (std::size_t x = 0; x < size; ++x) {
      for (std::size_t y = 0; y < size; ++y) {
        if (sor_sends_first(x, y) != senders) continue;
        double sum = 0;
        for (const std::size_t n : sor_neighbours(x, y, size)) sum += grid[n];
        grid[x * size + y] = sor_relax(sum, grid[x * size + y]);
      }
    }
  }
  return grid;
}

// ---- quicksort, bitonicsort
/// The values to sort: `count` draws below `max`, radixsort's generator with this seed.
inline std::vector<std::int64_t> sort_input(std::int64_t count, std::int64_t max,
                                            std::uint64_t seed) {
  const auto drawn = radix_values(count, std::uint64_t(max), seed);
  return {drawn.begin(), drawn.end()};
}

// ---- uct
/// uct's parameters (Savina's UctConfig).
struct uct_params {
  std::int32_t max_nodes, avg_comp, stdev_comp, binomial, urgent_percent;
};
/// A grant: the ids of the B children start at first_id, they compute comp_size, and
/// urgent_child is the one Savina marks urgent (-1: none). first_id 0: no grant.
struct uct_grant_draw {
  std::int32_t first_id = 0, comp_size = 0, urgent_child = -1;
};
/// The root's decisions (Savina's RootActor, with spate's generator). They depend only on how
/// many requests the root has answered, never on which node asked or when: the tree's size is
/// the same in every run, and expected_uct_nodes replays it.
class uct_root_rules {
 public:
  explicit uct_root_rules(const uct_params& p) : params_(p) {}
  /// GenerateTree: the computation size of the root's own B children (ids 1..B).
  std::int32_t start() {
    size_ += params_.binomial;
    return next_comp();
  }
  /// ShouldGenerateChildren: a grant or none; none, without a draw, once the tree is full.
  uct_grant_draw decide() {
    if (full_ || size_ + params_.binomial > params_.max_nodes) {
      full_ = true;
      return {};
    }
    if ((random_.next() >> 63) == 0) return {};  // Savina's nextBoolean
    uct_grant_draw g;
    g.first_id = size_;
    g.comp_size = next_comp();
    // Savina: nextInt(100) > urgent_percent means no urgent child.
    if (std::int64_t(random_.below(100)) <= params_.urgent_percent) {
      g.urgent_child = std::int32_t(random_.below(std::uint64_t(params_.binomial)));
    }
    size_ += params_.binomial;
    return g;
  }
  /// Nodes granted so far, the root included.
  std::int32_t size() const noexcept { return size_; }
  /// True once a request found no room for B more nodes.
  bool full() const noexcept { return full_; }

 private:
  /// Savina's getNextNormal: a normal draw (Marsaglia's polar method) with mean avg_comp and
  /// deviation stdev_comp, rounded, drawn again until positive.
  std::int32_t next_comp() {
    for (;;) {
      double u = 0, v = 0, s = 0;
      do {
        u = 2 * random_.unit() - 1;
        v = 2 * random_.unit() - 1;
        s = u * u + v * v;
      } while (s >= 1 || s == 0);
      const double comp =
          std::round(u * std::sqrt(-2 * std::log(s) / s) * params_.stdev_comp + params_.avg_comp);
      if (comp > 0) return std::int32_t(comp);
    }
  }

  uct_params params_;
  random64 random_{0x0C7'0002ull};
  std::int32_t size_ = 1;
  bool full_ = false;
};
/// The tree's final size: every node asks once, in whatever order, and a grant adds B nodes
/// that will ask; growth ends when the tree is full or nobody is left to ask.
inline std::int32_t expected_uct_nodes(const uct_params& p) {
  uct_root_rules root(p);
  root.start();
  std::int64_t asking = p.binomial;
  while (asking > 0 && !root.full()) {
    --asking;
    if (root.decide().first_id != 0) asking += p.binomial;
  }
  return root.size();
}

// ---- astar
/// Savina's guided-search graph: side³ nodes on a cubic grid, node (i, j, k) numbered
/// side²·i + side·j + k, each with edges to some of its forward neighbours (each coordinate
/// the same or one more, clamped at the far faces; neither itself nor the (1,1,1) diagonal).
/// Node v's neighbours are neighbour[first[v] .. first[v + 1]), in the order drawn. Every
/// edge leads to a higher number, so no path has a cycle.
struct search_grid {
  std::int32_t side = 0;
  std::vector<std::int32_t> first, neighbour;

  static constexpr std::int32_t origin = 0;
  std::int32_t nodes() const noexcept { return side * side * side; }
  /// (a, a, a) with a = 0.8 · side (Savina's target).
  std::int32_t target() const noexcept {
    const std::int32_t a = side * 4 / 5;
    return (a * side + a) * side + a;
  }
  bool edge(std::int32_t from, std::int32_t to) const {
    const auto begin = neighbour.begin() + first[std::size_t(from)];
    const auto end = neighbour.begin() + first[std::size_t(from) + 1];
    return std::find(begin, end, to) != end;
  }
};
/// Savina's draw: for each node in order, each of the six candidate offsets in order
/// (di, dj, dk ∈ {0,1}, dk fastest) is taken on a coin toss — except (1,1,0), which is
/// taken without a toss when none was before, so that every node leads somewhere. A
/// candidate clamped onto the node itself or onto one already taken is dropped.
inline search_grid make_search_grid(std::int32_t side) {
  search_grid g;
  g.side = side;
  g.first.reserve(std::size_t(g.nodes()) + 1);
  random64 random(0xA57A'0000ull + std::uint64_t(side));
  for (std::int32_t v = 0; v < g.nodes(); ++v) {
    g.first.push_back(std::int32_t(g.neighbour.size()));
    const std::int32_t i = v / (side * side), j = v / side % side, k = v % side;
    int candidate = 0, added = 0;
    for (int di = 0; di < 2; ++di) {
      for (int dj = 0; dj < 2; ++dj) {
        for (int dk = 0; dk < 2; ++dk) {
          ++candidate;
          if (candidate == 1 || candidate == 8) continue;
          if (!((candidate == 7 && added == 0) || random.below(2) == 1)) continue;
          const std::int32_t n =
              (std::min(side - 1, i + di) * side + std::min(side - 1, j + dj)) * side +
              std::min(side - 1, k + dk);
          const auto mine = g.neighbour.begin() + g.first.back();
          if (n == v || std::find(mine, g.neighbour.end(), n) != g.neighbour.end()) continue;
          g.neighbour.push_back(n);
          ++added;
        }
      }
    }
  }
  g.first.push_back(std::int32_t(g.neighbour.size()));
  return g;
}
/// Hops from the origin to every node by a sequential breadth-first search (-1: unreachable):
/// no search can find a shorter path.
inline std::vector<std::int32_t> search_distances(const search_grid& g) {
  std::vector<std::int32_t> distance(std::size_t(g.nodes()), -1), queue;
  queue.reserve(distance.size());
  distance[search_grid::origin] = 0;
  queue.push_back(search_grid::origin);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::int32_t v = queue[head];
    for (std::int32_t e = g.first[std::size_t(v)]; e < g.first[std::size_t(v) + 1]; ++e) {
      const std::int32_t n = g.neighbour[std::size_t(e)];
      if (distance[std::size_t(n)] >= 0) continue;
      distance[std::size_t(n)] = distance[std::size_t(v)] + 1;
      queue.push_back(n);
    }
  }
  return distance;
}

// ---- facloc
struct facloc_point {
  double x, y;
  double distance(const facloc_point& p) const { return std::hypot(p.x - x, p.y - y); }
};
/// A closed box.
struct facloc_box {
  double x1, y1, x2, y2;
  bool contains(const facloc_point& p) const {
    return x1 <= p.x && y1 <= p.y && p.x <= x2 && p.y <= y2;
  }
  facloc_point middle() const { return {(x1 + x2) / 2, (y1 + y2) / 2}; }
};
/// The next customer, uniform in [0, grid]², drawn in order from random64(seed) by every
/// implementation. (Savina's draws, grid / (v + 1), crowd into one corner.)
inline facloc_point facloc_customer(random64& random, double grid) {
  const double x = random.unit() * grid;
  const double y = random.unit() * grid;
  return {x, y};
}
/// A customer's cost: its distance to the nearest facility known.
inline double facloc_cost(const std::vector<facloc_point>& facilities, const facloc_point& c) {
  double nearest = HUGE_VAL;
  for (const facloc_point& f : facilities) nearest = std::min(nearest, f.distance(c));
  return nearest;
}
/// The quadrants a box splits into around its middle, in Savina's order: top left, top right,
/// bottom left, bottom right (quadrant q's opposite is 3 - q).
inline std::array<facloc_box, 4> facloc_quadrants(const facloc_box& b) {
  const facloc_point m = b.middle();
  return {facloc_box{b.x1, m.y, m.x, b.y2}, facloc_box{m.x, m.y, b.x2, b.y2},
          facloc_box{b.x1, b.y1, m.x, m.y}, facloc_box{m.x, b.y1, b.x2, m.y}};
}
/// The first quadrant that holds p, so that a customer on a dividing line is kept once (Savina
/// copies it into both boxes when a quadrant splits, and routes later ones this way).
inline std::size_t facloc_quadrant_of(const std::array<facloc_box, 4>& quadrants,
                                      const facloc_point& p) {
  for (std::size_t i = 0; i < quadrants.size(); ++i) {
    if (quadrants[i].contains(p)) return i;
  }
  return 0;  // unreachable for a point inside the box split
}
/// A customer's share of an order-independent fingerprint: a run keeps the customers sent
/// when the sums of their hashes agree.
inline std::uint64_t facloc_point_hash(const facloc_point& p) {
  return random64(std::bit_cast<std::uint64_t>(p.x) ^
                  std::rotl(std::bit_cast<std::uint64_t>(p.y), 32))
      .next();
}
/// Savina's count of open facilities, from the quadrants that split: the root's, open from
/// the start, and one per split quadrant below it.
inline std::int64_t facloc_facilities(std::int64_t splits) {
  return std::max<std::int64_t>(1, splits);
}
/// The facilities open after `points` customers when every facility notice reaches its
/// quadrants before the next customer arrives (as in the reactor version, where a customer
/// and all it causes take one tag): Savina's quadtree, run sequentially.
inline std::int64_t settled_facloc_facilities(std::int64_t points, double grid, double threshold,
                                              std::uint64_t seed) {
  struct quadrant {
    std::int32_t parent, position;  // position in the parent, in Savina's order
    facloc_box box;
    std::vector<facloc_point> facilities, customers;
    double cost = 0;
    std::int32_t first_child = -1;  // the four children are consecutive
    std::array<facloc_box, 4> quadrants{};
  };
  const facloc_box all{0, 0, grid, grid};
  std::vector<quadrant> tree;
  tree.push_back({-1, -1, all, {all.middle()}, {}, 0, -1, {}});
  const auto add = [&tree](std::int32_t q, const facloc_point& c) {
    auto& at = tree[std::size_t(q)];
    at.cost += facloc_cost(at.facilities, c);
    at.customers.push_back(c);
  };
  random64 random(seed);
  std::int64_t splits = 0;
  std::vector<std::int32_t> pending;
  for (std::int64_t n = 0; n < points; ++n) {
    const facloc_point c = facloc_customer(random, grid);
    std::int32_t q = 0;
    while (tree[std::size_t(q)].first_child >= 0) {
      const auto& at = tree[std::size_t(q)];
      q = at.first_child + std::int32_t(facloc_quadrant_of(at.quadrants, c));
    }
    add(q, c);
    if (!(tree[std::size_t(q)].cost > threshold)) continue;
    ++splits;
    // The new facility goes up the tree; each ancestor learns it and tells the whole subtree
    // of the child opposite the one it heard from.
    const facloc_point f = tree[std::size_t(q)].box.middle();
    for (std::int32_t child = q, up = tree[std::size_t(q)].parent; up >= 0;
         child = up, up = tree[std::size_t(up)].parent) {
      tree[std::size_t(up)].facilities.push_back(f);
      pending.assign(1, tree[std::size_t(up)].first_child + 3 - tree[std::size_t(child)].position);
      while (!pending.empty()) {
        auto& at = tree[std::size_t(pending.back())];
        pending.pop_back();
        at.facilities.push_back(f);
        for (std::int32_t i = 0; at.first_child >= 0 && i < 4; ++i) {
          pending.push_back(at.first_child + i);
        }
      }
    }
    // The split: each child knows the facilities its parent knew and its own middle, and
    // takes the parent's customers in its box, in the order they came.
    const std::vector<facloc_point> customers = std::move(tree[std::size_t(q)].customers);
    const std::vector<facloc_point> facilities = tree[std::size_t(q)].facilities;
    const std::array<facloc_box, 4> quadrants = facloc_quadrants(tree[std::size_t(q)].box);
    const auto first = std::int32_t(tree.size());
    tree[std::size_t(q)].customers.clear();
    tree[std::size_t(q)].quadrants = quadrants;
    tree[std::size_t(q)].first_child = first;
    for (std::int32_t i = 0; i < 4; ++i) {
      tree.push_back({q, i, quadrants[std::size_t(i)], facilities, {}, 0, -1, {}});
      tree.back().facilities.push_back(quadrants[std::size_t(i)].middle());
    }
    for (const facloc_point& k : customers) {
      add(first + std::int32_t(facloc_quadrant_of(quadrants, k)), k);
    }
  }
  return facloc_facilities(splits);
}

}  // namespace spate_bench::savina
