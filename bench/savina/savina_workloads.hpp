#pragma once
// The Savina benchmarks' inputs and their sequential references, shared by every
// implementation (spate actors, CAF): what each actor draws, and what a correct run must
// end with, computed outside the timed part. Sizes and protocols: docs/benchmarks.md.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

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

}  // namespace spate_bench::savina
