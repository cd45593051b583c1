// Savina's array benchmarks with CAF 1.1: radixsort, recmatmul and apsp. caf_savina_arrays.cpp
// (CAF 0.17) ported to the 1.x API: the same actors and messages as
// spate_actor_savina_arrays.cpp (stateful function-based actors, atoms; sends through the mail
// API), the same inputs, untimed set-up and clean-up and checks. Built into spate-bench-caf1
// only (bench/CMakeLists.txt).
#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/caf1_config.hpp"
#include "../runner/measure.hpp"
#include "savina_support.hpp"
#include "savina_workloads.hpp"

namespace spate_bench::caf1_arrays {

// A block's values after an iteration. Shared, not copied: a std::vector in the message would
// be copied once per neighbour (CAF builds one message per send).
using shared_block = std::shared_ptr<const std::vector<std::int64_t>>;

/// apsp's message: block `source`'s values after iteration k.
struct ap_result {
  std::int32_t k;
  std::int32_t source;
  shared_block data;
};

}  // namespace spate_bench::caf1_arrays

namespace spate_bench::savina {

// CAF 1.x wants every message type inspectable (its meta object can serialize it); local
// sends never call this.
template <class Inspector>
bool inspect(Inspector& f, matmul_work& x) {
  return f.object(x).fields(f.field("sr_a", x.sr_a), f.field("sc_a", x.sc_a),
                            f.field("sr_b", x.sr_b), f.field("sc_b", x.sc_b),
                            f.field("sr_c", x.sr_c), f.field("sc_c", x.sc_c),
                            f.field("blocks", x.blocks), f.field("dim", x.dim));
}

}  // namespace spate_bench::savina

// A shared_ptr cannot be serialized; ap_result is sent between local actors only.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(spate_bench::caf1_arrays::ap_result)

// This file's own type-ID block, well clear of spate_caf1 (caf1_config.hpp, from
// first_custom_type_id) and of any block added after it; set up by init_arrays_types().
CAF_BEGIN_TYPE_ID_BLOCK(spate_caf1_arrays, caf::first_custom_type_id + 400)
CAF_ADD_TYPE_ID(spate_caf1_arrays, (spate_bench::savina::matmul_work))
CAF_ADD_TYPE_ID(spate_caf1_arrays, (spate_bench::caf1_arrays::ap_result))
CAF_ADD_ATOM(spate_caf1_arrays, spate_bench::caf1_arrays, go_atom)
CAF_ADD_ATOM(spate_caf1_arrays, spate_bench::caf1_arrays, stop_atom)
CAF_ADD_ATOM(spate_caf1_arrays, spate_bench::caf1_arrays, value_atom)
CAF_ADD_ATOM(spate_caf1_arrays, spate_bench::caf1_arrays, done_atom)
CAF_END_TYPE_ID_BLOCK(spate_caf1_arrays)

namespace spate_bench {
namespace {

using namespace savina;
using caf1_arrays::ap_result;
using caf1_arrays::shared_block;
// This file's atoms, named one by one: caf1_config.hpp's namespace caf1 has atoms of the
// same names (other types, in the spate_caf1 block).
using caf1_arrays::done_atom;
using caf1_arrays::done_atom_v;
using caf1_arrays::go_atom;
using caf1_arrays::go_atom_v;
using caf1_arrays::stop_atom;
using caf1_arrays::stop_atom_v;
using caf1_arrays::value_atom;
using caf1_arrays::value_atom_v;

// The meta objects of this file's block, registered once per process before the first actor
// system (CAF 1.x requires that; caf1_system sets up the core and spate_caf1 blocks itself).
void init_arrays_types() {
  static std::once_flag once;
  std::call_once(once, [] { caf::init_global_meta_objects<caf::id_block::spate_caf1_arrays>(); });
}

// ---------------------------------------------------------------- radixsort
// A source sends the values through a chain of one stage per bit, the lowest bit first; a
// stage passes a value whose bit is 0 at once and keeps the others until it has seen all
// values, then sends them in the order they came. The validator at the end of the chain
// receives the values sorted.
struct rs_stage_state {
  caf::actor next;
  std::vector<std::uint64_t> kept;
  std::int64_t seen = 0;
};
caf::behavior rs_stage(caf::stateful_actor<rs_stage_state>* self, std::uint64_t radix,
                       std::int64_t count, caf::actor next) {
  self->state().next = std::move(next);
  return {[=](value_atom, std::uint64_t v) {
    auto& s = self->state();
    if ((v & radix) == 0) {
      self->mail(value_atom_v, v).send(s.next);
    } else {
      s.kept.push_back(v);
    }
    if (++s.seen < count) return;
    for (const std::uint64_t k : s.kept) self->mail(value_atom_v, k).send(s.next);
    s.next = nullptr;  // the chain comes apart stage by stage as each one finishes
    self->quit();
  }};
}

struct rs_validator_state {
  std::int64_t seen = 0;
};
caf::behavior rs_validator(caf::stateful_actor<rs_validator_state>* self, std::int64_t count,
                           std::vector<std::uint64_t>* sorted, std::promise<void>* done) {
  return {[=](value_atom, std::uint64_t v) {
    sorted->push_back(v);  // checked after the iteration, outside the timed part
    if (++self->state().seen < count) return;
    done->set_value();
    self->quit();
  }};
}

caf::behavior rs_source(caf::event_based_actor* self, const std::vector<std::uint64_t>* values,
                        caf::actor first) {
  return {[=](go_atom) {
    for (const std::uint64_t v : *values) self->mail(value_atom_v, v).send(first);
    self->quit();
  }};
}

json radixsort(const bench_params& p) {
  init_arrays_types();
  caf1_system owner(p);
  caf::actor_system& system = *owner;
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
          caf::actor next = system.spawn(rs_validator, count, &sorted, done);
          for (int bit = bits - 1; bit >= 0; --bit) {
            next = system.spawn(rs_stage, std::uint64_t(1) << bit, count, next);
          }
          auto source = system.spawn(rs_source, &values, next);
          return [source] { caf::anon_mail(go_atom_v).send(source); };
        },
        [&] { system.await_all_actors_done(); });
    require(sorted == expected, "radixsort", "the output is not the sorted input");
    return seconds;
  });
}

