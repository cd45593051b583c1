#pragma once
// The engine of the parallel layer: a range of chunks run by the caller and helper tasks.
//
// Work is split into chunks claimed through one atomic counter by the calling thread and by
// helper tasks on the pool. The caller always works too, and waits only for chunks a
// helper has already claimed (and is therefore running), never for a helper still queued:
// so these calls are safe from inside a node or an actor running on the same pool, even
// with a single worker. No item is copied: chunks are index ranges over the caller's data.
//
// The caller's wait is a waiter (exec/waiter.hpp) on the done counter: a helper counts
// its chunk (the publish), then notifies (N1, N2); the caller's condition reads the counter.
// No time-out: the waiter's handshake cannot miss the last chunk.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>

#include "spate/exec/task.hpp"
#include "spate/exec/waiter.hpp"

namespace spate::detail {

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
    done_.fetch_add(1);
    finished_.notify();  // the caller's condition may hold now
    return true;
  }

  // The caller: works, then waits for the helpers' chunks in flight.
  void run_and_wait() {
    while (run_one()) {
    }
    finished_.wait_until([this] { return done_.load() >= claimed_target(); });
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
  waiter finished_;
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

}  // namespace spate::detail
