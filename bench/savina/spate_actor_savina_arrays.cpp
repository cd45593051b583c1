// Savina's array benchmarks with spate's typed actors: radixsort, recmatmul and apsp
// (protocols and sizes: docs/benchmarks.md). As in the other Savina files, the protocol is
// Savina's Akka one, set-up and clean-up are untimed, and every iteration's result is
// checked against a sequential reference (savina_workloads.hpp).
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#include "savina_support.hpp"
#include "savina_workloads.hpp"
#include "spate/actor.hpp"

namespace spate_bench {
namespace {

using spate::actor_ref;
using spate::send;
using namespace savina;

struct go {};
struct stop {};

// ---------------------------------------------------------------- radixsort
// A source sends the values through a chain of one stage per bit, the lowest bit first; a
// stage passes a value whose bit is 0 at once and keeps the others until it has seen all
// values, then sends them in the order they came. The last stage's output is sorted.
struct rs_value {
  std::uint64_t value;
};

// A stage of the chain; radix 0 is the validator at its end.
struct rs_stage : spate::typed_actor<rs_stage, rs_value> {
  rs_stage(std::uint64_t radix, std::int64_t count, actor_ref<rs_stage> next,
           std::vector<std::uint64_t>* sorted, std::promise<void>* done)
      : radix(radix), count(count), next(std::move(next)), sorted(sorted), done(done) {}
  void on(rs_value& v) {
    ++seen;
    if (radix == 0) {
      sorted->push_back(v.value);
    } else if ((v.value & radix) == 0) {
      send(next, v);
    } else {
      kept.push_back(v.value);
    }
    if (seen < count) return;
    if (radix == 0) {
      done->set_value();
    } else {
      for (const std::uint64_t k : kept) send(next, rs_value{k});
      next = nullptr;
    }
    quit();
  }
  std::uint64_t radix;
  std::int64_t count, seen = 0;
  std::vector<std::uint64_t> kept;
  actor_ref<rs_stage> next;
  std::vector<std::uint64_t>* sorted;
  std::promise<void>* done;
};

struct rs_source : spate::typed_actor<rs_source, go> {
  rs_source(const std::vector<std::uint64_t>* values, actor_ref<rs_stage> first)
      : values(values), first(std::move(first)) {}
  void on(go&) {
    for (const std::uint64_t v : *values) send(first, rs_value{v});
    first = nullptr;
    quit();
  }
  const std::vector<std::uint64_t>* values;
  actor_ref<rs_stage> first;
};

json radixsort(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const auto count = p.integer("n");
  const auto max = std::uint64_t(p.integer("max")), seed = std::uint64_t(p.integer("seed"));
  if (count < 1 || max < 2) throw usage_error("radixsort needs n >= 1 and max >= 2");
  const auto values = radix_values(count, max, seed);
  auto expected = values;
  std::sort(expected.begin(), expected.end());
  const int bits = radix_bits(max);
  return savina_iterations(p, [&] {
    std::vector<std::uint64_t> sorted;
    sorted.reserve(values.size());
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          // Built from the end: the validator, then the stage of the highest bit, …, bit 0.
          auto next = system.spawn<rs_stage>(0, count, nullptr, &sorted, done);
          for (int bit = bits - 1; bit >= 0; --bit) {
            next = system.spawn<rs_stage>(std::uint64_t(1) << bit, count, next, nullptr, nullptr);
          }
          auto source = system.spawn<rs_source>(&values, next);
          return [source] { send(source, go{}); };
        },
        [&] { system.await_all_actors_done(); });
    require(sorted == expected, "radixsort", "the output is not the sorted input");
    return seconds;
  });
}

// ---------------------------------------------------------------- recmatmul
// A master routes blocks of C = A·B to workers by their place in C; a worker splits a block
// above the threshold into eight quarter products (sent back to the master) and computes
// one below it; each block ends with a "done". A, B and C are shared, not copied.
struct mm_master;
struct mm_done {};

struct mm_worker : spate::typed_actor<mm_worker, actor_ref<mm_master>, matmul_work, stop> {
  mm_worker(matmul_data* data, std::int64_t threshold) : data(data), threshold(threshold) {}
  void on(actor_ref<mm_master>& m) { master = std::move(m); }
  void on(matmul_work& w);
  void on(stop&) {
    master = nullptr;
    quit();
  }
  matmul_data* data;
  std::int64_t threshold;
  actor_ref<mm_master> master;
};

