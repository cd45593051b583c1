#include "spate/flow/detail/graph_state.hpp"

#include "spate/flow/detail/checkpoint_coordinator.hpp"
#include "spate/flow/detail/node_task_base.hpp"
#include "spate/log/log.hpp"
#include "spate/platform/exception_text.hpp"
#include "spate/platform/stress_point.hpp"

#include <chrono>
#include <string>
#include <thread>
#include <utility>

namespace spate::flow::detail {

graph_state::~graph_state() {
  coordinator_.reset();  // joins its thread, which may still hold snapshots of the tasks' state
  // Items left in edges first, then the tasks, newest first: an item may own something a
  // task owns (a window message's envelope share, returned to the emitter's pool), and a
  // router's buffered output may too, so the emitter (built first) goes last.
  edges_.clear();
  while (!tasks_.empty()) tasks_.pop_back();
}

node_stats& graph_state::add_stats(std::string name, std::string kind) {
  auto s = std::make_unique<node_stats>();
  s->name = std::move(name);
  s->kind = std::move(kind);
  stats_.push_back(std::move(s));
  return *stats_.back();
}

void graph_state::set_coordinator(std::unique_ptr<checkpoint_coordinator> c) {
  coordinator_ = std::move(c);
}

void graph_state::add_task(std::unique_ptr<node_task_base> t) {
  tasks_.push_back(std::move(t));
}

void graph_state::start(const std::shared_ptr<graph_state>& self) {
  live_.store(tasks_.size(), std::memory_order_release);
  if (tasks_.empty()) {
    std::lock_guard lock(mutex_);
    finished_ = true;
    return;
  }
  for (auto& t : tasks_) t->launch(self);
}

void graph_state::fail(const std::string& node, std::exception_ptr error) {
  {
    std::lock_guard lock(mutex_);
    if (!error_) {
      error_ = error;
      error_node_ = node;
      error_message_ = exception_text(error);
    }
  }
  cancel();
}

void graph_state::fail_unless_finished(const std::string& node, std::exception_ptr error) {
  {
    std::unique_lock lock(mutex_);
    if (finished_) {
      lock.unlock();  // a log sink may read the graph
      log::write(log::level::warn, "flow",
                 "after the graph ended, '" + node + "': " + exception_text(error));
      return;
    }
    if (!error_) {
      error_ = error;
      error_node_ = node;
      error_message_ = exception_text(error);
    }
  }
  cancel();
}

void graph_state::cancel() {
  if (cancelled_.exchange(true, std::memory_order_acq_rel)) return;
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;  // every task has ended: nobody to wake, and executors may be gone
    waking_ = true;
  }
  // Wake everybody: each task sees the flag at its next activation and ends. Tasks are
  // owned by this state, which every unfinished task keeps alive; the executors of
  // dedicated threads stay alive because the run does not end while waking_ (top of the
  // header).
  for (auto& t : tasks_) {
    t->interrupt();
    t->notify();
    stress_point();  // a task woken here may end the run before the next one is notified
  }
  // A run that finished during the wake-ups has its hook run here. The deferred flag is
  // taken in the same locked section that clears waking_: a task that ends the run in
  // between would otherwise defer its hook to a cancel that has already looked. While the
  // hook runs, hook_running_ holds the waiters back: once they return, the owner may
  // destroy or restart the state.
  {
    std::lock_guard lock(mutex_);
    waking_ = false;
    if (!std::exchange(finish_hook_deferred_, false)) {
      done_.notify_all();  // then only the unlock: a waiter may now end the state's life
      return;
    }
    begin_finish_hook_locked();
  }
  run_finish_hook();
  end_finish_hook();
}

void graph_state::begin_finish_hook_locked() {
  hook_running_ = true;
  hook_thread_ = std::this_thread::get_id();
}

void graph_state::end_finish_hook() {
  std::lock_guard lock(mutex_);
  hook_running_ = false;
  done_.notify_all();  // then only the unlock: a waiter may now end the state's life
}

bool graph_state::waiters_may_return_locked() const noexcept {
  // The hook's own thread is not held back by it (a hook that destroys its graph, or shuts
  // its runtime down, would otherwise wait for itself).
  return ended_locked() && (!hook_running_ || hook_thread_ == std::this_thread::get_id());
}

void graph_state::task_finished() {
  if (live_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
    if (waking_) {  // the cancel that is waking tasks ends the run (top of the header)
      finish_hook_deferred_ = true;
      return;
    }
    if (!on_finished_) {
      done_.notify_all();
      return;
    }
    begin_finish_hook_locked();  // waiters return once the hook has (top of the header)
  }
  // The calling task still holds its reference: the state outlives the hook.
  run_finish_hook();
  end_finish_hook();
}

void graph_state::run_finish_hook() {
  if (!on_finished_) return;
  std::string failure;
  {
    std::lock_guard lock(mutex_);
    if (error_) failure = "node '" + error_node_ + "' failed: " + error_message_;
  }
  on_finished_(failure);
}

bool graph_state::finished() const {
  std::lock_guard lock(mutex_);
  return ended_locked();
}

std::uint64_t graph_state::progress() const noexcept {
  std::uint64_t sum = 0;
  for (const auto& s : stats_) {
    sum += s->items_in.load(std::memory_order_relaxed) +
           s->items_out.load(std::memory_order_relaxed) +
           s->activations.load(std::memory_order_relaxed);
  }
  return sum;
}

void graph_state::wait_finished() {
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return waiters_may_return_locked(); });
}

void graph_state::wait_and_rethrow() {
  std::unique_lock lock(mutex_);
  const auto is_finished = [&] { return waiters_may_return_locked(); };
  if (stall_report_after_.count() <= 0) {
    done_.wait(lock, is_finished);
  } else {
    // A graph whose counters do not move for a whole period is reported (state of every
    // task), once per stall, so that a stuck job can be diagnosed; waiting goes on. The
    // counters move when an activation ends, so one activation running that long is
    // reported too: the message says so rather than claiming nothing happens.
    std::uint64_t last = progress();
    bool reported = false;
    while (!done_.wait_for(lock, stall_report_after_, is_finished)) {
      const std::uint64_t now = progress();
      if (now != last) {
        last = now;
        reported = false;
        continue;
      }
      if (reported) continue;
      reported = true;
      // One record for the whole report, so a sink keeps it together and another thread's
      // lines cannot land in the middle of it.
      if (log::enabled(log::level::warn)) {
        std::string report = "for " + std::to_string(stall_report_after_.count()) +
                             " ms no item moved and no activation ended (a stall, or one "
                             "activation running that long); tasks:";
        for (auto& t : tasks_) report += "\n  " + t->describe();
        // The sink runs without the lock: a slow sink must not hold up task_finished() on
        // the workers, and a sink that asks this graph whether it finished must not deadlock.
        lock.unlock();
        log::write(log::level::warn, "flow", report);
        lock.lock();
      }
    }
  }
  if (error_) throw node_error(error_node_, error_message_, error_);
}

}  // namespace spate::flow::detail
