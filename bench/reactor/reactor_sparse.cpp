// reactor_sparse: one trigger reaches a whole program but runs a path through it (the shape
// of uct and facloc, reduced to its cost). Per tag, a root reaction writes the input of one
// of `reactions` leaves; only that leaf runs. A cone tag walks every leaf; a sparse tag
// (reaction_scheduler.hpp, "Sparse tags") looks at the one that runs. `--sparse=never`
// against `--sparse=automatic` measures the difference.
#include <cstdint>
#include <vector>

#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;

struct sparse_leaf : reactor {
  input<std::int64_t> in{this, "in"};
  std::int64_t sum = 0, count = 0;
  explicit sparse_leaf(context ctx) : reactor(ctx) {
    reaction("add").triggers(in).body([this] {
      sum += in.get();
      ++count;
    });
  }
};

struct sparse_program : reactor {
  logical_action<std::int64_t> next{this, "next"};
  bank<sparse_leaf> leaves;
  sparse_program(context ctx, std::size_t width, std::int64_t tags)
      : reactor(ctx), leaves{this, "leaves", width} {
    reaction("start").triggers(startup).effects(next).body(
        [](action_scheduler<std::int64_t>& n) { n.schedule(0); });
    reaction("send")
        .triggers(next)
        .effects(leaves.ports(&sparse_leaf::in), next)
        .body([width, tags, this](multiport_writer<std::int64_t>& out,
                                  action_scheduler<std::int64_t>& n) {
          const std::int64_t i = next.get();
          out[leaf_of(i, width)].set(i);
          if (i + 1 < tags) n.schedule(i + 1);
        });
  }
  // A stride coprime with any width visits the leaves in a scattered order.
  static std::size_t leaf_of(std::int64_t i, std::size_t width) {
    return static_cast<std::size_t>(i * 7919) % width;
  }
};

json reactor_sparse(const bench_params& p) {
  const auto width = static_cast<std::size_t>(p.integer("reactions"));
  const std::int64_t tags = p.integer("tags");
  if (width < 1 || tags < 1) throw usage_error("reactor_sparse needs reactions >= 1, tags >= 1");
  spate::runtime rt{reactor_runtime_config(p)};
  environment_options options;
  options.mode = mode_of(p);
  options.sparse = sparse_of(p);
  options.fast = true;
  environment env{rt, options};
  auto& program = env.make_top<sparse_program>("main", width, tags);
  env.assemble();
  json m;
  timed_run(m, [&] { env.run(); });
  // Every leaf got exactly the tags a sequential walk gives it.
  std::vector<std::int64_t> sum(width), count(width);
  for (std::int64_t i = 0; i < tags; ++i) {
    sum[sparse_program::leaf_of(i, width)] += i;
    ++count[sparse_program::leaf_of(i, width)];
  }
  for (std::size_t l = 0; l < width; ++l)
    if (program.leaves[l].sum != sum[l] || program.leaves[l].count != count[l])
      throw std::runtime_error("reactor_sparse: leaf " + std::to_string(l) +
                               " got other values than a sequential run gives it");
  m["tags_per_s"] = double(tags) / m["wall_s"].get<double>();
  m["ns_per_tag"] = m["wall_s"].get<double>() * 1e9 / double(tags);
  m["sparse_tags"] = env.sparse_tags_completed();
  return m;
}

}  // namespace

void register_spate_reactor_sparse(bench_registry& r) {
  r.implement("reactor_sparse", "spate-reactor", reactor_sparse);
}

}  // namespace spate_bench