struct mm_master
    : spate::typed_actor<mm_master, std::vector<actor_ref<mm_worker>>, matmul_work, mm_done> {
  explicit mm_master(std::promise<void>* done) : done(done) {}
  void on(std::vector<actor_ref<mm_worker>>& w) {
    workers = std::move(w);
    for (auto& worker : workers) send(worker, typed_self());
  }
  void on(matmul_work& w) {
    send(workers[matmul_worker(w, workers.size())], w);
    ++sent;
  }
  void on(mm_done&) {
    if (++completed < sent) return;
    for (auto& w : workers) send(w, stop{});
    workers.clear();
    done->set_value();
    quit();
  }
  std::vector<actor_ref<mm_worker>> workers;
  std::int64_t sent = 0, completed = 0;
  std::promise<void>* done;
};

void mm_worker::on(matmul_work& w) {
  if (w.blocks > threshold) {
    for (const matmul_work& quarter : split_matmul(w)) send(master, quarter);
  } else {
    multiply_block(*data, w);
  }
  send(master, mm_done{});
}

json recmatmul(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const auto workers = p.integer("workers"), n = p.integer("n");
  const auto threshold = p.integer("threshold");
  if (workers < 1 || n < 1 || (n & (n - 1)) != 0 || threshold < 1) {
    throw usage_error("recmatmul needs workers >= 1, n a power of two, threshold >= 1");
  }
  matmul_data data(static_cast<std::size_t>(n));
  return savina_iterations(p, [&] {
    std::fill(data.c.begin(), data.c.end(), 0.0);
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn<mm_master>(done);
          std::vector<actor_ref<mm_worker>> pool;
          for (std::int64_t i = 0; i < workers; ++i) {
            pool.push_back(system.spawn<mm_worker>(&data, threshold));
          }
          send(master, std::move(pool));
          return [master, n] {
            send(master, matmul_work{0, 0, 0, 0, 0, 0, n * n, std::int32_t(n)});
          };
        },
        [&] { system.await_all_actors_done(); });
    require(data.product_right(), "recmatmul", "C is not A·B");
    return seconds;
  });
}

// ---------------------------------------------------------------- apsp
// Blocked Floyd–Warshall: one actor per block of the distance matrix. In iteration k a
// block needs row k and column k, which its block-row and block-column neighbours hold; every
// block sends its new values to those neighbours after each iteration and waits for theirs.
// A neighbour may be one iteration ahead, so what arrives is kept per iteration (two slots;
// Savina keys it by sender alone, which can mix iterations up).
using shared_block = std::shared_ptr<const std::vector<std::int64_t>>;
struct ap_block_actor;
struct ap_result {
  std::int32_t k;
  std::int32_t source;
  shared_block data;
};
struct ap_neighbours {
  std::vector<actor_ref<ap_block_actor>> list;
};

struct ap_grid {
  std::size_t nodes, block, side;  ///< side: blocks per row
  std::vector<std::int64_t>* result;
  std::atomic<std::size_t>* remaining;
  std::promise<void>* done;
};

