// Savina's array benchmarks radixsort, recmatmul and apsp as spate reactors (impl
// `spate-reactor`), structured as Lingua Franca's benchmark suite writes them
// (lf-lang/benchmarks-lingua-franca, Cpp/Savina/src/parallelism: RadixSort.lf, MatMul.lf,
// Apsp.lf). Inputs, sequential references and checks are the actor versions'
// (bench/savina/savina_workloads.hpp, savina_checks.hpp); each reports a `result` that
// summarises what it computed and is the same on any worker count in either `--mode`.
//
// Dependency structure per tag, and what `--mode=precise` could add over `--mode=levels`:
// - radixsort: one value moves per tag (the source's next one, or the draining stage's next
//   kept one) and goes down the chain stage after stage in that tag until a stage keeps it.
//   The reactions of a tag form one path, each waiting for the one before: there is never
//   more than one reaction ready, so neither mode runs anything in parallel. Precise mode
//   cannot add parallelism here; what differs is the cost of each step of the path (a
//   per-reaction counter and the finishing worker running the next reaction itself, against
//   a barrier at each of the chain's levels). This is the benchmark the LF paper (Sect. 5)
//   blames its level scheduler for; the structure leaves a scheduler only overhead to save.
// - recmatmul: per round (tag) the manager's dispatch, then up to `workers` independent
//   worker reactions, then the manager's collect: three levels, and each worker depends on
//   the dispatch alone, so both modes run the same workers in parallel.
// - apsp: per k (tag) every block publishes its values (one level), then every block relaxes
//   with its row's and column's values (the next level). A block's relaxation needs 2·side-1
//   publications, not all side², so precise mode may start it a little earlier, but the
//   publications are pointer stores: both modes run the side² relaxations in parallel, and
//   the tag ends when the slowest does in both.
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "../savina/savina_checks.hpp"
#include "../savina/savina_workloads.hpp"
#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;
using namespace savina;

// ---------------------------------------------------------------- radixsort
// A source sends one value per microstep (its logical action) into a chain of one stage per
// bit, lowest bit first; the last stage feeds a validator. A stage passes a value whose bit is
// 0 on in the same tag and keeps the others; after the last value it sends what it kept, in
// arrival order, one per microstep (its logical action). A stage's two reactions never write
// its output at the same tag: it drains only after its last input, and inputs come from one
// upstream stage, which has finished by then.

struct rs_source : reactor {
  logical_action<void> next{this, "next"};
  output<std::uint64_t> out{this, "out"};
  const std::vector<std::uint64_t>* values;
  std::size_t sent = 0;

  rs_source(context ctx, const std::vector<std::uint64_t>* to_send)
      : reactor(ctx), values(to_send) {
    reaction("send")
        .triggers(startup, next)
        .effects(out, next)
        .body([this](port_writer<std::uint64_t>& out, action_scheduler<void>& again) {
          out.set((*values)[sent]);
          if (++sent < values->size()) again.schedule();
        });
  }
};

struct rs_stage : reactor {
  input<std::uint64_t> in{this, "in"};
  output<std::uint64_t> out{this, "out"};
  logical_action<void> drain{this, "drain"};
  std::uint64_t radix;
  std::size_t count, seen = 0, drained = 0;
  std::vector<std::uint64_t> kept;

  rs_stage(context ctx, std::size_t values)
      : reactor(ctx), radix(std::uint64_t(1) << bank_index()), count(values) {
    kept.reserve(count);  // untimed, as LF's startup reservation
    reaction("split")
        .triggers(in)
        .effects(out, drain)
        .body([this](port_writer<std::uint64_t>& out, action_scheduler<void>& drain) {
          const std::uint64_t v = in.get();
          if ((v & radix) != 0) {
            kept.push_back(v);
          } else {
            out.set(v);
          }
          if (++seen == count && !kept.empty()) drain.schedule();
        });
    reaction("drain")
        .triggers(drain)
        .effects(out, drain)
        .body([this](port_writer<std::uint64_t>& out, action_scheduler<void>& again) {
          out.set(kept[drained]);
          if (++drained < kept.size()) again.schedule();
        });
  }
};

struct rs_validator : reactor {
  input<std::uint64_t> in{this, "in"};
  std::vector<std::uint64_t> sorted;
  rs_validator(context ctx, std::size_t count) : reactor(ctx) {
    sorted.reserve(count);
    reaction("take").triggers(in).body([this] { sorted.push_back(in.get()); });
  }
};

struct rs_program : reactor {
  rs_source source;
  bank<rs_stage> stages;
  rs_validator validator;

