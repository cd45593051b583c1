// Savina's parallelism benchmarks with CAF 0.17: trapezoid and nqueenk (protocols and sizes:
// docs/benchmarks.md). The message protocols of spate_actor_savina_parallel.cpp (Savina's
// Akka versions), the same inputs, references and checks (savina_workloads.hpp,
// savina_checks.hpp), written the way CAF users write CAF: stateful function-based actors,
// atoms. Set-up and teardown are untimed (savina::timed_iteration). The concurrency
// benchmarks are in caf_savina_benchmarks.cpp and caf_savina_coordination.cpp;
// caf1_savina_parallel.cpp is the CAF 1.1 port of this file, actor for actor.
#include <caf/all.hpp>

#include <future>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/caf_config.hpp"
#include "../runner/measure.hpp"
#include "savina_checks.hpp"
#include "savina_support.hpp"
#include "savina_workloads.hpp"

// nqueenk's boards travel as they are, as in the spate version (local sends never serialize).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(spate_bench::savina::queens_board)

namespace spate_bench {
namespace {

using namespace savina;

// CAF 0.17 constructs a state from the actor's pointer when it can (stateful_actor's
// cr_state), and in C++20 an aggregate whose first member a pointer converts to (a bool, an
// actor handle) can be: no state below starts with one.

using stop_atom = caf::atom_constant<caf::atom("stop")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using work_atom = caf::atom_constant<caf::atom("work")>;
using area_atom = caf::atom_constant<caf::atom("area")>;
using solution_atom = caf::atom_constant<caf::atom("solution")>;

// ---------------------------------------------------------------- trapezoid
// The master splits [left, right] among W workers; each integrates its share and answers
// once. The master adds the shares in worker order, so the sum is the same in every run.
caf::behavior tz_worker(caf::event_based_actor* self, std::int32_t index) {
  return {
      [=](work_atom, const caf::actor& master, double left, double h, std::int64_t pieces) {
        self->send(master, area_atom::value, index, trapezoid_area(left, pieces, h));
        self->quit();
      },
  };
}

struct tz_master_state {
  std::size_t received = 0;
  std::vector<caf::actor> workers;
  std::vector<double> shares;
};
caf::behavior tz_master(caf::stateful_actor<tz_master_state>* self, double left, double right,
                        std::int64_t pieces, double* area, std::promise<void>* done) {
  return {
      [=](const std::vector<caf::actor>& workers) {
        self->state.workers = workers;
        self->state.shares.assign(workers.size(), 0.0);
        for (std::size_t i = 0; i < workers.size(); ++i) {
          const auto share =
              trapezoid_work(left, right, pieces, std::int64_t(workers.size()), std::int64_t(i));
          self->send(workers[i], work_atom::value, caf::actor_cast<caf::actor>(self), share.left,
                     share.h, share.pieces);
        }
      },
      [=](area_atom, std::int32_t worker, double share) {
        auto& s = self->state;
        s.shares[std::size_t(worker)] = share;
        if (++s.received < s.workers.size()) return;
        *area = 0;
        for (const double x : s.shares) *area += x;
        s.workers.clear();
        done->set_value();
        self->quit();
      },
  };
}

json trapezoid(const bench_params& p) {
  const trapezoid_case c(p);
  caf_system owner(p);
  caf::actor_system& system = *owner;
  return savina_iterations(p, [&] {
    double area = 0;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn(tz_master, c.left, c.right, c.pieces, &area, done);
          std::vector<caf::actor> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(system.spawn(tz_worker, std::int32_t(i)));
          }
          return [master, pool] { caf::anon_send(master, pool); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(area);
    return seconds;
  });
}

// ---------------------------------------------------------------- nqueenk
// The master hands boards round-robin to W workers; a worker below the threshold depth
// sends every valid one-row extension back as new work, at or past it searches the rest
// sequentially and reports each solution; every work item ends with a "done".
struct nq_worker_state {
  std::int32_t size = 0, threshold = 0;
  caf::actor master;
};
caf::behavior nq_worker(caf::stateful_actor<nq_worker_state>* self, std::int32_t size,
                        std::int32_t threshold) {
  self->state.size = size;
  self->state.threshold = threshold;
  return {
      [=](const caf::actor& master) { self->state.master = master; },
      [=](work_atom, const queens_board& b) {
        const auto& s = self->state;
        if (b.depth == s.size) {
          self->send(s.master, solution_atom::value);
        } else if (b.depth >= s.threshold) {
          for (std::int64_t n = count_queens(b, s.size); n > 0; --n) {
            self->send(s.master, solution_atom::value);
          }
        } else {
          queens_board child = b;
          ++child.depth;
          for (int col = 0; col < s.size; ++col) {
            child.columns[std::size_t(child.depth - 1)] = std::int8_t(col);
            if (last_queen_safe(child)) self->send(s.master, work_atom::value, child);
          }
        }
        self->send(s.master, done_atom::value);
      },
      [=](stop_atom) {
        self->state.master = nullptr;
        self->quit();
      },
  };
}

struct nq_master_state {
  std::int64_t sent = 0, completed = 0;
  std::size_t next_worker = 0;
  bool finished = false;
  std::vector<caf::actor> workers;
};
caf::behavior nq_master(caf::stateful_actor<nq_master_state>* self, std::int64_t limit,
                        std::int64_t* solutions, std::promise<void>* done) {
  auto forward = [=](const queens_board& b) {
    auto& s = self->state;
    self->send(s.workers[s.next_worker], work_atom::value, b);
    s.next_worker = (s.next_worker + 1) % s.workers.size();
    ++s.sent;
  };
  auto finish = [=] {
    auto& s = self->state;
    if (s.finished) return;
    s.finished = true;
    for (auto& w : s.workers) self->send(w, stop_atom::value);
    s.workers.clear();
    done->set_value();
    self->quit();
  };
  return {
      [=](const std::vector<caf::actor>& workers) {
        self->state.workers = workers;
        for (auto& w : workers) self->send(w, caf::actor_cast<caf::actor>(self));
        forward(queens_board{});
      },
      [=](work_atom, const queens_board& b) { forward(b); },
      [=](solution_atom) {
        if (++*solutions >= limit) finish();
      },
      [=](done_atom) {
        if (++self->state.completed == self->state.sent) finish();
      },
  };
}

json nqueenk(const bench_params& p) {
  const nqueenk_case c(p);
  caf_system owner(p);
  caf::actor_system& system = *owner;
  return savina_iterations(p, [&] {
    std::int64_t solutions = 0;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn(nq_master, c.limit, &solutions, done);
          std::vector<caf::actor> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(
                system.spawn(nq_worker, std::int32_t(c.size), std::int32_t(c.threshold)));
          }
          return [master, pool] { caf::anon_send(master, pool); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(solutions);
    return seconds;
  });
}

}  // namespace

void register_caf_savina_parallel(bench_registry& r) {
  r.implement("trapezoid", "caf", trapezoid);
  r.implement("nqueenk", "caf", nqueenk);
}

}  // namespace spate_bench
