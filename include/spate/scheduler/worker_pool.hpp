#pragma once
// The shared worker pool: work stealing with event-notified idling.
//
// Each worker owns a LIFO slot (the task it just made ready: run next, cache-hot, not
// stealable), a FIFO local run queue (stealable) and an inbox for tasks scheduled from
// outside the pool. An idle worker polls through the configured strategies
// (reducing-message-latency paper, Table I) and then parks on its own event (Algorithm 1;
// the paper's timeout is optional here, scheduler_config::park_timeout). Going beyond the
// paper (and CAF, issues #737 / #1251), a parked worker is woken not only when a task is enqueued
// for it (Algorithm 2) but also when another worker has stealable work and nobody is searching, as
// in Tokio's scheduler: that is how parked workers come back when load rises, without anybody
// polling.
//
// Lost wake-ups are excluded by a Dekker handshake through handshake_fence() (its proof is
// the one in activation.hpp, with "parked" for "idle"): a parking worker publishes "parked"
// and then re-checks for work; an enqueuer publishes the work and then checks for parked
// workers. At least one of them sees the other.
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "spate/scheduler/scheduler_config.hpp"
#include "spate/scheduler/task.hpp"
#include "spate/scheduler/worker_stats.hpp"

namespace spate {

class worker_pool final : public executor {
 public:
  explicit worker_pool(scheduler_config config = scheduler_config::default_preset());
  ~worker_pool() override;
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  // Thread-safe. From a worker of this pool the task goes to that worker's LIFO slot;
  // from anywhere else, to a parked worker's inbox (waking it) or round-robin.
  void schedule(task* t) override;

  // Stops the workers and joins them. Tasks still queued are not resumed: stop the things
  // that schedule (actors, graphs) first. Idempotent.
  void stop();

  std::size_t size() const noexcept { return workers_.size(); }
  const scheduler_config& config() const noexcept { return config_; }
  std::vector<worker_stats> stats() const;
  // True when called from one of this pool's worker threads.
  bool is_worker_thread() const noexcept;

 private:
  struct worker;

  void run_worker(worker& w);
  task* find_work(worker& w);
  task* next_local(worker& w);
  task* poll(worker& w, const polling_strategy& strategy);
  task* park(worker& w);
  task* steal(worker& w);
  task* pop_inbox(worker& victim);
  void push_local(worker& w, task* t);
  void schedule_local(worker& w, task* t);
  void schedule_external(task* t);
  void wake_if_stealable(worker& w);
  bool wake_one_parked();
  bool has_visible_work(const worker& w) const;

  scheduler_config config_;
  std::vector<std::unique_ptr<worker>> workers_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> searching_{0};
  std::atomic<std::size_t> parked_{0};
  std::atomic<std::size_t> next_external_{0};
};

}  // namespace spate
