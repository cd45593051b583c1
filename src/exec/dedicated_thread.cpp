#include "spate/exec/dedicated_thread.hpp"

#include "spate/platform/os.hpp"
#include "spate/exec/detail/handshake_fence.hpp"
#include "spate/platform/stress_point.hpp"

#include <thread>
#include <vector>

namespace spate {

dedicated_thread::dedicated_thread(std::string name, std::size_t task_budget,
                                   std::optional<std::size_t> cpu)
    : task_budget_(task_budget) {
  thread_ = std::thread([this, name = std::move(name), cpu] {
    name_current_thread(name.c_str());
    if (cpu) pin_current_thread_to_cpu(*cpu);
    run();
  });
}

dedicated_thread::~dedicated_thread() {
  stop();
  join();
}

void dedicated_thread::schedule(task* t) {
  queue_.push(t);
  waiter_.notify();  // N1 also orders the push before the read of finished_ below
  // Acquire: the thread's own pops in its loop happen before this drain's pops.
  if (finished_.load(std::memory_order_acquire)) discard_queued();
}

void dedicated_thread::stop() {
  stopping_.store(true, std::memory_order_release);
  waiter_.notify();
}

void dedicated_thread::discard_queued() noexcept {
  // Popped under the flag, discarded outside it: a discard runs user code (a node's
  // on_cancel), and nobody should spin on the flag meanwhile.
  std::vector<task*> taken;
  while (draining_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
  while (task* t = queue_.pop()) taken.push_back(t);
  draining_.clear(std::memory_order_release);
  for (task* t : taken) t->discard();
}

void dedicated_thread::join() {
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void dedicated_thread::run() {
  const auto has_work = [this] {
    return !queue_.empty_approx() || stopping_.load(std::memory_order_acquire);
  };
  for (;;) {
    task* t = queue_.pop();
    if (t == nullptr) {
      if (stopping_.load(std::memory_order_acquire) && queue_.empty_approx()) break;
      waiter_.wait_until(has_work);
      continue;
    }
    while (t->resume(task_budget_) == resume_result::resume_later) {
    }
  }
  finished_.store(true, std::memory_order_release);
  stress_point();
  handshake_fence();  // pairs with schedule(): see the top of the header
  discard_queued();
  exited_.store(true, std::memory_order_release);  // only the thread's return is left
}

}  // namespace spate
