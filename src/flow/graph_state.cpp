#include "spate/flow/detail/graph_state.hpp"

#include "spate/flow/detail/node_task_base.hpp"

#include <chrono>
#include <cstdio>

namespace spate::flow::detail {

graph_state::~graph_state() = default;

node_stats& graph_state::add_stats(std::string name, std::string kind) {
  auto s = std::make_unique<node_stats>();
  s->name = std::move(name);
  s->kind = std::move(kind);
  stats_.push_back(std::move(s));
  return *stats_.back();
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
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        error_message_ = e.what();
      } catch (...) {
        error_message_ = "unknown exception";
      }
    }
  }
  cancel();
}

void graph_state::cancel() {
  if (cancelled_.exchange(true, std::memory_order_acq_rel)) return;
  // Wake everybody: each task sees the flag at its next activation and ends. Tasks are
  // owned by this state, which every unfinished task keeps alive, so this is safe.
  for (auto& t : tasks_) t->notify();
}

void graph_state::task_finished() {
  if (live_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  std::string failure;
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
    if (error_) failure = "node '" + error_node_ + "' failed: " + error_message_;
    done_.notify_all();
  }
  // The calling task still holds its reference: the state outlives the hook.
  if (on_finished_) on_finished_(failure);
}

bool graph_state::finished() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

void graph_state::wait_and_rethrow() {
  std::unique_lock lock(mutex_);
  // A graph that makes no progress for a long time is reported (state of every task), so
  // that a stuck job can be diagnosed; waiting goes on.
  int quiet_periods = 0;
  while (
      !done_.wait_for(lock, std::chrono::seconds(diagnostic_period_s), [&] { return finished_; })) {
    if (++quiet_periods > 1) continue;
    std::fprintf(stderr, "spate::flow: graph still running after %d s; tasks:\n",
                 diagnostic_period_s);
    for (auto& t : tasks_) std::fprintf(stderr, "  %s\n", t->describe().c_str());
  }
  if (error_) throw node_error(error_node_, error_message_, error_);
}

}  // namespace spate::flow::detail
