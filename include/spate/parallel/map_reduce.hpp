#pragma once
// map_reduce over a container, on the runtime's pool (parallel_for's chunks, one partial
// result per chunk, combined in chunk order by the caller).
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

#include "spate/parallel/parallel_for.hpp"

namespace spate {

/// reduce(init, map(items[0]), map(items[1]), ...) with per-chunk partial results; `reduce`
/// must be associative. Items are read in place.
template <class Container, class T, class Map, class Reduce>
T map_reduce(runtime& rt, const Container& items, T init, Map map, Reduce reduce,
             std::size_t grain = 0) {
  const std::size_t n = std::size(items);
  if (n == 0) return init;
  if (grain == 0) grain = std::max<std::size_t>(1, n / (4 * rt.pool().size()));
  const std::size_t chunks = (n + grain - 1) / grain;
  std::vector<T> partial(chunks, init);
  parallel_for(
      rt, n,
      [&](std::size_t begin, std::size_t end) {
        T acc = init;
        for (std::size_t i = begin; i < end; ++i) acc = reduce(std::move(acc), map(items[i]));
        partial[begin / grain] = std::move(acc);
      },
      grain);
  T result = std::move(init);
  for (auto& p : partial) result = reduce(std::move(result), std::move(p));
  return result;
}

}  // namespace spate
