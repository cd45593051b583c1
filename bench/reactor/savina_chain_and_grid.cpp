// Savina's dynamic-creation benchmarks that build a chain or a grid, as spate reactors
// (impl `spate-reactor`): sieve (a chain of filters that lengthens as primes are found) and
// sor (a grid of cells built at startup, its size a run-time parameter). Every reactor is
// created by a mutation; each run checks its result and fails when it is wrong.
//
// Savina's actors race: the order in which a root hears its nodes, or the order of values
// in a sum, depends on the schedule. As reactors the same programs are deterministic —
// messages that arrive at one tag are taken in channel order — so a run's result is a
// function of the parameters alone.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../savina/savina_checks.hpp"
#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;

// ---------------------------------------------------------------- sieve
// Savina's Sieve of Eratosthenes: odd candidates below `limit` pass through a chain of
// filters, each holding up to `local_primes` primes. A candidate no filter divides is a
// prime; the last filter keeps it, or, when full, creates the next filter with it. One
// candidate per tag, as Savina's producer sends one message per candidate.

struct sieve_filter : reactor {
  input<std::int64_t> in{this, "in"};
  output<std::int64_t> out{this, "out"};
  std::vector<std::int64_t> primes;
  sieve_filter* next = nullptr;

  sieve_filter(context ctx, std::size_t index, std::int64_t first_prime, std::size_t capacity)
      : reactor(ctx) {
    primes.reserve(capacity);
    primes.push_back(first_prime);
    reaction("filter")
        .triggers(in)
        .effects(out, mutations)
        .body([this, index, capacity](port_writer<std::int64_t>& forward, mutator& m) {
          const std::int64_t candidate = in.get();
          for (std::int64_t p : primes)
            if (candidate % p == 0) return;
          if (next != nullptr) {
            forward.set(candidate);
          } else if (primes.size() < capacity) {
            primes.push_back(candidate);
          } else {
            next = &m.create<sieve_filter>(numbered("filter", index + 1), index + 1, candidate,
                                           capacity);
            m.connect(out, next->in);
          }
        });
  }
};

struct sieve_program : reactor {
  logical_action<void> produce{this, "produce"};
  sieve_filter first;
  std::int64_t next_candidate = 3;

  sieve_program(context ctx, std::int64_t limit, std::size_t capacity)
      : reactor(ctx), first{{this, "filter1"}, 1, 2, capacity} {
    reaction("start").triggers(startup).effects(produce).body(
        [](action_scheduler<void>& produce) { produce.schedule(); });
    reaction("produce")
        .triggers(produce)
        .effects(first.in, produce)
        .body([this, limit](port_writer<std::int64_t>& out, action_scheduler<void>& again) {
          if (next_candidate >= limit) return;
          out.set(next_candidate);
          next_candidate += 2;
          again.schedule();
        });
  }
  // The primes the chain holds, its length and its last prime (savina::sieve_case checks).
  savina::sieve_result outcome() const {
    savina::sieve_result r;
    for (const sieve_filter* f = &first; f != nullptr; f = f->next) {
      r.primes += std::int64_t(f->primes.size());
      ++r.filters;
      r.largest = f->primes.back();
    }
    return r;
  }
};

json sieve(const bench_params& p) {
  const savina::sieve_case c(p);  // shared with the actor version
  spate::runtime rt{reactor_runtime_config(p)};
  return savina_iterations(p, [&] {
    return reactor_iteration<sieve_program>(
        rt, p, [&](sieve_program& program) { c.check(program.outcome()); }, c.limit,
        std::size_t(c.local_primes));
  });
}

// ---------------------------------------------------------------- sor
// Savina's Successive Over-Relaxation: a size × size grid of cells, one reactor each, built
// by one mutation at startup. Cells of one colour send their value to their neighbours;
// a cell that has all its neighbours' values relaxes (omega = 1.25) and sends its own, for
// 100 iterations. Neighbours are joined with `after 0` (each half-sweep is a microstep), so
// the exchange is not a causality loop. The grid starts from Java's Random(10101010) as
// Savina's does, and the sum of the final values must match the sequential reference
// (savina::sor_case, shared with the actor version).

