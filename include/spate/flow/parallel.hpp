#pragma once
// Data-parallel patterns on the shared pool: parallel_for, map_reduce, divide_and_conquer.
//
// Work is split into chunks claimed through one atomic counter by the calling thread and by
// helper tasks on the pool. The caller always works too, and waits only for chunks a
// helper has already claimed (and is therefore running), never for a helper still queued:
// so these calls are safe from inside a node or an actor running on the same pool, even
// with a single worker. No item is copied: chunks are index ranges over the caller's data.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

#include "spate/platform/backoff.hpp"
#include "spate/platform/parking_event.hpp"
#include "spate/scheduler/worker_pool.hpp"

namespace spate::flow {

namespace detail {

class chunked_job {
 public:
  chunked_job(std::size_t n, std::size_t grain, std::function<void(std::size_t, std::size_t)> body)
      : n_(n), grain_(grain), chunks_((n + grain - 1) / grain), body_(std::move(body)) {}

  std::size_t chunks() const noexcept { return chunks_; }

  // Claims and runs one chunk; false when none is left. After a failure, chunks still
  // being claimed are counted but their bodies are skipped: every claim (an increment of
  // next_ below chunks_) is matched by exactly one increment of done_.
  bool run_one() noexcept {
    if (stopped_.load()) return false;
    const std::size_t c = next_.fetch_add(1);
    if (c >= chunks_) return false;
    if (!stopped_.load()) {
      try {
        body_(c * grain_, std::min(n_, (c + 1) * grain_));
      } catch (...) {
        std::lock_guard lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
        stopped_.store(true);
      }
    }
    if (done_.fetch_add(1) + 1 == claimed_target()) finished_.notify();
    return true;
  }

  // The caller: works, then waits for the helpers' chunks in flight.
  void run_and_wait() {
    while (run_one()) {
    }
    while (done_.load() < claimed_target()) {
      finished_.wait_for(std::chrono::milliseconds(1));
    }
    std::lock_guard lock(error_mutex_);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // Chunks claimed so far: all of them once the caller's loop ran dry without a failure
  // (so no body can start after the caller returns), fewer after a failure (and then a
  // late claim skips its body).
  std::size_t claimed_target() const noexcept { return std::min(chunks_, next_.load()); }

  const std::size_t n_, grain_, chunks_;
  std::function<void(std::size_t, std::size_t)> body_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::size_t> done_{0};
  std::atomic<bool> stopped_{false};
  parking_event finished_;
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

class chunk_helper final : public task {
 public:
  explicit chunk_helper(std::shared_ptr<chunked_job> job) : job_(std::move(job)) {}
  resume_result resume(std::size_t) override {
    while (job_->run_one()) {
    }
    delete this;  // nothing touches the task after this
    return resume_result::done;
  }
  void discard() noexcept override { delete this; }  // the pool stopped before it ran

 private:
  std::shared_ptr<chunked_job> job_;
};

}  // namespace detail

// Calls body(begin, end) over [0, n) in chunks of `grain` (0: about 4 chunks per worker).
// Rethrows the first exception a chunk threw (remaining chunks are skipped).
template <class Body>
void parallel_for(worker_pool& pool, std::size_t n, Body&& body, std::size_t grain = 0) {
  if (n == 0) return;
  if (grain == 0) grain = std::max<std::size_t>(1, n / (4 * pool.size()));
  auto job = std::make_shared<detail::chunked_job>(
      n, grain, std::function<void(std::size_t, std::size_t)>(std::forward<Body>(body)));
  const std::size_t helpers = std::min(pool.size(), job->chunks() - 1);
  for (std::size_t i = 0; i < helpers; ++i) pool.schedule(new detail::chunk_helper(job));
  job->run_and_wait();
}

// reduce(init, map(items[0]), map(items[1]), ...) with per-chunk partial results; `reduce`
// must be associative. Items are read in place.
template <class Container, class T, class Map, class Reduce>
T map_reduce(worker_pool& pool, const Container& items, T init, Map map, Reduce reduce,
             std::size_t grain = 0) {
  const std::size_t n = std::size(items);
  if (n == 0) return init;
  if (grain == 0) grain = std::max<std::size_t>(1, n / (4 * pool.size()));
  const std::size_t chunks = (n + grain - 1) / grain;
  std::vector<T> partial(chunks, init);
  parallel_for(
      pool, n,
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

// Solves `problem`: base_case(p) when is_base(p), else combine(solutions of divide(p)).
// Sub-problems of one level are solved in parallel (recursively), on the same protocol.
template <class Problem, class IsBase, class BaseCase, class Divide, class Combine>
auto divide_and_conquer(worker_pool& pool, const Problem& problem, IsBase is_base,
                        BaseCase base_case, Divide divide, Combine combine)
    -> decltype(base_case(problem)) {
  using Result = decltype(base_case(problem));
  if (is_base(problem)) return base_case(problem);
  std::vector<Problem> parts = divide(problem);
  std::vector<Result> solved(parts.size());
  parallel_for(
      pool, parts.size(),
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          solved[i] = divide_and_conquer(pool, parts[i], is_base, base_case, divide, combine);
        }
      },
      1);
  return combine(std::move(solved));
}

}  // namespace spate::flow
