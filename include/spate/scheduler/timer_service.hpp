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
  ~timer_service();  // cancels what is pending (callbacks are not run) and joins
  timer_service(const timer_service&) = delete;
  timer_service& operator=(const timer_service&) = delete;

  timer_id schedule_at(clock::time_point deadline, std::function<void()> callback);
  timer_id schedule_after(std::chrono::nanoseconds delay, std::function<void()> callback) {
    return schedule_at(clock::now() + delay, std::move(callback));
  }
  // Returns true when the timer had not fired yet (it never will now).
  bool cancel(timer_id id);
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
  std::unordered_set<timer_id> cancelled_;
  timer_id next_id_ = 1;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace spate
