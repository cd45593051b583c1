// Savina's parallelism benchmarks with spate's typed actors: trapezoid and nqueenk
// (protocols and sizes: docs/benchmarks.md). As in spate_actor_savina_concurrency.cpp, the
// protocol is Savina's Akka one, set-up and clean-up are untimed, and every iteration's
// result is checked.
#include <cmath>
#include <string>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#include "savina_checks.hpp"
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

// ---------------------------------------------------------------- trapezoid
// The master splits [left, right] among W workers; each integrates its share and answers
// once. The master adds the shares in worker order, so the sum is the same in every run.
struct tz_master;
struct tz_work {
  actor_ref<tz_master> master;
  trapezoid_share share;
};
struct tz_area {
  std::int32_t worker;
  double area;
};

struct tz_worker : spate::typed_actor<tz_worker, tz_work> {
  explicit tz_worker(std::int32_t index) : index(index) {}
  void on(tz_work& w) {
    send(w.master, tz_area{index, trapezoid_area(w.share.left, w.share.pieces, w.share.h)});
    quit();
  }
  std::int32_t index;
};

struct tz_master : spate::typed_actor<tz_master, std::vector<actor_ref<tz_worker>>, tz_area> {
  tz_master(double left, double right, std::int64_t pieces, double* area, std::promise<void>* done)
      : left(left), right(right), pieces(pieces), area(area), done(done) {}
  void on(std::vector<actor_ref<tz_worker>>& w) {
    workers = std::move(w);
    shares.assign(workers.size(), 0.0);
    for (std::size_t i = 0; i < workers.size(); ++i) {
      send(workers[i],
           tz_work{typed_self(), trapezoid_work(left, right, pieces, std::int64_t(workers.size()),
                                                std::int64_t(i))});
    }
  }
  void on(tz_area& a) {
    shares[std::size_t(a.worker)] = a.area;
    if (++received < workers.size()) return;
    *area = 0;
    for (const double s : shares) *area += s;
    workers.clear();
    done->set_value();
    quit();
  }
  double left, right;
  std::int64_t pieces;
  std::vector<actor_ref<tz_worker>> workers;
  std::vector<double> shares;
  std::size_t received = 0;
  double* area;
  std::promise<void>* done;
};

json trapezoid(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const trapezoid_case c(p);
  return savina_iterations(p, [&] {
    double area = 0;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn<tz_master>(c.left, c.right, c.pieces, &area, done);
          std::vector<actor_ref<tz_worker>> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(system.spawn<tz_worker>(std::int32_t(i)));
          }
          return [master, pool] { send(master, pool); };
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
struct nq_master;
struct nq_work {
  queens_board board;
};
struct nq_solution {};
struct nq_done {};

struct nq_worker : spate::typed_actor<nq_worker, actor_ref<nq_master>, nq_work, stop> {
  nq_worker(std::int32_t size, std::int32_t threshold) : size(size), threshold(threshold) {}
  void on(actor_ref<nq_master>& m) { master = std::move(m); }
  void on(nq_work& w);
  void on(stop&) {
    master = nullptr;
    quit();
  }
  std::int32_t size, threshold;
  actor_ref<nq_master> master;
};

struct nq_master : spate::typed_actor<nq_master, std::vector<actor_ref<nq_worker>>, nq_work,
                                      nq_solution, nq_done> {
  nq_master(std::int64_t limit, std::int64_t* solutions, std::promise<void>* done)
      : limit(limit), solutions(solutions), done(done) {}
  void on(std::vector<actor_ref<nq_worker>>& w) {
    workers = std::move(w);
    for (auto& worker : workers) send(worker, typed_self());
    nq_work empty_board;
    on(empty_board);
  }
  void on(nq_work& w) {
    send(workers[next_worker], std::move(w));
    next_worker = (next_worker + 1) % workers.size();
    ++sent;
  }
  void on(nq_solution&) {
    if (++*solutions >= limit) finish();
  }
  void on(nq_done&) {
    if (++completed == sent) finish();
  }
  void finish() {
    if (finished) return;
    finished = true;
    for (auto& w : workers) send(w, stop{});
    workers.clear();
    done->set_value();
    quit();
  }
  std::int64_t limit;
  std::vector<actor_ref<nq_worker>> workers;
  std::size_t next_worker = 0;
  std::int64_t sent = 0, completed = 0;
  bool finished = false;
  std::int64_t* solutions;
  std::promise<void>* done;
};

void nq_worker::on(nq_work& w) {
  const queens_board& b = w.board;
  if (b.depth == size) {
    send(master, nq_solution{});
  } else if (b.depth >= threshold) {
    for (std::int64_t n = count_queens(b, size); n > 0; --n) send(master, nq_solution{});
  } else {
    queens_board child = b;
    ++child.depth;
    for (int c = 0; c < size; ++c) {
      child.columns[std::size_t(child.depth - 1)] = std::int8_t(c);
      if (last_queen_safe(child)) send(master, nq_work{child});
    }
  }
  send(master, nq_done{});
}

json nqueenk(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const nqueenk_case c(p);
  return savina_iterations(p, [&] {
    std::int64_t solutions = 0;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn<nq_master>(c.limit, &solutions, done);
          std::vector<actor_ref<nq_worker>> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(
                system.spawn<nq_worker>(std::int32_t(c.size), std::int32_t(c.threshold)));
          }
          return [master, pool] { send(master, pool); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(solutions);
    return seconds;
  });
}

}  // namespace

void register_spate_actor_savina_parallel(bench_registry& r) {
  r.implement("trapezoid", "spate-actor", trapezoid);
  r.implement("nqueenk", "spate-actor", nqueenk);
}

}  // namespace spate_bench
