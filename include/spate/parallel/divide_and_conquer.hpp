#pragma once
// divide_and_conquer on the runtime's pool: the sub-problems of one level are solved in
// parallel (parallel_for with one problem per chunk), recursively.
#include <cstddef>
#include <utility>
#include <vector>

#include "spate/parallel/parallel_for.hpp"

namespace spate {

/// Solves `problem`: base_case(p) when is_base(p), else combine(solutions of divide(p)).
/// Sub-problems of one level are solved in parallel (recursively), on the same protocol.
template <class Problem, class IsBase, class BaseCase, class Divide, class Combine>
auto divide_and_conquer(runtime& rt, const Problem& problem, IsBase is_base,
                        BaseCase base_case, Divide divide, Combine combine)
    -> decltype(base_case(problem)) {
  using Result = decltype(base_case(problem));
  if (is_base(problem)) return base_case(problem);
  std::vector<Problem> parts = divide(problem);
  std::vector<Result> solved(parts.size());
  parallel_for(
      rt, parts.size(),
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          solved[i] = divide_and_conquer(rt, parts[i], is_base, base_case, divide, combine);
        }
      },
      1);
  return combine(std::move(solved));
}

}  // namespace spate
