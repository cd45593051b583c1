// Savina's benchmarks filterbank, piprecise and astar as spate reactors (impl
// `spate-reactor`), structured as Lingua Franca's benchmark suite writes them
// (lf-lang/benchmarks-lingua-franca, Cpp/Savina/src/parallelism: FilterBank.lf,
// PiPrecision.lf, GuidedSearch.lf). Inputs, references and checks are the actor versions'
// (`*_case` in bench/savina/savina_checks.hpp); each reports a `result` that summarises what
// it computed and is the same on any worker count in either `--mode`.
//
// Dependency structure per tag, and what `--mode=precise` could add over `--mode=levels`:
// - filterbank: one simulation per tag. The producer's action fires the source, whose value
//   is broadcast to `channels` banks; each bank is a chain delay → FIR h → sampler → delay →
//   FIR f, and Combine joins the banks. So a tag is `channels` independent chains of five
//   reactions between a fork and a join. The k-th stages of all banks share a level: levels
//   mode runs the banks' delays, then (after a barrier) their FIRs, and so on, up to five
//   barriers a tag; precise mode lets each bank's chain run on as soon as its own previous
//   stage is done, the chain continuing on the worker that ran that stage, without waiting
//   for the other banks' stages. Both run the same `channels` reactions side by side (the
//   banks have equal work), so precise mode saves the barriers and the hand-offs, not
//   parallelism. Neither overlaps tags: a pipeline across simulations would need logical
//   actions between the stages (LF's FilterBank.lf says so too), which would change the
//   program.
// - piprecise: per round (tag) the manager's dispatch, `workers` independent term
//   computations, the manager's sum: the same parallelism in both modes.
// - astar: per round (tag) the manager's dispatch, up to `workers` independent searches, the
//   manager's merge: the same parallelism in both modes; the round ends with its longest
//   search either way.
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "../savina/savina_checks.hpp"
#include "../savina/savina_workloads.hpp"
#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;
using namespace savina;

// ---------------------------------------------------------------- filterbank
// The producer's logical action fires once per simulation and asks the source for its next
// value; the source's value goes to every bank (a broadcast: Savina's Branches actor is not
// needed), and Combine receives every bank's value of a tag at once on its multiport (Savina's
// TaggedForward and Integrator are not needed either), adds them in channel order and hands the
// sum to the sink. A FIR gives nothing until its ring is full: then no bank gives a value, and
// Combine does not run.

struct fb_producer : reactor {
  logical_action<void> again{this, "again"};
  output<void> next{this, "next"};
  std::int64_t simulations, sent = 0;

  fb_producer(context ctx, std::int64_t count) : reactor(ctx), simulations(count) {
    reaction("produce")
        .triggers(startup, again)
        .effects(next, again)
        .body([this](port_writer<void>& next, action_scheduler<void>& again) {
          next.set();
          if (++sent < simulations) again.schedule();
        });
  }
};

struct fb_source_reactor : reactor {
  input<void> next{this, "next"};
  output<double> value{this, "value"};
  std::int64_t t = 0;
  explicit fb_source_reactor(context ctx) : reactor(ctx) {
    reaction("send").triggers(next).effects(value).body(
        [this](port_writer<double>& out) { out.set(filterbank_source(t++)); });
  }
};

/// One stage of a bank: `Filter` (fb_delay, fb_fir, fb_sampler) says what it gives.
template <class Filter>
struct fb_stage_reactor : reactor {
  input<double> in{this, "in"};
  output<double> out{this, "out"};
  Filter filter;
  fb_stage_reactor(context ctx, Filter stage) : reactor(ctx), filter(std::move(stage)) {
    reaction("filter").triggers(in).effects(out).body([this](port_writer<double>& out) {
      double v = 0;
      if (filter.push(in.get(), v)) out.set(v);
    });
  }
};

struct fb_bank : reactor {
  input<double> in{this, "in"};
  output<double> out{this, "out"};
  fb_stage_reactor<fb_delay> delay0;
  fb_stage_reactor<fb_fir> fir0;
  fb_stage_reactor<fb_sampler> sampler;
  fb_stage_reactor<fb_delay> delay1;
  fb_stage_reactor<fb_fir> fir1;

