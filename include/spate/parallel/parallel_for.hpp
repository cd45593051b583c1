#pragma once
// parallel_for: a loop over an index range, split into chunks run on the runtime's pool.
//
// Work is split into chunks claimed through one atomic counter by the calling thread and by
// helper tasks on the pool. The caller always works too, and waits only for chunks a
// helper has already claimed (and is therefore running), never for a helper still queued:
// so these calls are safe from inside a node or an actor running on the same pool, even
// with a single worker. No item is copied: chunks are index ranges over the caller's data.
//
// Helpers are scheduled stealable: from a worker they go to its stealable queue (not the
// LIFO slot only that worker runs), so idle workers can take them while the caller works.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

#include "spate/parallel/detail/chunked_job.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/exec/worker_pool.hpp"

namespace spate {

/// Calls body(begin, end) over [0, n) in chunks of `grain` (0: about 4 chunks per worker)
/// on the runtime's pool. Rethrows the first exception a chunk threw (remaining chunks are
/// skipped).
template <class Body>
void parallel_for(runtime& rt, std::size_t n, Body&& body, std::size_t grain = 0) {
  if (n == 0) return;
  worker_pool& pool = rt.pool();
  if (grain == 0) grain = std::max<std::size_t>(1, n / (4 * pool.size()));
  auto job = std::make_shared<detail::chunked_job>(
      n, grain, std::function<void(std::size_t, std::size_t)>(std::forward<Body>(body)));
  const std::size_t helpers = std::min(pool.size(), job->chunks() - 1);
  for (std::size_t i = 0; i < helpers; ++i) pool.schedule_stealable(new detail::chunk_helper(job));
  job->run_and_wait();
}

}  // namespace spate
