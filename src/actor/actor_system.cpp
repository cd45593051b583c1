#include "spate/actor/actor_system.hpp"
#include "spate/exec/dedicated_thread.hpp"

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace spate {
namespace {
// The system whose blocking actor runs on this thread, if any.
thread_local const actor_system* blocking_actor_of = nullptr;
}  // namespace

actor_system::actor_system(actor_system_config config)
    : own_runtime_(std::make_unique<runtime>(std::move(config))), runtime_(own_runtime_.get()) {}

actor_system::actor_system(runtime& rt) : runtime_(&rt) {
  shutdown_step_ = runtime_->on_shutdown([this] { stop_actors(); });
}

actor_system::~actor_system() {
  shutdown();
}

void actor_system::report_error(const std::string& text) {
  runtime_->report_error(text);
}

void actor_system::register_actor(abstract_actor* a, bool hidden) {
  std::lock_guard lock(registry_mutex_);
  if (shutting_down_) {
    throw std::logic_error("spate: cannot spawn '" + a->name() +
                           "': the actor system is shutting down");
  }
  registry_.emplace(a->id(), actor(a));
  if (hidden) {
    hidden_.emplace(a->id(), true);
  } else {
    ++visible_actors_;
  }
}

std::vector<actor> actor_system::live_actors() const {
  std::vector<actor> result;
  const std::lock_guard lock(registry_mutex_);
  result.reserve(visible_actors_);
  for (const auto& [id, a] : registry_) {
    if (hidden_.count(id) == 0) result.push_back(a);
  }
  return result;
}

void actor_system::adopt(abstract_actor* a, std::string name) {
  a->system_ = this;
  a->counters_ = counters_;
  a->id_ = next_id_.fetch_add(1, std::memory_order_relaxed);
  a->name_ = std::move(name);
}

void actor_system::launch(abstract_actor* a, spawn_options options, std::string default_name) {
  adopt(a, options.name.empty() ? std::move(default_name) : std::move(options.name));
  if (options.detached) {
    a->set_executor(&runtime_->start_dedicated_thread("spate-detached", options.pin_to_cpu));
  } else {
    a->set_executor(&runtime_->pool());
  }
  try {
    register_actor(a, false);
  } catch (...) {
    a->finish_unit();
    throw;
  }
  // The first activation runs initialize() (on_start / make_behavior). A new actor's
  // activation starts scheduled, so no sender can have scheduled it already.
  a->get_executor()->schedule(a);
}

actor actor_system::spawn_blocking(std::function<void(blocking_actor&)> body, std::string name) {
  auto* a = new blocking_actor();
  actor handle(a, /*add_ref=*/false);
  adopt(a, name.empty() ? "blocking_actor" : std::move(name));
  register_actor(a, false);
  auto finished = std::make_shared<std::atomic<bool>>(false);
  std::thread thread([this, self = actor_ref<blocking_actor>(a), body = std::move(body), finished] {
    blocking_actor_of = this;
    exit_reason reason;
    try {
      body(*self.get());
    } catch (const actor_exited& e) {
      reason = e.reason();
    } catch (const std::exception& e) {
      reason = {exit_code::unhandled_exception, demangle(typeid(e).name()) + ": " + e.what()};
      self.get()->system().report_error(
          "spate: blocking actor '" + self.name() +
          "' terminated by an unhandled exception: " + reason.message);
    }
    self.get()->finish(std::move(reason));
    finished->store(true, std::memory_order_release);  // the last step: join() is quick now
  });
  std::vector<std::thread> done;  // joined outside the lock
  {
    std::lock_guard lock(registry_mutex_);
    // Threads of blocking actors that ended are joined here rather than at shutdown, so a
    // program that keeps spawning short blocking actors keeps a bounded number of threads.
    for (auto it = blocking_threads_.begin(); it != blocking_threads_.end();) {
      if (it->finished->load(std::memory_order_acquire)) {
        done.push_back(std::move(it->thread));
        it = blocking_threads_.erase(it);
      } else {
        ++it;
      }
    }
    blocking_threads_.push_back({std::move(thread), std::move(finished)});
  }
  for (auto& t : done) t.join();
  return handle;
}

void actor_system::on_actor_terminated(abstract_actor& a) {
  // A detached actor's thread has no more work: let the runtime join and free it.
  if (auto* thread = dynamic_cast<dedicated_thread*>(a.get_executor())) {
    runtime_->retire_dedicated_thread(*thread);
  }
  actor keep_alive;  // released outside the lock
  {
    std::lock_guard lock(registry_mutex_);
    auto it = registry_.find(a.id());
    if (it == registry_.end()) return;
    keep_alive = std::move(it->second);
    registry_.erase(it);
    if (hidden_.erase(a.id()) == 0) --visible_actors_;
    // Under the lock: once it is released, a waiter in shutdown() may return and destroy
    // the system (with this condition variable) while a notify outside would still run.
    registry_changed_.notify_all();
  }
}

std::size_t actor_system::blocking_thread_count() const {
  std::lock_guard lock(registry_mutex_);
  return blocking_threads_.size();
}

std::size_t actor_system::running_actors() const {
  std::lock_guard lock(registry_mutex_);
  return visible_actors_;
}

void actor_system::await_all_actors_done() {
  std::unique_lock lock(registry_mutex_);
  registry_changed_.wait(lock, [&] { return visible_actors_ == 0; });
}

bool actor_system::await_all_actors_done_for(std::chrono::nanoseconds timeout) {
  std::unique_lock lock(registry_mutex_);
  return registry_changed_.wait_for(lock, timeout, [&] { return visible_actors_ == 0; });
}

void actor_system::request_shutdown() {
  std::vector<actor> alive;
  {
    std::lock_guard lock(registry_mutex_);
    shutting_down_ = true;
    for (auto& [id, a] : registry_) alive.push_back(a);
  }
  for (auto& a : alive) a.get()->kill({exit_code::user_shutdown, "actor system shutdown"});
}

void actor_system::shutdown() {
  if (runtime_->pool().is_worker_thread() || blocking_actor_of == this) {
    throw std::logic_error(
        "spate: actor_system::shutdown() called from inside an actor would wait for that actor "
        "itself; call request_shutdown() there, and shutdown() from the thread that owns the "
        "system");
  }
  if (shutdown_step_ != 0) runtime_->remove_shutdown_step(std::exchange(shutdown_step_, 0));
  stop_actors();
  if (own_runtime_) own_runtime_->shutdown();
}

void actor_system::stop_actors() {
  {
    std::lock_guard lock(registry_mutex_);
    if (shut_down_) return;
  }
  request_shutdown();
  {
    std::unique_lock lock(registry_mutex_);
    // Scoped actors live in their owner's scope; they are told to stop but not waited for.
    while (!registry_changed_.wait_for(lock, std::chrono::seconds(5),
                                       [&] { return registry_.size() == hidden_.size(); })) {
      std::string names;
      for (auto& [id, a] : registry_) names += " '" + a.name() + "'";
      lock.unlock();
      report_error("spate: shutdown is waiting for actors busy in a handler:" + names);
      lock.lock();
    }
    shut_down_ = true;
  }
  for (auto& t : blocking_threads_) t.thread.join();
}

scoped_actor::scoped_actor(actor_system& system) {
  auto* a = new blocking_actor();
  self_ = actor_ref<blocking_actor>(a, /*add_ref=*/false);
  system.adopt(a, "scoped_actor");
  system.register_actor(a, /*hidden=*/true);
}

scoped_actor::~scoped_actor() {
  if (!self_.is_terminated()) self_.get()->finish({});
}

}  // namespace spate
