// Savina's parallelism benchmarks trapezoid and nqueenk as spate reactors (impl
// `spate-reactor`), structured as Lingua Franca's benchmark suite writes them
// (lf-lang/benchmarks-lingua-franca, Cpp/Savina/src/parallelism): a manager and a bank of
// workers; work goes out in rounds, one item per worker per round, a
// round's results come back in the same tag, and the manager's logical action starts the
// next round (the one loop breaker). Inputs and checks are those of the actor versions
// (bench/savina/savina_workloads.hpp).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "../savina/savina_checks.hpp"
#include "../savina/savina_workloads.hpp"
#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;
using namespace savina;

// ---------------------------------------------------------------- trapezoid
// One round: every worker integrates its share; the manager adds them in worker order.

struct tz_worker : reactor {
  input<trapezoid_share> work{this, "work"};
  output<double> area{this, "area"};
  explicit tz_worker(context ctx) : reactor(ctx) {
    reaction("integrate").triggers(work).effects(area).body([this](port_writer<double>& out) {
      const trapezoid_share& s = work.get();
      out.set(trapezoid_area(s.left, s.pieces, s.h));
    });
  }
};

// The manager is the program itself: its reactions write the workers' inputs and read their
// outputs directly (a reactor's own ports cannot feed the reactors it contains).
struct tz_program : reactor {
  bank<tz_worker> workers;
  double area = 0;

  tz_program(context ctx, double left, double right, std::int64_t pieces, std::size_t count)
      : reactor(ctx), workers{this, "workers", count} {
    reaction("send")
        .triggers(startup)
        .effects(workers.ports(&tz_worker::work))
        .body([left, right, pieces](multiport_writer<trapezoid_share>& out) {
          for (std::size_t i = 0; i < out.size(); ++i) {
            out[i].set(
                trapezoid_work(left, right, pieces, std::int64_t(out.size()), std::int64_t(i)));
          }
        });
    reaction("sum").triggers(workers.ports(&tz_worker::area)).body([this] {
      for (std::size_t i = 0; i < workers.size(); ++i) area += workers[i].area.get();
    });
  }
};

json trapezoid(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const trapezoid_case c(p);
  double area = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<tz_program>(
        rt, p,
        [&](tz_program& program) {
          c.check(program.area);
          area = program.area;
        },
        c.left, c.right, c.pieces, std::size_t(c.workers));
  });
  m["result"] = area;  // checked equal to the sequential area, bit for bit
  return m;
}

// ---------------------------------------------------------------- nqueenk
// The manager keeps a queue of boards and sends one to each worker per round; a worker
// below the threshold depth returns the board's valid one-row extensions, at or past it
// the number of solutions below it.

struct nq_result {
  std::int64_t solutions = 0;
  std::vector<queens_board> children;
};

struct nq_worker : reactor {
  input<queens_board> work{this, "work"};
  output<nq_result> result{this, "result"};
  nq_worker(context ctx, std::int32_t size, std::int32_t threshold) : reactor(ctx) {
    reaction("search").triggers(work).effects(result).body(
        [this, size, threshold](port_writer<nq_result>& out) {
          const queens_board& b = work.get();
          nq_result r;
          if (b.depth >= threshold || b.depth == size) {
            r.solutions = count_queens(b, size);
          } else {
            queens_board child = b;
            ++child.depth;
            for (int c = 0; c < size; ++c) {
              child.columns[std::size_t(child.depth - 1)] = std::int8_t(c);
              if (last_queen_safe(child)) r.children.push_back(child);
            }
          }
          out.set(std::move(r));
        });
  }
};

struct nq_program : reactor {
  logical_action<void> next{this, "next"};
  bank<nq_worker> workers;
  std::deque<queens_board> queue;
  std::int64_t solutions = 0, limit;

  nq_program(context ctx, std::size_t count, std::int32_t size, std::int32_t threshold,
             std::int64_t limit)
      : reactor(ctx), workers{this, "workers", count, size, threshold}, limit(limit) {
    reaction("start").triggers(startup).effects(next).body([this](action_scheduler<void>& next) {
      queue.push_back(queens_board{});
      next.schedule();
    });
    reaction("dispatch")
        .triggers(next)
        .effects(workers.ports(&nq_worker::work))
        .body([this](multiport_writer<queens_board>& out) {
          for (std::size_t i = 0; i < out.size() && !queue.empty(); ++i) {
            out[i].set(queue.front());
            queue.pop_front();
          }
        });
    reaction("collect")
        .triggers(workers.ports(&nq_worker::result))
        .effects(next)
        .body([this](action_scheduler<void>& next) {
          for (std::size_t i = 0; i < workers.size(); ++i) {
            const auto& r = workers[i].result;
            if (!r.is_present()) continue;
            const nq_result& got = r.get();
            solutions += got.solutions;
            queue.insert(queue.end(), got.children.begin(), got.children.end());
          }
          if (!queue.empty() && solutions < this->limit) next.schedule();
        });
  }
};

json nqueenk(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const nqueenk_case c(p);
  const std::int64_t all = count_queens(queens_board{}, std::int32_t(c.size));
  std::int64_t found = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<nq_program>(
        rt, p,
        [&](nq_program& program) {
          // A round stops the search once the limit is reached, so it may pass it.
          found = program.solutions;
          if (all <= c.limit) {
            c.check(found);
          } else {
            require(found >= c.limit && found <= all, "nqueenk",
                    std::to_string(found) + " solutions, expected " + std::to_string(c.limit) +
                        " to " + std::to_string(all));
          }
        },
        std::size_t(c.workers), std::int32_t(c.size), std::int32_t(c.threshold), c.limit);
  });
  m["result"] = found;
  return m;
}

}  // namespace

void register_spate_reactor_parallelism(bench_registry& r) {
  r.implement("trapezoid", "spate-reactor", trapezoid);
  r.implement("nqueenk", "spate-reactor", nqueenk);
}

}  // namespace spate_bench
