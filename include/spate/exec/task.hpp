#pragma once
// The unit of work the scheduler runs: anything that can be resumed for a bounded number of
// steps (an actor draining its mailbox, a streaming node draining its input).
#include <cstddef>

#include "spate/channel/intrusive_mpsc_queue.hpp"
#include "spate/platform/export.hpp"

namespace spate {

enum class resume_result {
  resume_later,  ///< budget used up with work left: the executor queues the task again
  awaiting,      ///< no more work: the task will be scheduled again by whoever gives it work
  done,          ///< finished for good
};

/// Tasks are intrusive (they link themselves into run queues) and are not owned by the
/// executor: after `resume` returns anything but `resume_later`, the executor never touches
/// the task again, so a task may release (even destroy) itself at the end of `resume`.
class SPATE_API task : public intrusive_mpsc_link {
 public:
  virtual ~task() = default;
  /// Runs at most `budget` steps (messages) before returning.
  virtual resume_result resume(std::size_t budget) = 0;
  /// Called instead of resume() for a task still queued when its executor stops, so that a
  /// task owning itself can free itself. The default does nothing.
  virtual void discard() noexcept {}
};

/// Where a task runs: the shared worker pool or a dedicated thread.
class SPATE_API executor {
 public:
  virtual ~executor() = default;
  /// Makes `t` runnable. Thread-safe; `t` must not already be queued.
  virtual void schedule(task* t) = 0;
};

}  // namespace spate
