#pragma once
// The actor system: the registry of live actors and the threads of blocking actors, on a
// runtime (exec/runtime.hpp) that owns the worker pool, the timers and the dedicated
// threads of detached actors. Given a runtime, the system shares it with the other models
// and stops (kills and awaits its actors) as step 1 of the runtime's shutdown; without
// one, it builds a runtime of its own from the configuration.
//
//   spate::actor_system system;                       // a worker per CPU
//   auto counter = system.spawn<counter_actor>();     // typed actor on the pool
//   spate::send(counter, increment{});
//   long n = spate::request(counter, get_count{}, 1s).get();
//   system.shutdown();                                // or let the destructor do it
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "spate/actor/abstract_actor.hpp"
#include "spate/actor/blocking_actor.hpp"
#include "spate/actor/event_based_actor.hpp"
#include "spate/platform/type_name.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// The configuration of a system that builds its own runtime: the runtime's.
using actor_system_config = runtime_config;

/// How spawn_with starts an actor.
struct spawn_options {
  std::string name;                       ///< default: the actor's type name
  bool detached = false;                  ///< run on a thread of its own instead of the pool
  std::optional<std::size_t> pin_to_cpu;  ///< with detached: pin that thread
};

/// Actors on a runtime (see the top of this file).
class SPATE_API actor_system {
 public:
  /// On a runtime of its own, built from `config`.
  explicit actor_system(actor_system_config config = {});
  /// On a shared runtime, which must outlive the system.
  explicit actor_system(runtime& rt);
  ~actor_system();  ///< shutdown()
  actor_system(const actor_system&) = delete;
  actor_system& operator=(const actor_system&) = delete;

  /// Spawns a class-based actor (derived from typed_actor<...> or event_based_actor).
  template <class A, class... Args>
  actor_ref<A> spawn(Args&&... args) {
    return spawn_with<A>(spawn_options{}, std::forward<Args>(args)...);
  }
  /// Spawns an A built from `args`, with options.
  template <class A, class... Args>
  actor_ref<A> spawn_with(spawn_options options, Args&&... args) {
    static_assert(std::is_base_of_v<abstract_actor, A>,
                  "spawn<A>: A must derive from spate::typed_actor<...> or "
                  "spate::event_based_actor");
    static_assert(!std::is_same_v<A, blocking_actor>, "use spawn_blocking for blocking actors");
    auto* a = new A(std::forward<Args>(args)...);
    actor_ref<A> handle(a, /*add_ref=*/false);
    launch(a, std::move(options), type_name<A>());
    return handle;
  }

  /// Spawns a dynamically typed actor from `init(self) -> behavior`.
  template <class Init>
  requires std::is_invocable_r_v<behavior, Init, event_based_actor&> actor
  spawn(Init init, spawn_options options = {}) {
    auto* a = new function_actor(std::function<behavior(event_based_actor&)>(std::move(init)));
    actor handle(a, /*add_ref=*/false);
    if (options.name.empty()) options.name = "function_actor";
    launch(a, std::move(options), "function_actor");
    return handle;
  }

  /// Spawns a blocking actor running `body(self)` on a thread of its own. It terminates when
  /// `body` returns (normal), throws (unhandled_exception) or is killed (actor_exited).
  actor spawn_blocking(std::function<void(blocking_actor&)> body, std::string name = "");

  /// Waits until every actor (scoped actors excepted) has terminated.
  void await_all_actors_done();
  /// As await_all_actors_done, for at most `timeout`; false when some still run.
  bool await_all_actors_done_for(std::chrono::nanoseconds timeout);
  /// Kills every actor (exit_code::user_shutdown), waits for them and joins the threads of
  /// blocking actors; with a runtime of its own, shuts that down too. Idempotent; also run
  /// by the destructor. Spawning afterwards throws std::logic_error.
  /// From inside an actor (a handler, a blocking actor's body), shutdown() would wait for
  /// itself and throws std::logic_error; call request_shutdown() there instead.
  void shutdown();
  /// Kills every actor and refuses new spawns, without waiting; safe from any thread. The
  /// owner's shutdown() (or the destructor) then completes the shutdown.
  void request_shutdown();

  /// The runtime it runs on.
  runtime& context() noexcept { return *runtime_; }
  /// The runtime's worker pool.
  worker_pool& pool() noexcept { return runtime_->pool(); }
  /// The runtime's timers.
  timer_service& timers() noexcept { return runtime_->timers(); }
  /// Actors not yet terminated (the system's own hidden ones excepted).
  std::size_t running_actors() const;
  /// Handles to the live actors, except the system's own hidden ones (metrics, tools).
  std::vector<actor> live_actors() const;
  /// Threads of blocking actors not yet joined: those running plus ended ones not yet
  /// reaped (the next spawn_blocking joins those).
  std::size_t blocking_thread_count() const;
  /// Messages sent to terminated actors so far.
  std::uint64_t dead_letters() const noexcept { return counters_->dead_letters.load(); }
  /// Messages no handler took so far.
  std::uint64_t unexpected_messages() const noexcept { return counters_->unexpected.load(); }
  /// Reports through the runtime's error reporter.
  void report_error(const std::string& text);

 private:
  friend class abstract_actor;
  friend class scoped_actor;
  /// Gives a new actor its system, id and name.
  void adopt(abstract_actor* a, std::string name);
  void launch(abstract_actor* a, spawn_options options, std::string default_name);
  void register_actor(abstract_actor* a, bool hidden);
  void on_actor_terminated(abstract_actor& a);

  void stop_actors();

  std::unique_ptr<runtime> own_runtime_;  ///< when built without a shared one
  runtime* runtime_;
  std::size_t shutdown_step_ = 0;
  std::atomic<std::uint64_t> next_id_{1};
  std::shared_ptr<detail::message_counters> counters_ =
      std::make_shared<detail::message_counters>();

  mutable std::mutex registry_mutex_;
  std::condition_variable registry_changed_;
  std::unordered_map<std::uint64_t, actor> registry_;
  std::size_t visible_actors_ = 0;
  std::unordered_map<std::uint64_t, bool> hidden_;
  bool shutting_down_ = false;
  bool shut_down_ = false;
  struct blocking_thread {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;  ///< set as the thread's last step
  };
  std::vector<blocking_thread> blocking_threads_;
};

/// A blocking actor bound to the current thread's scope (for main() and tests):
///   spate::scoped_actor self{system};
///   spate::send(worker, job{self->self()});
///   auto reply = self->receive<result>();
class SPATE_API scoped_actor {
 public:
  /// A blocking actor owned by this scope, for sending and receiving from a plain thread.
  explicit scoped_actor(actor_system& system);
  ~scoped_actor();
  scoped_actor(const scoped_actor&) = delete;
  scoped_actor& operator=(const scoped_actor&) = delete;

  /// The blocking actor.
  blocking_actor* operator->() const noexcept { return self_.get(); }
  /// The blocking actor.
  blocking_actor& operator*() const noexcept { return *self_.get(); }
  /// A handle to it (for replies and links).
  operator actor() const { return actor(self_.get()); }

 private:
  actor_ref<blocking_actor> self_;
};

}  // namespace spate
