// Savina's parallelism benchmarks with CAF 1.1: trapezoid and nqueenk. caf_savina_parallel.cpp
// (CAF 0.17) ported to the 1.x API actor for actor, the same messages and protocols (those of
// spate_actor_savina_parallel.cpp, Savina's Akka versions), inputs, references and checks
// (savina_workloads.hpp, savina_checks.hpp); stateful function-based actors, atoms, sends
// through the mail API. Set-up and teardown are untimed (savina::timed_iteration). Built into
// spate-bench-caf1 only (bench/CMakeLists.txt); the atoms and queens_board have their type IDs
// in caf1_config.hpp. The concurrency benchmarks are in caf1_savina_benchmarks.cpp and
// caf1_savina_coordination.cpp.
#include <caf/all.hpp>

#include <future>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/caf1_config.hpp"
#include "../runner/measure.hpp"
#include "savina_checks.hpp"
#include "savina_support.hpp"
#include "savina_workloads.hpp"

namespace spate_bench {
namespace {

using namespace savina;
using namespace caf1;  // the atoms (caf1_config.hpp)

// ---------------------------------------------------------------- trapezoid
// The master splits [left, right] among W workers; each integrates its share and answers
// once. The master adds the shares in worker order, so the sum is the same in every run.
caf::behavior tz_worker(caf::event_based_actor* self, std::int32_t index) {
  return {
      [=](work_atom, const caf::actor& master, double left, double h, std::int64_t pieces) {
        self->mail(area_atom_v, index, trapezoid_area(left, pieces, h)).send(master);
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
        self->state().workers = workers;
        self->state().shares.assign(workers.size(), 0.0);
        for (std::size_t i = 0; i < workers.size(); ++i) {
          const auto share =
              trapezoid_work(left, right, pieces, std::int64_t(workers.size()), std::int64_t(i));
          self->mail(work_atom_v, caf::actor_cast<caf::actor>(self), share.left, share.h,
                     share.pieces)
              .send(workers[i]);
        }
      },
      [=](area_atom, std::int32_t worker, double share) {
        auto& s = self->state();
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
  caf1_system owner(p);
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
          return [master, pool] { caf::anon_mail(pool).send(master); };
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
  self->state().size = size;
  self->state().threshold = threshold;
  return {
      [=](const caf::actor& master) { self->state().master = master; },
      [=](work_atom, const queens_board& b) {
        const auto& s = self->state();
        if (b.depth == s.size) {
          self->mail(solution_atom_v).send(s.master);
        } else if (b.depth >= s.threshold) {
          for (std::int64_t n = count_queens(b, s.size); n > 0; --n) {
            self->mail(solution_atom_v).send(s.master);
          }
        } else {
          queens_board child = b;
          ++child.depth;
          for (int col = 0; col < s.size; ++col) {
            child.columns[std::size_t(child.depth - 1)] = std::int8_t(col);
            if (last_queen_safe(child)) self->mail(work_atom_v, child).send(s.master);
          }
        }
        self->mail(done_atom_v).send(s.master);
      },
      [=](stop_atom) {
        self->state().master = nullptr;
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
    auto& s = self->state();
    self->mail(work_atom_v, b).send(s.workers[s.next_worker]);
    s.next_worker = (s.next_worker + 1) % s.workers.size();
    ++s.sent;
  };
  auto finish = [=] {
    auto& s = self->state();
    if (s.finished) return;
    s.finished = true;
    for (auto& w : s.workers) self->mail(stop_atom_v).send(w);
    s.workers.clear();
    done->set_value();
    self->quit();
  };
  return {
      [=](const std::vector<caf::actor>& workers) {
        self->state().workers = workers;
        for (auto& w : workers) self->mail(caf::actor_cast<caf::actor>(self)).send(w);
        forward(queens_board{});
      },
      [=](work_atom, const queens_board& b) { forward(b); },
      [=](solution_atom) {
        if (++*solutions >= limit) finish();
      },
      [=](done_atom) {
        if (++self->state().completed == self->state().sent) finish();
      },
  };
}

json nqueenk(const bench_params& p) {
  const nqueenk_case c(p);
  caf1_system owner(p);
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
          return [master, pool] { caf::anon_mail(pool).send(master); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(solutions);
    return seconds;
  });
}

}  // namespace

void register_caf1_savina_parallel(bench_registry& r) {
  r.implement("trapezoid", "caf1", trapezoid);
  r.implement("nqueenk", "caf1", nqueenk);
}

}  // namespace spate_bench
