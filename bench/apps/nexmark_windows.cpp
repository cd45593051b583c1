// spate-bench nexmark's windowed queries: q5, q7, q8, q11 and q12 (examples/apps/nexmark), one
// source → the query's emitter → its window workers → sink (nexmark_run.hpp: run_stateful); q12's
// windows are in processing time, so its check is each bidder's total.
#include "../../examples/apps/nexmark/windowed_queries.hpp"
#include "nexmark_run.hpp"

namespace spate_bench::nexmark_run {

std::optional<json> run_window_query(const bench_params& p) {
  const std::string q = p.text("query");
  if (q == "q5") return run_stateful<nx::q5_row>(p, nx::q5, nx::q5_sequential);
  if (q == "q7") return run_stateful<nx::q7_row>(p, nx::q7, nx::q7_sequential);
  if (q == "q8") return run_stateful<nx::q8_row>(p, nx::q8, nx::q8_sequential);
  if (q == "q11") return run_stateful<nx::q11_row>(p, nx::q11, nx::q11_sequential);
  if (q == "q12") {
    return run_stateful<nx::q12_row>(
        p, [](std::size_t workers) { return nx::q12(workers); }, nx::q12_sequential);
  }
  return std::nullopt;
}

}  // namespace spate_bench::nexmark_run
