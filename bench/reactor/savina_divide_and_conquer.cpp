// Savina's dynamic-creation benchmarks that build a structure for one computation and let
// it collapse, as spate reactors (impl `spate-reactor`): fjcreate, fib, quicksort and
// bitonicsort. Reactors cannot be created by a plain call the way Savina creates actors;
// every reactor here is created by a mutation (docs/reactors.md, "Mutations"), so these
// measure mutations as much as reactions. Each run checks its result and fails when wrong.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../../examples/reactor_fib.hpp"
#include "../savina/savina_checks.hpp"
#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;

// ---------------------------------------------------------------- fjcreate
// Savina's ForkJoin actor creation: n workers are created, each does one small computation
// (sin² of 37.2) and is done. Here one mutation creates the n workers; each reports through
// its own channel of the creator's multiport, and the creator counts the reports.

struct fj_worker : reactor {
  output<double> done{this, "done"};
  double theta;
  fj_worker(context ctx, double theta) : reactor(ctx), theta(theta) {
    reaction("compute").triggers(startup).effects(done).body([this](port_writer<double>& done) {
      const double s = std::sin(this->theta);
      done.set(s * s);
    });
  }
};

struct fjcreate_program : reactor {
  multiport_input<double> finished;
  std::int64_t completed = 0;
  double total = 0;
  fjcreate_program(context ctx, std::size_t n, double theta)
      : reactor(ctx), finished{this, "finished", n} {
    reaction("fork").triggers(startup).effects(mutations).body([this, n, theta](mutator& m) {
      for (std::size_t i = 0; i < n; ++i)
        m.connect(m.create<fj_worker>(numbered("w", i), theta).done, finished[i]);
    });
    reaction("join").triggers(finished).body([this] {
      for (auto& channel : finished) {
        if (!channel.is_present()) continue;
        ++completed;
        total += channel.get();
      }
    });
  }
};

json fjcreate(const bench_params& p) {
  const savina::fjcreate_case c(p);  // shared with the actor version
  spate::runtime rt{reactor_runtime_config(p)};
  return savina_iterations(p, [&] {
    return reactor_iteration<fjcreate_program>(
        rt, p, [&](fjcreate_program& program) { c.check(program.completed, program.total); },
        std::size_t(c.n), double(savina::fjcreate_case::theta));
  });
}

// ---------------------------------------------------------------- fib
// Savina's Fibonacci by recursive creation (examples/reactor_fib.hpp).

struct fib_program : reactor {
  spate_examples::fib_node root;
  long result = -1;
  fib_program(context ctx, int n) : reactor(ctx), root{{this, "fib"}, n} {
    reaction("done").triggers(root.out).body([this] { result = root.out.get(); });
  }
};

json fib(const bench_params& p) {
  const savina::fib_case c(p);  // shared with the actor version
  spate::runtime rt{reactor_runtime_config(p)};
  return savina_iterations(p, [&] {
    return reactor_iteration<fib_program>(
        rt, p, [&](fib_program& program) { c.check(program.result); }, int(c.n));
  });
}

// ---------------------------------------------------------------- quicksort
// Savina's QuickSort: a node with fewer than `threshold` values sorts them itself; a larger
// one keeps the values equal to its pivot, creates a child for the smaller and one for the
// larger values, concatenates their results and removes them. Savina's leaves run its own
// recursive list quicksort; these call std::sort.

using values = std::vector<std::int64_t>;

struct quicksort_node : reactor {
  output<values> sorted{this, "sorted"};
  input<values> from_left{this, "from_left"}, from_right{this, "from_right"};
  values data, equal;
  quicksort_node *left = nullptr, *right = nullptr;
  std::optional<values> left_result, right_result;

  quicksort_node(context ctx, values data_to_sort, std::size_t threshold)
      : reactor(ctx), data(std::move(data_to_sort)) {
    reaction("split")
        .triggers(startup)
        .effects(sorted, mutations)
        .body([this, threshold](port_writer<values>& sorted, mutator& m) {
          if (data.size() < threshold) {
            std::sort(data.begin(), data.end());
            sorted.set(std::move(data));
            return;
          }
          const std::int64_t pivot = data[data.size() / 2];
          values less, greater;
          for (std::int64_t v : data) {
            if (v < pivot)
              less.push_back(v);
            else if (v > pivot)
              greater.push_back(v);
            else
              equal.push_back(v);
          }
          values().swap(data);
          left = &m.create<quicksort_node>("left", std::move(less), threshold);
          right = &m.create<quicksort_node>("right", std::move(greater), threshold);
          m.connect(left->sorted, from_left);
          m.connect(right->sorted, from_right);
        });
    reaction("join")
        .triggers(from_left, from_right)
        .effects(sorted, mutations)
        .body([this](port_writer<values>& sorted, mutator& m) {
          if (from_left.is_present()) left_result = from_left.get();
          if (from_right.is_present()) right_result = from_right.get();
          if (!left_result || !right_result) return;
          values all;
          all.reserve(left_result->size() + equal.size() + right_result->size());
          all.insert(all.end(), left_result->begin(), left_result->end());
          all.insert(all.end(), equal.begin(), equal.end());
          all.insert(all.end(), right_result->begin(), right_result->end());
          sorted.set(std::move(all));
          m.remove(*left);
          m.remove(*right);
        });
  }
};

