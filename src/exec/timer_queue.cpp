#include "spate/exec/detail/timer_queue.hpp"
#include "spate/log/log.hpp"
#include "spate/platform/exception_text.hpp"

#include <string>

namespace spate {

timer_queue::timer_id timer_queue::add(clock::time_point deadline, std::function<void()> callback,
                                       std::chrono::nanoseconds period, bool* earliest) {
  std::lock_guard lock(mutex_);
  if (closed_) return 0;
  const timer_id id = next_id_++;
  const std::int64_t at = to_ns(deadline);
  if (earliest != nullptr) *earliest = heap_.empty() || at < heap_.top().deadline_ns;
  records_.emplace(id, record{std::move(callback), period});
  heap_.push(heap_entry{at, id});
  publish_next_locked();
  return id;
}

bool timer_queue::cancel(timer_id id) {
  decltype(records_)::node_type dropped;  // the callback is destroyed outside the lock
  std::lock_guard lock(mutex_);
  auto it = records_.find(id);
  if (it == records_.end() || it->second.cancelled) return false;
  if (it->second.firing) {  // a periodic timer in its callback: stop it re-arming
    it->second.cancelled = true;
    return true;
  }
  dropped = records_.extract(it);
  return true;
}

std::size_t timer_queue::pending() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [id, r] : records_) n += r.cancelled ? 0 : 1;
  return n;
}

void timer_queue::publish_next_locked() noexcept {
  // Skip the entries of cancelled timers at the top, so that nobody wakes up for them.
  while (!heap_.empty() && records_.find(heap_.top().id) == records_.end()) heap_.pop();
  next_deadline_.store(heap_.empty() ? no_deadline : heap_.top().deadline_ns,
                       std::memory_order_seq_cst);
}

void timer_queue::set_error_handler(std::function<void(std::exception_ptr)> handler) {
  std::lock_guard lock(mutex_);
  error_handler_ = std::move(handler);
}

bool timer_queue::invoke(std::function<void()>& callback) noexcept {
  try {
    callback();
    return true;
  } catch (...) {
    const auto error = std::current_exception();
    try {
      std::function<void(std::exception_ptr)> handler;
      {
        std::lock_guard lock(mutex_);
        handler = error_handler_;
      }
      if (handler) {
        handler(error);
        return false;
      }
    } catch (...) {  // a throwing handler (or no memory to copy it): fall back to the log
    }
    try {
      log::write(log::level::error, "timer",
                 "a timer callback threw: " + exception_text(error) + " (the timer is cancelled)");
    } catch (...) {  // no memory for the text: nothing left to report with
    }
    return false;
  }
}

std::size_t timer_queue::run_due(clock::time_point now) {
  if (running_.exchange(true, std::memory_order_acquire)) return 0;
  const std::int64_t now_ns = to_ns(now);
  std::size_t ran = 0;
  std::unique_lock lock(mutex_);
  while (!heap_.empty() && heap_.top().deadline_ns <= now_ns) {
    const heap_entry due = heap_.top();
    heap_.pop();
    auto it = records_.find(due.id);
    if (it == records_.end()) continue;  // cancelled
    if (it->second.period.count() == 0) {
      std::function<void()> callback = std::move(it->second.callback);
      records_.erase(it);
      publish_next_locked();
      lock.unlock();
      invoke(callback);
    } else {
      // Periodic: the callback stays in its record (cancel() marks it) while it runs.
      it->second.firing = true;
      std::function<void()>* callback = &it->second.callback;
      publish_next_locked();
      lock.unlock();
      // unordered_map nodes do not move when others are added or erased
      const bool threw = !invoke(*callback);
      lock.lock();
      auto again = records_.find(due.id);
      decltype(records_)::node_type dropped;  // its callback is destroyed outside the lock
      if (again->second.cancelled || closed_ || threw) {  // a throwing timer is not re-armed
        dropped = records_.extract(again);
      } else {
        again->second.firing = false;
        // Next deadline from the schedule, not from now: no drift. A run that fell behind
        // by whole periods skips them instead of firing a burst.
        std::int64_t next = due.deadline_ns + again->second.period.count();
        if (next <= now_ns) {
          const std::int64_t behind = (now_ns - next) / again->second.period.count() + 1;
          next += behind * again->second.period.count();
        }
        heap_.push(heap_entry{next, due.id});
      }
      lock.unlock();
      dropped = {};
    }
    ++ran;
    lock.lock();
  }
  publish_next_locked();
  lock.unlock();
  running_.store(false, std::memory_order_release);
  return ran;
}

void timer_queue::close() {
  std::vector<decltype(records_)::node_type> dropped;  // destroyed outside the lock
  std::lock_guard lock(mutex_);
  closed_ = true;
  for (auto it = records_.begin(); it != records_.end();) {
    if (it->second.firing) {
      it->second.cancelled = true;
      ++it;
    } else {
      dropped.push_back(records_.extract(it++));
    }
  }
  heap_ = {};
  publish_next_locked();
}

}  // namespace spate
