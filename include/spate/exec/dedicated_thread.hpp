#pragma once
// An executor with a thread of its own, for tasks that block (detached actors) or that the
// user wants pinned. Idle, the thread sleeps in its waiter (waiter.hpp) until a task is
// queued or it is asked to stop; schedule() wakes it.
//
// A task scheduled after the thread ended (a graph cancelled at shutdown notifies a node
// whose thread is already gone) is discarded, never left in a queue nobody reads: the thread
// publishes `finished`, passes the fence and drains its queue; schedule() pushes, passes the
// fence (the waiter's N1) and, if it reads `finished`, drains too. One of the two sees the
// other's store (the same Dekker argument as waiter.hpp), and a flag lets one drainer at a
// time pop the single-consumer queue.
#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <thread>

#include "spate/channel/intrusive_mpsc_queue.hpp"
#include "spate/exec/waiter.hpp"
#include "spate/exec/task.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// A thread of its own that runs the tasks scheduled on it (blocking or pinned work).
class SPATE_API dedicated_thread final : public executor {
 public:
  /// `cpu`: pin the thread to that CPU.
  explicit dedicated_thread(std::string name, std::size_t task_budget = 64,
                            std::optional<std::size_t> cpu = std::nullopt);
  ~dedicated_thread() override;  ///< stop() and join
  dedicated_thread(const dedicated_thread&) = delete;
  dedicated_thread& operator=(const dedicated_thread&) = delete;

  void schedule(task* t) override;
  /// Lets the thread finish once no task is queued; join() waits for it. Idempotent.
  void stop();
  /// Waits for the thread to end (after stop()).
  void join();
  /// True when called on this thread.
  bool is_current_thread() const noexcept { return thread_.get_id() == std::this_thread::get_id(); }
  /// True once the thread has left its loop and discarded what was left: joining it waits
  /// only for its return.
  bool finished() const noexcept { return exited_.load(std::memory_order_acquire); }

 private:
  void run();
  void discard_queued() noexcept;

  const std::size_t task_budget_;
  intrusive_mpsc_queue<task> queue_;
  std::atomic_flag draining_;  ///< after the thread ended: one drainer of queue_ at a time
  waiter waiter_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> finished_{false};  ///< left its loop: schedule() discards from now on
  std::atomic<bool> exited_{false};    ///< ... and drained: only the return is left
  std::thread thread_;
};

}  // namespace spate