struct quicksort_program : reactor {
  quicksort_node root;
  values result;
  quicksort_program(context ctx, values input, std::size_t threshold)
      : reactor(ctx), root{{this, "sort"}, std::move(input), threshold} {
    reaction("done").triggers(root.sorted).body([this] { result = root.sorted.get(); });
  }
};

json quicksort(const bench_params& p) {
  const savina::quicksort_case c(p);  // input and check shared with the actor version
  spate::runtime rt{reactor_runtime_config(p)};
  return savina_iterations(p, [&] {
    return reactor_iteration<quicksort_program>(
        rt, p, [&](quicksort_program& program) { c.check(program.result); }, values(c.input),
        std::size_t(c.threshold));
  });
}

// ---------------------------------------------------------------- bitonicsort
// Savina's BitonicSort streams values through a sorting network of actors built from
// round-robin splitters, joiners and compare-exchange actors. As reactors the same network
// is one compare-exchange reactor per comparator (n/2 per step, log n (log n + 1) / 2
// steps), built by one mutation at startup because its shape depends on n; all n values
// then cross the whole network in one tag, each comparator a reaction that runs as soon as
// its two inputs are known.

struct comparator : reactor {
  input<std::int64_t> a{this, "a"}, b{this, "b"};
  output<std::int64_t> to_a{this, "to_a"}, to_b{this, "to_b"};
  comparator(context ctx, bool ascending) : reactor(ctx) {
    reaction("compare")
        .triggers(a, b)
        .effects(to_a, to_b)
        .body([this, ascending](port_writer<std::int64_t>& to_a, port_writer<std::int64_t>& to_b) {
          const auto [low, high] = std::minmax(a.get(), b.get());
          to_a.set(ascending ? low : high);
          to_b.set(ascending ? high : low);
        });
  }
};

struct bitonic_program : reactor {
  multiport_output<std::int64_t> unsorted;
  multiport_input<std::int64_t> sorted;
  logical_action<void> feed{this, "feed"};
  values input, result;
  std::size_t comparators = 0;

  bitonic_program(context ctx, values data)
      : reactor(ctx),
        unsorted{this, "unsorted", data.size()},
        sorted{this, "sorted", data.size()},
        input(std::move(data)) {
    reaction("build")
        .triggers(startup)
        .effects(mutations, feed)
        .body([this](mutator& m, action_scheduler<void>& feed) {
          build(m);
          feed.schedule();
        });
    reaction("feed").triggers(feed).effects(unsorted).body(
        [this](multiport_writer<std::int64_t>& out) {
          for (std::size_t i = 0; i < input.size(); ++i) out[i].set(input[i]);
        });
    reaction("collect").triggers(sorted).body([this] {
      result.clear();
      for (auto& channel : sorted)
        if (channel.is_present()) result.push_back(channel.get());
    });
  }

  // The iterative bitonic network: for each block size k and distance j, position i meets
  // position i ^ j, ascending when bit k of i is clear. `wire[i]` is the output that
  // carries position i into the next step.
  void build(mutator& m) {
    const std::size_t n = input.size();
    std::vector<output<std::int64_t>*> wire(n);
    for (std::size_t i = 0; i < n; ++i) wire[i] = &unsorted[i];
    for (std::size_t k = 2; k <= n; k *= 2) {
      for (std::size_t j = k / 2; j > 0; j /= 2) {
        for (std::size_t i = 0; i < n; ++i) {
          const std::size_t partner = i ^ j;
          if (partner <= i) continue;
          auto& c = m.create<comparator>(numbered("c", comparators++), (i & k) == 0);
          m.connect(*wire[i], c.a);
          m.connect(*wire[partner], c.b);
          wire[i] = &c.to_a;
          wire[partner] = &c.to_b;
        }
      }
    }
    for (std::size_t i = 0; i < n; ++i) m.connect(*wire[i], sorted[i]);
  }
};

json bitonicsort(const bench_params& p) {
  const savina::bitonicsort_case c(p);  // input and check shared with the actor version
  spate::runtime rt{reactor_runtime_config(p)};
  return savina_iterations(p, [&] {
    return reactor_iteration<bitonic_program>(
        rt, p, [&](bitonic_program& program) { c.check(program.result); }, values(c.input));
  });
}

}  // namespace

void register_spate_reactor_divide_and_conquer(bench_registry& r) {
  r.implement("fjcreate", "spate-reactor", fjcreate);
  r.implement("fib", "spate-reactor", fib);
  r.implement("quicksort", "spate-reactor", quicksort);
  r.implement("bitonicsort", "spate-reactor", bitonicsort);
}

}  // namespace spate_bench
