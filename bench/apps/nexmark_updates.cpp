// spate-bench nexmark's updating queries: q9 (q9.hpp), q15, q16, q17 (aggregate_queries.hpp)
// and q18, q19 (rank_queries.hpp), one source → a projection (the bids; q9's: auctions and bids)
// → a farm keyed by the query's group → sink, every update a row (nexmark_run.hpp:
// run_stateful). One source, so that each group sees its events in the file's order and the rows
// are the one-thread loop's. q4 and q6 (q4.hpp, q6.hpp) have a second farm, keyed by category or
// seller, after the first: their result is checked as the final table (each group's last row).
#include "../../examples/apps/nexmark/aggregate_queries.hpp"
#include "../../examples/apps/nexmark/q4.hpp"
#include "../../examples/apps/nexmark/q6.hpp"
#include "../../examples/apps/nexmark/q9.hpp"
#include "../../examples/apps/nexmark/rank_queries.hpp"
#include "nexmark_run.hpp"

namespace spate_bench::nexmark_run {

std::optional<json> run_update_query(const bench_params& p) {
  const std::string q = p.text("query");
  if (q == "q4") return run_stateful<nx::q4_row>(p, nx::q4, nx::q4_sequential);
  if (q == "q6") return run_stateful<nx::q6_row>(p, nx::q6, nx::q6_sequential);
  if (q == "q9") return run_stateful<nx::q9_row>(p, nx::q9, nx::q9_sequential);
  if (q == "q15") return run_stateful<nx::q15_row>(p, nx::q15, nx::q15_sequential);
  if (q == "q16") return run_stateful<nx::q16_row>(p, nx::q16, nx::q16_sequential);
  if (q == "q17") return run_stateful<nx::q17_row>(p, nx::q17, nx::q17_sequential);
  if (q == "q18") return run_stateful<nx::q18_row>(p, nx::q18, nx::q18_sequential);
  if (q == "q19") return run_stateful<nx::q19_row>(p, nx::q19, nx::q19_sequential);
  return std::nullopt;
}

}  // namespace spate_bench::nexmark_run
