#pragma once
// One thread that runs callbacks at deadlines: request time-outs and delayed sends. Not a
// hot path (a mutex and a heap are fine); callbacks must be short and must not block.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <unordered_set>
#include <vector>

namespace spate {

class timer_service {
 public:
  using clock = std::chrono::steady_clock;
  using timer_id = std::uint64_t;

  timer_service();
  ~timer_service();  // stop()
  // Cancels what is pending (callbacks are not run) and joins the thread; later schedules
  // are ignored (they return 0). Idempotent; not from a timer callback.
  void stop();
  timer_service(const timer_service&) = delete;
  timer_service& operator=(const timer_service&) = delete;

  timer_id schedule_at(clock::time_point deadline, std::function<void()> callback);
  // A delay too large to add to now() (nanoseconds::max()) means "never": the timer stays
  // pending until cancelled or stopped.
  timer_id schedule_after(std::chrono::nanoseconds delay, std::function<void()> callback) {
    return schedule_at(saturating_deadline(delay), std::move(callback));
  }
  // Returns true when the timer was pending: it will not fire now. False for a timer that
  // fired (or is firing), was cancelled before, or never existed.
  bool cancel(timer_id id);
  static clock::time_point saturating_deadline(std::chrono::nanoseconds delay) noexcept {
    const auto now = clock::now();
    if (delay >= clock::time_point::max() - now) return clock::time_point::max();
    return now + std::chrono::duration_cast<clock::duration>(delay);
  }
  std::size_t pending() const;

 private:
  struct entry {
    clock::time_point deadline;
    timer_id id;
    std::function<void()> callback;
    bool operator>(const entry& other) const {
      return deadline != other.deadline ? deadline > other.deadline : id > other.id;
    }
  };
  void run();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::priority_queue<entry, std::vector<entry>, std::greater<>> heap_;
  std::unordered_set<timer_id> pending_;  // not fired, not cancelled
  timer_id next_id_ = 1;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace spate