  fb_bank(context ctx, const filterbank_case& c)
      : reactor(ctx),
        delay0{{this, "delay0"}, fb_delay(c.columns - 1)},
        fir0{{this, "fir0"}, fb_fir(c.coefficients.h[bank_index()])},
        sampler{{this, "sampler"}, fb_sampler(c.columns)},
        delay1{{this, "delay1"}, fb_delay(c.columns - 1)},
        fir1{{this, "fir1"}, fb_fir(c.coefficients.f[bank_index()])} {
    connect(in, delay0.in);
    connect(ports(delay0.out, fir0.out, sampler.out, delay1.out),
            ports(fir0.in, sampler.in, delay1.in, fir1.in));
    connect(fir1.out, out);
  }
};

struct fb_combine_reactor : reactor {
  multiport_input<double> in;
  output<double> out{this, "out"};
  fb_combine_reactor(context ctx, std::size_t channels) : reactor(ctx), in{this, "in", channels} {
    reaction("combine").triggers(in).effects(out).body([this](port_writer<double>& out) {
      double sum = 0;  // every bank gives a value at the same tags: get() throws otherwise
      for (const auto& channel : in) sum += channel.get();
      out.set(sum);
    });
  }
};

struct fb_sink_reactor : reactor {
  input<double> in{this, "in"};
  std::vector<double> values;
  explicit fb_sink_reactor(context ctx) : reactor(ctx) {
    reaction("keep").triggers(in).body([this] { values.push_back(in.get()); });
  }
};

struct fb_program : reactor {
  fb_producer producer;
  fb_source_reactor source;
  bank<fb_bank> banks;
  fb_combine_reactor combine;
  fb_sink_reactor sink;

  fb_program(context ctx, const filterbank_case& c)
      : reactor(ctx),
        producer{{this, "producer"}, c.simulations},
        source{{this, "source"}},
        banks{this, "banks", std::size_t(c.channels), c},
        combine{{this, "combine"}, std::size_t(c.channels)},
        sink{{this, "sink"}} {
    connect(producer.next, source.next);
    connect(broadcast(source.value), banks.ports(&fb_bank::in));
    connect(banks.ports(&fb_bank::out), combine.in);
    connect(combine.out, sink.in);
  }
};

json filterbank(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const filterbank_case c(p);
  double sum = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<fb_program>(
        rt, p,
        [&](fb_program& program) {
          c.check(program.sink.values);
          sum = filterbank_case::sum(program.sink.values);
        },
        c);
  });
  m["result"] = sum;  // checked equal to the sequential reference, bit for bit
  return m;
}

// ---------------------------------------------------------------- piprecise
// The manager's logical action starts a round: it asks each worker for the next term index;
// the workers' BBP terms come back in the same tag and the manager adds them in worker order
// (exact integers, units of 10^-precision). A term of at most one unit ends the search after
// its round, as the tolerance ends Savina's; otherwise the action starts the next round.

struct pi_worker_reactor : reactor {
  input<std::int64_t> work{this, "work"};
  output<mpz_class> term{this, "term"};
  const mpz_class* unit;  ///< 10^precision, read only (shared by the workers)
  pi_worker_reactor(context ctx, const mpz_class& one) : reactor(ctx), unit(&one) {
    reaction("term").triggers(work).effects(term).body(
        [this](port_writer<mpz_class>& out) { out.set(bbp_term(*unit, work.get())); });
  }
};

struct pi_manager : reactor {
  logical_action<void> next{this, "next"};
  multiport_output<std::int64_t> work;
  multiport_input<mpz_class> terms;
  std::int64_t requested = 0;
  pi_sum result;

  pi_manager(context ctx, std::size_t workers)
      : reactor(ctx), work{this, "work", workers}, terms{this, "terms", workers} {
    reaction("ask")
        .triggers(startup, next)
        .effects(work)
        .body([this](multiport_writer<std::int64_t>& out) {
          for (auto& w : out) w.set(requested++);
        });
    reaction("add").triggers(terms).effects(next).body([this](action_scheduler<void>& again) {
      bool small = false;
      for (const auto& t : terms) {
        const mpz_class& value = t.get();  // every worker answers every round
        result.sum += value;
        ++result.terms;
        if (value <= 1) small = true;  // the tolerance: one unit
      }
      if (!small) again.schedule();
    });
  }
};

