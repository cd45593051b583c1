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
  std::size_t primes_found() const {
    std::size_t found = 0;
    for (const sieve_filter* f = &first; f != nullptr; f = f->next) found += f->primes.size();
    return found;
  }
};

json sieve(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const auto limit = p.integer("limit"), capacity = p.integer("local_primes");
  if (limit < 3 || capacity < 1) throw usage_error("sieve needs limit >= 3, local_primes >= 1");
  std::vector<bool> composite(std::size_t(limit), false);
  std::size_t expected = 0;
  for (std::int64_t i = 2; i < limit; ++i) {
    if (composite[std::size_t(i)]) continue;
    ++expected;
    for (std::int64_t j = i * i; j < limit; j += i) composite[std::size_t(j)] = true;
  }
  return savina_iterations(p, [&] {
    return reactor_iteration<sieve_program>(
        rt, p,
        [&](sieve_program& program) {
          if (program.primes_found() != expected)
            throw std::runtime_error("sieve: wrong number of primes");
        },
        limit, std::size_t(capacity));
  });
}

// ---------------------------------------------------------------- sor
// Savina's Successive Over-Relaxation: a size × size grid of cells, one reactor each, built
// by one mutation at startup. Cells of one colour send their value to their neighbours;
// a cell that has all its neighbours' values relaxes (omega = 1.25) and sends its own, for
// 100 iterations. Neighbours are joined with `after 0` (each half-sweep is a microstep), so
// the exchange is not a causality loop. The grid starts from Java's Random(10101010) as
// Savina's does, and the sum of the final values must match Savina's reference value.

// java.util.Random: a 48-bit linear congruential generator (its specification).
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
            std::vector<std::size_t> out;
            if (y + 1 < size) out.push_back(x * size + y + 1);
            if (x + 1 < size) out.push_back((x + 1) * size + y);
            if (y > 0) out.push_back(x * size + y - 1);
            if (x > 0) out.push_back((x - 1) * size + y);
            return out;
          };
          for (std::size_t x = 0; x < size; ++x)
            for (std::size_t y = 0; y < size; ++y)
              cells[x * size + y] =
                  &m.create<sor_cell>(numbered("cell", x * size + y), neighbours_of(x, y).size(),
                                      initial[x * size + y], (x + y + 1) % 2 == 1, 100, 1.25);
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
  spate::runtime rt{reactor_runtime_config(p)};
  // Savina's data sizes and, for each, the sum its validation expects.
  static constexpr std::pair<int, double> reference[] = {
      {20, 0.000003189420084871275}, {80, 0.001846644602759566},  {100, 0.0032099996270638005},
      {120, 0.0050869220175413146},  {150, 0.008496328291240363}, {200, 0.016479973604143234},
      {250, 0.026575660248076397}};
  const auto size = p.integer("size");
  const auto* ref = std::find_if(std::begin(reference), std::end(reference),
                                 [&](const auto& r) { return r.first == size; });
  if (ref == std::end(reference))
    throw usage_error("sor: size must be one of Savina's 20, 80, 100, 120, 150, 200, 250");
  java_random random{10101010};
  std::vector<double> initial(std::size_t(size * size));
  for (auto& v : initial) v = random.next_double() * 1e-6;
  double last_total = 0;
  auto m = savina_iterations(p, [&] {
    return reactor_iteration<sor_program>(
        rt, p,
        [&](sor_program& program) {
          if (program.returned != std::size_t(size * size))
            throw std::runtime_error("sor: cells did not finish");
          last_total = program.total;
          if (std::abs(program.total - ref->second) > 1e-12)
            throw std::runtime_error("sor: the grid's sum differs from Savina's reference");
        },
        std::size_t(size), initial);
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