// ---------------------------------------------------------------- recmatmul
// A master routes blocks of C = A·B to workers by their place in C; a worker splits a block
// above the threshold into eight quarter products (sent back to the master) and computes one
// below it; each block ends with a "done". A, B and C are shared, not copied: every
// contribution to one block of C goes to the same worker, so no two workers write one cell.
struct mm_master_state {
  std::vector<caf::actor> workers;
  std::int64_t sent = 0, completed = 0;
};
caf::behavior mm_master(caf::stateful_actor<mm_master_state>* self, std::promise<void>* done) {
  return {
      [=](const std::vector<caf::actor>& workers) { self->state().workers = workers; },
      [=](const matmul_work& w) {
        auto& s = self->state();
        self->mail(w).send(s.workers[matmul_worker(w, s.workers.size())]);
        ++s.sent;
      },
      [=](done_atom) {
        // A worker sends a block's quarters before its "done", so `sent` already counts them.
        auto& s = self->state();
        if (++s.completed < s.sent) return;
        for (auto& w : s.workers) self->mail(stop_atom_v).send(w);
        s.workers.clear();
        done->set_value();
        self->quit();
      },
  };
}

struct mm_worker_state {
  caf::actor master;
};
caf::behavior mm_worker(caf::stateful_actor<mm_worker_state>* self, caf::actor master,
                        matmul_data* data, std::int64_t threshold) {
  self->state().master = std::move(master);
  return {
      [=](const matmul_work& w) {
        const caf::actor& m = self->state().master;
        if (w.blocks > threshold) {
          for (const matmul_work& quarter : split_matmul(w)) self->mail(quarter).send(m);
        } else {
          multiply_block(*data, w);
        }
        self->mail(done_atom_v).send(m);
      },
      [=](stop_atom) {
        self->state().master = nullptr;  // master and workers hold each other: break the cycle
        self->quit();
      },
  };
}

json recmatmul(const bench_params& p) {
  init_arrays_types();
  caf1_system owner(p);
  caf::actor_system& system = *owner;
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
          // The workers get the master at spawn; the master gets the pool before the work
          // (both from this thread, so in that order).
          auto master = system.spawn(mm_master, done);
          std::vector<caf::actor> pool;
          for (std::int64_t i = 0; i < workers; ++i) {
            pool.push_back(system.spawn(mm_worker, master, &data, threshold));
          }
          caf::anon_mail(std::move(pool)).send(master);
          return [master, n] {
            caf::anon_mail(matmul_work{0, 0, 0, 0, 0, 0, n * n, std::int32_t(n)}).send(master);
          };
        },
        [&] { system.await_all_actors_done(); });
    require(data.product_right(), "recmatmul", "C is not A·B");
    return seconds;
  });
}

// ---------------------------------------------------------------- apsp
// Blocked Floyd–Warshall: one actor per block of the distance matrix. In iteration k a block
// needs row k and column k, which its block-row and block-column neighbours hold; every block
// sends its new values to those neighbours after each iteration and waits for theirs. A
// neighbour may be one iteration ahead, so what arrives is kept per iteration (two slots).
struct ap_grid {
  std::size_t nodes, block, side;  ///< side: blocks per row
  std::vector<std::int64_t>* result;
  std::atomic<std::size_t>* remaining;
  std::promise<void>* done;
};