  rs_program(context ctx, const radixsort_case& c)
      : reactor(ctx),
        source{{this, "source"}, &c.values},
        stages{this, "stages", std::size_t(c.bits), std::size_t(c.count)},
        validator{{this, "validator"}, std::size_t(c.count)} {
    // LF's `source.out, stages.out -> stages.in, validator.in`: each stage feeds the next.
    connect(ports(source.out, stages.ports(&rs_stage::out)),
            ports(stages.ports(&rs_stage::in), validator.in));
  }
};

json radixsort(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const radixsort_case c(p);
  std::uint64_t digest = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<rs_program>(
        rt, p,
        [&](rs_program& program) {
          c.check(program.validator.sorted);
          digest = radixsort_case::digest(program.validator.sorted);
        },
        c);
  });
  m["result"] = digest;
  return m;
}

// ---------------------------------------------------------------- recmatmul
// The manager sends, per round, one block of C = A·B to each worker that has one queued; a
// worker splits a block above the threshold into eight quarter products (returned in the
// same tag) and multiplies one below it into the shared C. The manager's logical action
// starts the next round (the loop breaker). Work is queued per worker by the block of C it
// adds to (Savina's routing): a worker takes one block per round, so no two reactions of a
// tag add into the same cells. (LF's port hands blocks out first come, first served and lets
// two workers add into one block at once; its own comment calls that a race.)

using mm_split = std::array<matmul_work, 8>;

struct mm_worker : reactor {
  input<matmul_work> work{this, "work"};
  output<mm_split> split{this, "split"};

  mm_worker(context ctx, matmul_data* data, std::int64_t threshold) : reactor(ctx) {
    reaction("multiply")
        .triggers(work)
        .effects(split)
        .body([this, data, threshold](port_writer<mm_split>& out) {
          const matmul_work& w = work.get();
          if (w.blocks > threshold) {
            out.set(split_matmul(w));
          } else {
            multiply_block(*data, w);
          }
        });
  }
};

struct mm_manager : reactor {
  logical_action<void> next{this, "next"};
  multiport_output<matmul_work> work;
  multiport_input<mm_split> split;
  std::vector<std::deque<matmul_work>> queues;  ///< per worker
  std::int64_t dispatched = 0;

  mm_manager(context ctx, std::size_t workers, matmul_work whole)
      : reactor(ctx), work{this, "work", workers}, split{this, "split", workers}, queues(workers) {
    reaction("start").triggers(startup).effects(next).body(
        [this, whole](action_scheduler<void>& next) {
          enqueue(whole);
          next.schedule();
        });
    reaction("dispatch")
        .triggers(next)
        .effects(work, next)
        .body([this](multiport_writer<matmul_work>& out, action_scheduler<void>& again) {
          bool sent = false;
          for (std::size_t i = 0; i < queues.size(); ++i) {
            if (queues[i].empty()) continue;
            out[i].set(queues[i].front());
            queues[i].pop_front();
            ++dispatched;
            sent = true;
          }
          // A round's splits come back in its own tag: when nothing was sent, nothing is
          // left to do.
          if (sent) again.schedule();
        });
    reaction("collect").triggers(split).body([this] {
      for (std::size_t i = 0; i < split.size(); ++i) {
        if (!split[i].is_present()) continue;
        for (const matmul_work& quarter : split[i].get()) enqueue(quarter);
      }
    });
  }
  void enqueue(const matmul_work& w) { queues[matmul_worker(w, queues.size())].push_back(w); }
};

struct mm_program : reactor {
  mm_manager manager;
  bank<mm_worker> workers;

  mm_program(context ctx, const recmatmul_case& c, matmul_data* data)
      : reactor(ctx),
        manager{{this, "manager"}, std::size_t(c.workers), c.whole()},
        workers{this, "workers", std::size_t(c.workers), data, c.threshold} {
    connect(manager.work, workers.ports(&mm_worker::work));
    connect(workers.ports(&mm_worker::split), manager.split);
  }
};

json recmatmul(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const recmatmul_case c(p);
  matmul_data data(static_cast<std::size_t>(c.n));
  double sum = 0;
  json m = savina_iterations(p, [&] {
    std::fill(data.c.begin(), data.c.end(), 0.0);  // untimed, before the program exists
    return reactor_iteration<mm_program>(
        rt, p,
        [&](mm_program&) {
          c.check(data);
          sum = recmatmul_case::sum(data);
        },
        c, &data);
  });
  m["result"] = sum;
  return m;
}

