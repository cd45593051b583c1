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
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

timer_service::timer_id timer_service::schedule_at(clock::time_point deadline,
                                                   std::function<void()> callback) {
  timer_id id;
  bool new_earliest;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    new_earliest = heap_.empty() || deadline < heap_.top().deadline;
    heap_.push(entry{deadline, id, std::move(callback)});
  }
  if (new_earliest) changed_.notify_one();
  return id;
}

bool timer_service::cancel(timer_id id) {
  std::lock_guard lock(mutex_);
  if (id == 0 || id >= next_id_) return false;
  return cancelled_.insert(id).second;
}

std::size_t timer_service::pending() const {
  std::lock_guard lock(mutex_);
  return heap_.size() - std::min(heap_.size(), cancelled_.size());
}

void timer_service::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (heap_.empty()) {
      changed_.wait(lock);
      continue;
    }
    if (clock::now() < heap_.top().deadline) {
      changed_.wait_until(lock, heap_.top().deadline);
      continue;
    }
    entry due = std::move(const_cast<entry&>(heap_.top()));
    heap_.pop();
    if (cancelled_.erase(due.id) != 0) continue;
    lock.unlock();
    due.callback();
    lock.lock();
  }
}

}  // namespace spate