struct pi_program : reactor {
  pi_manager manager;
  bank<pi_worker_reactor> workers;
  pi_program(context ctx, const piprecise_case& c)
      : reactor(ctx),
        manager{{this, "manager"}, std::size_t(c.workers)},
        workers{this, "workers", std::size_t(c.workers), c.unit} {
    connect(manager.work, workers.ports(&pi_worker_reactor::work));
    connect(workers.ports(&pi_worker_reactor::term), manager.terms);
  }
};

json piprecise(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const piprecise_case c(p);
  std::uint64_t digits = 0;
  std::int64_t terms = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<pi_program>(
        rt, p,
        [&](pi_program& program) {
          const pi_sum& r = program.manager.result;
          c.check(r);
          // The sum's last 18 digits: they depend on every term added.
          digits = mpz_fdiv_ui(r.sum.get_mpz_t(), 1'000'000'000'000'000'000ul);
          terms = r.terms;
        },
        c);
  });
  m["result"] = digits;
  m["terms"] = terms;  // rounds of `workers` terms: the same in every run
  return m;
}

// ---------------------------------------------------------------- astar
// The manager keeps a queue of nodes to search from (the origin first) and gives, per round,
// the next one to each worker; a worker searches breadth-first from it, after Savina's busy
// wait for each node it takes, until it reaches the target or has taken `threshold` nodes, and
// returns the nodes it claimed (with the node it reached each from), what is left in its queue
// and whether it reached the target. The manager merges the claims in worker order, the
// earlier claim of a node winning, queues what each worker has left of the nodes it won, and
// its logical action starts the next round until the target is claimed or nothing is left.
//
// Savina's and LF's workers claim nodes by a compare-and-swap on the shared grid, so which
// worker claims which node, and the path, depend on the interleaving. Here the claims of the
// earlier rounds are read-only while the workers run (only the manager's merge writes them,
// after every worker of the round), and a worker keeps its own claims of the round to itself:
// the search is deterministic. Workers of one round may claim the same nodes (what the
// compare-and-swap would have refused), so a round can do more work than Savina's would.

struct as_claim {
  std::int32_t node, by;
};
struct as_report {
  std::vector<as_claim> claims;    ///< in the order claimed
  std::vector<std::int32_t> left;  ///< the search queue when the worker stopped
  bool found = false;
};

struct as_worker_reactor : reactor {
  input<std::int32_t> work{this, "work"};
  output<as_report> report{this, "report"};
  const search_grid* grid;
  const std::vector<std::int32_t>* parent;  ///< the manager's: claims of earlier rounds
  std::int64_t threshold;
  /// The nodes this worker's current search has claimed: one bit a node (nodes / 8 bytes a
  /// worker, 38 MB for 20 workers at the largest grid), cleared after each search through its
  /// claims, so that a search costs what it claims, not the grid's size.
  std::vector<bool> claimed;
  std::deque<std::int32_t> queue;
  std::uint64_t busy = 0;  ///< the busy waits' result, kept so that they are not dropped

  as_worker_reactor(context ctx, const astar_case& c, const std::vector<std::int32_t>* claims)
      : reactor(ctx),
        grid(&c.grid),
        parent(claims),
        threshold(c.threshold),
        claimed(std::size_t(c.grid.nodes()), false) {
    reaction("search").triggers(work).effects(report).body([this](port_writer<as_report>& out) {
      as_report r = search(work.get());
      for (const as_claim& claim : r.claims) claimed[std::size_t(claim.node)] = false;
      out.set(std::move(r));
    });
  }
  as_report search(std::int32_t from) {
    as_report r;
    const std::int32_t target = grid->target();
    queue.assign(1, from);
    for (std::int64_t taken = 0; !queue.empty() && taken < threshold; ++taken) {
      busy = busy_wait(100, busy + std::uint64_t(queue.front()));  // Savina: 100 draws
      const std::int32_t node = queue.front();
      queue.pop_front();
      for (std::int32_t e = grid->first[std::size_t(node)]; e < grid->first[std::size_t(node) + 1];
           ++e) {
        const std::int32_t next = grid->neighbour[std::size_t(e)];
        if ((*parent)[std::size_t(next)] >= 0 || claimed[std::size_t(next)]) continue;
        claimed[std::size_t(next)] = true;
        r.claims.push_back({next, node});
        if (next == target) {
          r.found = true;
          return r;  // as Savina's: the rest of the queue is dropped
        }
        queue.push_back(next);
      }
    }
    r.left.assign(queue.begin(), queue.end());
    return r;
  }
};

