#include "spate/exec/runtime.hpp"
#include "spate/log/log.hpp"
#include "spate/platform/exception_text.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace spate {
namespace {

// The environment, then the command line, each applied on top of what is set (a preset in
// either keeps the polling knobs the program changed: scheduler_config::apply), and each
// named in the errors it causes.
scheduler_config configured(runtime_config& config) {
  using source = scheduler_config::setting_source;
  if (config.read_environment) {
    config.scheduler.apply(scheduler_config::settings_from_environment(), source::environment);
  }
  config.scheduler.apply(config.command_line, source::command_line);
  config.scheduler.validate();
  return config.scheduler;
}

// An error goes to the program's error_reporter when it set one (it asked for every error
// text, as before the log existed), otherwise to the log at level error. The log's line
// names the component, so the texts' own "spate: " prefix is left out there.
void report_to(const runtime_config& config, std::string_view component, const std::string& text,
               log::level level = log::level::error) {
  if (config.error_reporter) {
    config.error_reporter(text);
    return;
  }
  std::string_view body = text;
  if (body.starts_with("spate: ")) body.remove_prefix(7);
  log::write(level, component, body);
}

}  // namespace

runtime_config runtime_config::from_command_line(int argc, const char* const* argv,
                                                 std::vector<std::string>* rest) {
  runtime_config config;
  config.command_line = scheduler_config::settings_from_command_line(argc, argv, rest);
  return config;
}

runtime::runtime(runtime_config config)
    : config_(std::move(config)),
      pool_(std::make_unique<worker_pool>(configured(config_))),
      timers_(std::make_unique<timer_service>(*pool_)) {
  // Warnings, not errors: the environment is shared with every other program.
  if (config_.read_environment) {
    for (const std::string& warning : scheduler_config::environment_warnings()) {
      report_to(config_, "config", warning, log::level::warn);
    }
  }
  pool_->set_timer_error_handler([this](std::exception_ptr error) {
    report_to(
        config_, "timer",
        "spate: a timer callback threw: " + exception_text(error) + " (the timer is cancelled)");
  });
}

runtime::~runtime() {
  shutdown();
}

dedicated_thread& runtime::start_dedicated_thread(std::string name,
                                                  std::optional<std::size_t> cpu) {
  std::lock_guard lock(mutex_);
  if (shut_down_) {
    throw std::logic_error("spate::runtime: cannot start thread '" + name +
                           "': the runtime is shut down");
  }
  join_finished_threads_locked();
  dedicated_threads_.push_back(
      std::make_unique<dedicated_thread>(std::move(name), config_.scheduler.task_budget, cpu));
  return *dedicated_threads_.back();
}

// Only a thread the runtime still holds: once shutdown() has taken them (step 3) it stops,
// joins and frees them itself, so `thread` may be gone (a graph's run() returning because
// the shutdown cancelled it).
void runtime::retire_dedicated_thread(dedicated_thread& thread) {
  std::lock_guard lock(mutex_);
  const bool held = std::any_of(dedicated_threads_.begin(), dedicated_threads_.end(),
                                [&](const auto& t) { return t.get() == &thread; });
  if (!held) return;
  thread.stop();
  join_finished_threads_locked();
}

// A finished thread has left its loop: joining it waits only for the thread's exit.
void runtime::join_finished_threads_locked() {
  std::erase_if(dedicated_threads_, [](const std::unique_ptr<dedicated_thread>& t) {
    return t->finished() && !t->is_current_thread();
  });
}

std::size_t runtime::dedicated_thread_count() const {
  std::lock_guard lock(mutex_);
  return dedicated_threads_.size();
}

std::size_t runtime::on_shutdown(std::function<void()> stop) {
  std::lock_guard lock(mutex_);
  const std::size_t key = next_step_key_++;
  shutdown_steps_.emplace_back(key, std::move(stop));
  return key;
}

void runtime::remove_shutdown_step(std::size_t key) {
  std::lock_guard lock(mutex_);
  std::erase_if(shutdown_steps_, [key](const auto& step) { return step.first == key; });
}

void runtime::report_error(const std::string& text) {
  report_to(config_, "runtime", text);
}

bool runtime::is_shut_down() const {
  std::lock_guard lock(mutex_);
  return shut_down_;
}

void runtime::shutdown() {
  bool on_own_thread = pool_->is_worker_thread();
  {
    std::lock_guard lock(mutex_);
    if (shut_down_) return;
    for (const auto& t : dedicated_threads_)
      on_own_thread = on_own_thread || t->is_current_thread();
  }
  if (on_own_thread) {
    throw std::logic_error(
        "spate::runtime::shutdown() called from one of the runtime's own threads: it would wait "
        "for itself; shut down from the thread that owns the runtime");
  }
  // 1. Models, newest first. A step may remove itself (its model is being destroyed), so
  //    take them one at a time.
  for (;;) {
    std::function<void()> stop;
    {
      std::lock_guard lock(mutex_);
      if (shutdown_steps_.empty()) break;
      stop = std::move(shutdown_steps_.back().second);
      shutdown_steps_.pop_back();
    }
    stop();
  }
  std::vector<std::unique_ptr<dedicated_thread>> threads;
  {
    std::lock_guard lock(mutex_);
    shut_down_ = true;
    threads.swap(dedicated_threads_);
  }
  // 2. Timers: cancelled, thread joined.
  timers_->stop();
  // 3. Dedicated threads.
  for (auto& t : threads) t->stop();
  for (auto& t : threads) t->join();
  // 4. The pool.
  pool_->stop();
}

}  // namespace spate