struct sor_cell : reactor {
  multiport_input<double> neighbours;
  output<double> value_out{this, "value_out"};
  output<double> result{this, "result"};
  double value;
  int iteration = 0;

  sor_cell(context ctx, std::size_t neighbour_count, double initial, bool sends_first,
           int iterations, double omega)
      : reactor(ctx), neighbours{this, "neighbours", neighbour_count}, value(initial) {
    reaction("start").triggers(startup).effects(value_out).body(
        [this, sends_first](port_writer<double>& out) {
          if (!sends_first) return;
          out.set(value);
          ++iteration;
        });
    reaction("relax")
        .triggers(neighbours)
        .effects(value_out, result)
        .body([this, iterations, omega](port_writer<double>& out, port_writer<double>& done) {
          if (iteration >= iterations) return;
          double sum = 0;
          for (auto& n : neighbours) {
            if (!n.is_present()) return;  // all neighbours send at the same microstep
            sum += n.get();
          }
          value = omega / 4 * sum + (1 - omega) * value;
          out.set(value);
          if (++iteration == iterations) done.set(value);
        });
  }
};

struct sor_program : reactor {
  multiport_input<double> results;
  double total = 0;
  std::size_t returned = 0;

  sor_program(context ctx, std::size_t size, std::vector<double> initial)
      : reactor(ctx), results{this, "results", size * size} {
    reaction("build").triggers(startup).effects(mutations).body(
        [this, size, initial = std::move(initial)](mutator& m) {
          std::vector<sor_cell*> cells(size * size);
          auto neighbours_of = [size](std::size_t x, std::size_t y) {
            return savina::sor_neighbours(x, y, size);
          };
          for (std::size_t x = 0; x < size; ++x)
            for (std::size_t y = 0; y < size; ++y)
              cells[x * size + y] = &m.create<sor_cell>(
                  numbered("cell", x * size + y), neighbours_of(x, y).size(), initial[x * size + y],
                  savina::sor_sends_first(x, y), savina::sor_iterations, savina::sor_omega);
          for (std::size_t x = 0; x < size; ++x) {
            for (std::size_t y = 0; y < size; ++y) {
              sor_cell& cell = *cells[x * size + y];
              // Channel k of a cell hears its k-th neighbour in neighbours_of's order.
              const auto around = neighbours_of(x, y);
              for (std::size_t k = 0; k < around.size(); ++k)
                m.connect(cells[around[k]]->value_out, cell.neighbours[k]).after(duration::zero());
              m.connect(cell.result, results[x * size + y]);
            }
          }
        });
    reaction("collect").triggers(results).body([this] {
      for (auto& r : results) {
        if (!r.is_present()) continue;
        total += r.get();
        ++returned;
      }
    });
  }
};

json sor(const bench_params& p) {
  const savina::sor_case c(p);  // grid, reference and check shared with the actor version
  spate::runtime rt{reactor_runtime_config(p)};
  const auto cells = std::size_t(c.size * c.size);
  double last_total = 0;
  auto m = savina_iterations(p, [&] {
    return reactor_iteration<sor_program>(
        rt, p,
        [&](sor_program& program) {
          if (program.returned != cells) throw std::runtime_error("sor: cells did not finish");
          last_total = program.total;
          c.check(program.total);
        },
        std::size_t(c.size), c.initial);
  });
  m["grid_sum"] = last_total;
  return m;
}

}  // namespace

void register_spate_reactor_chain_and_grid(bench_registry& r) {
  r.implement("sieve", "spate-reactor", sieve);
  r.implement("sor", "spate-reactor", sor);
}

}  // namespace spate_bench