struct as_manager : reactor {
  logical_action<void> next{this, "next"};
  multiport_output<std::int32_t> work;
  multiport_input<as_report> reports;
  std::vector<std::int32_t> parent;   ///< who claimed each node (-1: nobody)
  std::vector<std::uint32_t> won_by;  ///< the report whose claim of a node won
  std::deque<std::int32_t> queue;
  std::uint32_t merged = 0;
  bool found = false;

  as_manager(context ctx, std::size_t workers, std::int32_t nodes)
      : reactor(ctx),
        work{this, "work", workers},
        reports{this, "reports", workers},
        parent(std::size_t(nodes), -1),
        won_by(std::size_t(nodes), 0) {
    // The origin is claimed from the start (by itself), as in the actor versions.
    parent[search_grid::origin] = search_grid::origin;
    queue.push_back(search_grid::origin);
    reaction("dispatch")
        .triggers(startup, next)
        .effects(work)
        .body([this](multiport_writer<std::int32_t>& out) {
          for (std::size_t i = 0; i < out.size() && !queue.empty(); ++i) {
            out[i].set(queue.front());
            queue.pop_front();
          }
        });
    reaction("merge").triggers(reports).effects(next).body([this](action_scheduler<void>& again) {
      for (std::size_t i = 0; i < reports.size(); ++i) {
        if (!reports[i].is_present()) continue;
        const as_report& r = reports[i].get();
        const std::uint32_t stamp = ++merged;
        for (const as_claim& claim : r.claims) {
          if (parent[std::size_t(claim.node)] >= 0) continue;  // an earlier worker's
          parent[std::size_t(claim.node)] = claim.by;
          won_by[std::size_t(claim.node)] = stamp;
        }
        found = found || r.found;
        for (const std::int32_t node : r.left) {
          if (won_by[std::size_t(node)] == stamp) queue.push_back(node);
        }
      }
      if (!found && !queue.empty()) again.schedule();
    });
  }
};

struct as_program : reactor {
  as_manager manager;
  bank<as_worker_reactor> workers;
  as_program(context ctx, const astar_case& c)
      : reactor(ctx),
        manager{{this, "manager"}, std::size_t(c.workers), c.grid.nodes()},
        workers{this, "workers", std::size_t(c.workers), c, &manager.parent} {
    connect(manager.work, workers.ports(&as_worker_reactor::work));
    connect(workers.ports(&as_worker_reactor::report), manager.reports);
  }
};

json astar(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const astar_case c(p);
  std::int64_t hops = 0, claimed = 0;
  std::uint64_t digest = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<as_program>(
        rt, p,
        [&](as_program& program) {
          const auto& parent = program.manager.parent;
          hops = c.check(program.manager.found,
                         [&](std::int32_t v) { return parent[std::size_t(v)]; });
          claimed = 0;
          digest = 0;
          for (std::size_t v = 0; v < parent.size(); ++v) {
            if (parent[v] < 0) continue;
            ++claimed;
            digest += (std::uint64_t(v) * 2 + 1) * (std::uint64_t(parent[v]) + 1);
          }
        },
        c);
  });
  m["result"] = digest;  // who claimed which node: deterministic here
  m["path_hops"] = hops;
  m["nodes_claimed"] = claimed;
  m["shortest_hops"] = c.shortest();
  return m;
}

}  // namespace

void register_reactor_savina_signal(bench_registry& r) {
  r.implement("filterbank", "spate-reactor", filterbank);
  r.implement("piprecise", "spate-reactor", piprecise);
  r.implement("astar", "spate-reactor", astar);
}

}  // namespace spate_bench