// ---------------------------------------------------------------- apsp
// Blocked Floyd–Warshall, one reactor per block, as LF's Apsp.lf: a bank of rows, each a bank
// of blocks. A block publishes its values; every block of its block-row gets them through the
// row's broadcast (itself included), every block of its block-column through the row's
// `to_col` outputs, broadcast to all rows, and each row's interleaved `from_col` inputs. In
// the tag of iteration k a block relaxes through node k with the values its neighbours
// published, and its logical action publishes the result one microstep later (the loop
// breaker): one microstep per k. Blocks are shared immutable values, never copied.

using ap_values = std::vector<std::int64_t>;

struct ap_block : reactor {
  multiport_input<ap_values> from_row, from_col;  ///< [block column], [block row]
  output<ap_values> to_neighbors{this, "to_neighbors"};
  logical_action<void> publish{this, "publish"};
  std::shared_ptr<const ap_values> data;
  std::size_t k = 0;  ///< iterations done

  ap_block(context ctx, std::size_t row, const apsp_case& c)
      : reactor(ctx),
        from_row{this, "from_row", c.side},
        from_col{this, "from_col", c.side},
        data(std::make_shared<const ap_values>(
            apsp_block(c.graph, c.nodes, c.block, row, bank_index()))) {
    reaction("start").triggers(startup).effects(publish).body(
        [](action_scheduler<void>& publish) { publish.schedule(); });
    reaction("publish")
        .triggers(publish)
        .effects(to_neighbors)
        .body([this](port_writer<ap_values>& out) { out.set(data); });
    reaction("relax")
        .triggers(from_row, from_col)
        .effects(publish)
        .body([this, b = c.block, nodes = c.nodes](action_scheduler<void>& again) {
          // Node k's distances from this block's rows are in the block of this block-row that
          // holds column k; its distances to this block's columns in the block of this
          // block-column that holds row k.
          const std::size_t holder = k / b, offset = k % b;
          data = std::make_shared<const ap_values>(
              apsp_relax(*data, from_row[holder].get(), from_col[holder].get(), offset, b));
          if (++k < nodes) again.schedule();
        });
  }
};

struct ap_row : reactor {
  multiport_input<ap_values> from_col;  ///< every block's values, row-major
  multiport_output<ap_values> to_col;   ///< this row's blocks' values
  bank<ap_block> blocks;

  ap_row(context ctx, const apsp_case& c)
      : reactor(ctx),
        from_col{this, "from_col", c.side * c.side},
        to_col{this, "to_col", c.side},
        blocks{this, "blocks", c.side, bank_index(), c} {
    connect(broadcast(blocks.ports(&ap_block::to_neighbors)), blocks.ports(&ap_block::from_row));
    connect(blocks.ports(&ap_block::to_neighbors), to_col);
    // Channel r·side + c of from_col is block (r, c): it goes to this row's block c as its
    // from_col[r].
    connect(from_col, blocks.interleaved(&ap_block::from_col));
  }
};

struct ap_program : reactor {
  bank<ap_row> rows;
  ap_program(context ctx, const apsp_case& c) : reactor(ctx), rows{this, "rows", c.side, c} {
    connect(broadcast(rows.ports(&ap_row::to_col)), rows.ports(&ap_row::from_col));
  }
};

json apsp(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const apsp_case c(p);
  std::int64_t sum = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<ap_program>(
        rt, p,
        [&](ap_program& program) {
          std::vector<std::int64_t> distances(c.nodes * c.nodes, -1);
          for (std::size_t r = 0; r < c.side; ++r) {
            for (std::size_t col = 0; col < c.side; ++col) {
              const ap_block& b = program.rows[r].blocks[col];
              require(b.k == c.nodes, "apsp",
                      "block (" + std::to_string(r) + ", " + std::to_string(col) + ") did " +
                          std::to_string(b.k) + " iterations, expected " + std::to_string(c.nodes));
              for (std::size_t i = 0; i < c.block; ++i) {
                std::copy_n(b.data->begin() + std::ptrdiff_t(i * c.block), c.block,
                            distances.begin() +
                                std::ptrdiff_t((r * c.block + i) * c.nodes + col * c.block));
              }
            }
          }
          c.check(distances);
          sum = apsp_case::sum(distances);
        },
        c);
  });
  m["result"] = sum;
  return m;
}

}  // namespace

void register_reactor_savina_arrays(bench_registry& r) {
  r.implement("radixsort", "spate-reactor", radixsort);
  r.implement("recmatmul", "spate-reactor", recmatmul);
  r.implement("apsp", "spate-reactor", apsp);
}

}  // namespace spate_bench