struct ap_state {
  ap_grid grid{};
  std::size_t row = 0, column = 0;
  shared_block data;
  std::int64_t k = -1;   ///< the last iteration this block computed (-1: the input)
  bool started = false;  ///< "go" seen: iteration -1 published, so later ones may follow
  std::vector<caf::actor> neighbours;
  std::vector<shared_block> slots[2];  ///< by parity of k + 1: iteration k's arrivals
  std::size_t arrived[2] = {0, 0};

  std::int32_t id() const { return std::int32_t(row * grid.side + column); }
  bool finished() const { return k + 1 == std::int64_t(grid.nodes); }
  void keep(const ap_result& r) {
    const std::size_t slot = std::size_t(r.k + 1) & 1;
    slots[slot][std::size_t(r.source)] = r.data;
    ++arrived[slot];
  }
  // Whether iteration k + 1 can be computed. Before "go", never: the neighbours could all
  // publish iteration -1 before this block's "go" arrives, and it must publish -1 first.
  bool ready() const {
    return started && !finished() && arrived[std::size_t(k + 1) & 1] == neighbours.size();
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
  }
  void write_result() const {
    const std::size_t b = grid.block;
    for (std::size_t i = 0; i < b; ++i) {
      std::copy_n(data->begin() + std::ptrdiff_t(i * b), b,
                  grid.result->begin() + std::ptrdiff_t((row * b + i) * grid.nodes + column * b));
    }
  }
};

caf::behavior ap_block(caf::stateful_actor<ap_state>* self, ap_grid grid, std::size_t row,
                       std::size_t column, shared_block initial) {
  self->state().grid = grid;
  self->state().row = row;
  self->state().column = column;
  self->state().data = std::move(initial);
  for (auto& slot : self->state().slots) slot.assign(grid.side * grid.side, nullptr);
  // This block's values of iteration k to every neighbour: a pointer copy each, no data.
  auto publish = [self] {
    auto& s = self->state();
    for (auto& n : s.neighbours) self->mail(ap_result{std::int32_t(s.k), s.id(), s.data}).send(n);
  };
  // Computes every iteration whose inputs are all here; the last one goes into the result.
  auto advance = [self, publish] {
    auto& s = self->state();
    while (s.ready()) {
      s.step();
      if (!s.finished()) {
        publish();
        continue;
      }
      s.write_result();
      if (s.grid.remaining->fetch_sub(1) == 1) s.grid.done->set_value();
    }
  };
  return {
      [=](const std::vector<caf::actor>& neighbours) { self->state().neighbours = neighbours; },
      [=](go_atom) {
        self->state().started = true;
        publish();
        advance();
      },
      [=](const ap_result& r) {
        self->state().keep(r);
        advance();
      },
      [=](stop_atom) {
        self->state().neighbours.clear();  // blocks hold each other: break the cycles
        self->quit();
      },
  };
}

json apsp(const bench_params& p) {
  init_arrays_types();
  caf1_system owner(p);
  caf::actor_system& system = *owner;
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
    std::vector<caf::actor> blocks;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          const ap_grid grid{nodes, block, side, &result, &remaining, done};
          for (std::size_t r = 0; r < side; ++r) {
            for (std::size_t c = 0; c < side; ++c) {
              blocks.push_back(system.spawn(ap_block, grid, r, c,
                                            std::make_shared<const std::vector<std::int64_t>>(
                                                apsp_block(graph, nodes, block, r, c))));
            }
          }
          for (std::size_t r = 0; r < side; ++r) {
            for (std::size_t c = 0; c < side; ++c) {
              std::vector<caf::actor> neighbours;
              for (std::size_t x = 0; x < side; ++x) {
                if (x != c) neighbours.push_back(blocks[r * side + x]);
                if (x != r) neighbours.push_back(blocks[x * side + c]);
              }
              caf::anon_mail(std::move(neighbours)).send(blocks[r * side + c]);
            }
          }
          return [&blocks] {
            for (auto& b : blocks) caf::anon_mail(go_atom_v).send(b);
          };
        },
        [&] {
          for (auto& b : blocks) caf::anon_mail(stop_atom_v).send(b);
          blocks.clear();
          system.await_all_actors_done();
        });
    require(result == expected, "apsp", "the distances differ from sequential Floyd-Warshall");
    return seconds;
  });
}

}  // namespace

void register_caf1_savina_arrays(bench_registry& r) {
  r.implement("radixsort", "caf1", radixsort);
  r.implement("recmatmul", "caf1", recmatmul);
  r.implement("apsp", "caf1", apsp);
}

}  // namespace spate_bench
