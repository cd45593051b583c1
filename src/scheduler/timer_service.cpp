#include "spate/scheduler/timer_service.hpp"

#include "spate/platform/cpu_affinity.hpp"

namespace spate {

timer_service::timer_service() {
  thread_ = std::thread([this] {
    name_current_thread("spate-timers");
    run();
  });
}

timer_service::~timer_service() {
  stop();
}

void timer_service::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    heap_ = {};
    pending_.clear();
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

timer_service::timer_id timer_service::schedule_at(clock::time_point deadline,
                                                   std::function<void()> callback) {
  timer_id id;
  bool new_earliest;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return 0;
    id = next_id_++;
    new_earliest = heap_.empty() || deadline < heap_.top().deadline;
    heap_.push(entry{deadline, id, std::move(callback)});
    pending_.insert(id);
  }
  if (new_earliest) changed_.notify_one();
  return id;
}

// A cancelled timer's entry stays in the heap until its deadline and is then skipped:
// removing it from a binary heap would cost a search.
bool timer_service::cancel(timer_id id) {
  std::lock_guard lock(mutex_);
  return pending_.erase(id) != 0;
}

std::size_t timer_service::pending() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

void timer_service::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (heap_.empty()) {
      changed_.wait(lock);
      continue;
    }
    // A copy: wait_until keeps reading its argument while other threads push (and so may
    // reallocate) the heap.
    const clock::time_point deadline = heap_.top().deadline;
    if (clock::now() < deadline) {
      changed_.wait_until(lock, deadline);
      continue;
    }
    entry due = std::move(const_cast<entry&>(heap_.top()));
    heap_.pop();
    if (pending_.erase(due.id) == 0) continue;  // cancelled
    lock.unlock();
    due.callback();
    lock.lock();
  }
}

}  // namespace spate