struct ap_block_actor : spate::typed_actor<ap_block_actor, ap_neighbours, go, ap_result, stop> {
  ap_block_actor(const ap_grid& grid, std::size_t row, std::size_t column, shared_block initial)
      : grid(grid), row(row), column(column), data(std::move(initial)) {
    for (auto& slot : slots) slot.assign(grid.side * grid.side, nullptr);
  }
  void on(ap_neighbours& n) { neighbours = std::move(n.list); }
  void on(go&) {
    started = true;
    publish();
    advance();
  }
  void on(ap_result& r) {
    const std::size_t slot = std::size_t(r.k + 1) & 1;
    slots[slot][std::size_t(r.source)] = std::move(r.data);
    ++arrived[slot];
    advance();
  }
  // Computes every iteration whose inputs are all here. Not before this block has sent its
  // input (go): its neighbours' first values can arrive before its go does.
  void advance() {
    while (started && k + 1 < std::int64_t(grid.nodes) &&
           arrived[std::size_t(k + 1) & 1] == neighbours.size()) {
      step();
    }
  }
  void on(stop&) {
    neighbours.clear();
    quit();
  }
  std::int32_t id() const { return std::int32_t(row * grid.side + column); }
  void publish() {
    for (auto& n : neighbours) send(n, ap_result{std::int32_t(k), id(), data});
  }
  // The block of iteration k's values at (block row, block column): this one's or a
  // neighbour's.
  const std::vector<std::int64_t>& at(std::size_t r, std::size_t c, std::size_t slot) const {
    return r == row && c == column ? *data : *slots[slot][r * grid.side + c];
  }
  void step() {
    const std::size_t slot = std::size_t(k + 1) & 1, b = grid.block;
    const auto next_k = std::size_t(k + 1);
    const std::size_t holder = next_k / b, offset = next_k % b;
    const auto& row_k = at(row, holder, slot);        // D(i, k) for this block's rows
    const auto& column_k = at(holder, column, slot);  // D(k, j) for its columns
    auto next = std::make_shared<const std::vector<std::int64_t>>(
        apsp_relax(*data, row_k, column_k, offset, b));
    std::fill(slots[slot].begin(), slots[slot].end(), nullptr);
    arrived[slot] = 0;
    data = std::move(next);
    ++k;
    if (k + 1 < std::int64_t(grid.nodes)) {
      publish();
      return;
    }
    for (std::size_t i = 0; i < b; ++i) {  // the last iteration: into the result
      std::copy_n(data->begin() + std::ptrdiff_t(i * b), b,
                  grid.result->begin() + std::ptrdiff_t((row * b + i) * grid.nodes + column * b));
    }
    if (grid.remaining->fetch_sub(1) == 1) grid.done->set_value();
  }
  ap_grid grid;
  std::size_t row, column;
  shared_block data;
  std::int64_t k = -1;  ///< the last iteration this block computed (-1: the input)
  bool started = false;
  std::vector<actor_ref<ap_block_actor>> neighbours;
  std::vector<shared_block> slots[2];
  std::size_t arrived[2] = {0, 0};
};

json apsp(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const auto nodes = std::size_t(p.integer("nodes")), block = std::size_t(p.integer("block"));
  const auto max_weight = p.integer("max_weight");
  if (nodes < 2 || block < 1 || nodes % block != 0 || nodes / block < 2 || max_weight < 1) {
    throw usage_error(
        "apsp needs nodes a multiple of block, at least two blocks a side, "
        "max_weight >= 1");
  }
  const auto graph = apsp_graph(nodes, max_weight);
  const auto expected = floyd_warshall(graph, nodes);
  const std::size_t side = nodes / block;
  return savina_iterations(p, [&] {
    std::vector<std::int64_t> result(nodes * nodes, -1);
    std::atomic<std::size_t> remaining{side * side};
    std::vector<actor_ref<ap_block_actor>> blocks;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          const ap_grid grid{nodes, block, side, &result, &remaining, done};
          for (std::size_t r = 0; r < side; ++r) {
            for (std::size_t c = 0; c < side; ++c) {
              blocks.push_back(
                  system.spawn<ap_block_actor>(grid, r, c,
                                               std::make_shared<const std::vector<std::int64_t>>(
                                                   apsp_block(graph, nodes, block, r, c))));
            }
          }
          for (std::size_t r = 0; r < side; ++r) {
            for (std::size_t c = 0; c < side; ++c) {
              ap_neighbours n;
              for (std::size_t x = 0; x < side; ++x) {
                if (x != c) n.list.push_back(blocks[r * side + x]);
                if (x != r) n.list.push_back(blocks[x * side + c]);
              }
              send(blocks[r * side + c], std::move(n));
            }
          }
          return [&blocks] {
            for (auto& b : blocks) send(b, go{});
          };
        },
        [&] {
          for (auto& b : blocks) send(b, stop{});
          blocks.clear();
          system.await_all_actors_done();
        });
    require(result == expected, "apsp", "the distances differ from sequential Floyd-Warshall");
    return seconds;
  });
}

}  // namespace

void register_spate_actor_savina_arrays(bench_registry& r) {
  r.implement("radixsort", "spate-actor", radixsort);
  r.implement("recmatmul", "spate-actor", recmatmul);
  r.implement("apsp", "spate-actor", apsp);
}

}  // namespace spate_bench
