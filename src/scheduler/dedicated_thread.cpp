#include "spate/scheduler/dedicated_thread.hpp"

#include "spate/platform/cpu_affinity.hpp"

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
  event_.notify();
}

void dedicated_thread::stop() {
  stopping_.store(true, std::memory_order_release);
  event_.notify();
}

void dedicated_thread::join() {
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void dedicated_thread::run() {
  for (;;) {
    task* t = queue_.pop();
    if (t == nullptr) {
      if (stopping_.load(std::memory_order_acquire) && queue_.empty_approx()) break;
      event_.wait();
      continue;
    }
    while (t->resume(task_budget_) == resume_result::resume_later) {
    }
  }
  finished_.store(true, std::memory_order_release);
}

}  // namespace spate
