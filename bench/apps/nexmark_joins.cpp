// spate-bench nexmark's regular joins: q3 and q20 (examples/apps/nexmark/join_queries.hpp), one
// source → the join → sink, or topology=parallel: a source per replica chained to the join's
// sides → the join → sink (nexmark_run.hpp: run_stateful with a split_query).
#include "../../examples/apps/nexmark/join_queries.hpp"
#include "nexmark_run.hpp"

namespace spate_bench::nexmark_run {

std::optional<json> run_join_query(const bench_params& p) {
  const std::string q = p.text("query");
  if (q == "q3")
    return run_stateful<nx::q3_row>(p, nx::q3, nx::q3_sequential,
                                    split_query{nx::q3_sides, nx::q3_join});
  if (q == "q20")
    return run_stateful<nx::q20_row>(p, nx::q20, nx::q20_sequential,
                                     split_query{nx::q20_sides, nx::q20_join});
  return std::nullopt;
}

}  // namespace spate_bench::nexmark_run
