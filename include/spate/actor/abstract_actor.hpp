#pragma once
// The base of every actor: identity, reference count, the control queue and termination;
// links and monitors are an actor_links component, the mailboxes belong to the subclasses.
//
// Scheduling is the wake handshake (exec/wake_handshake.hpp): a sender pushes its
// message and calls notify(); the actor drains up to its budget and calls go_idle() with
// "did a mailbox grow?" as the re-check. Termination is the activation's finish(): later
// sends are counted as dead letters. Lifetime follows the activation's rule: the system's
// registry holds a reference until the actor terminates, handles hold more.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <typeinfo>
#include <vector>

#include "spate/actor/actor_links.hpp"
#include "spate/actor/actor_ref.hpp"
#include "spate/actor/control_message.hpp"
#include "spate/actor/exit_reason.hpp"
#include "spate/actor/mailbox.hpp"
#include "spate/actor/message.hpp"
#include "spate/actor/response.hpp"
#include "spate/channel/intrusive_mpsc_queue.hpp"
#include "spate/exec/unit.hpp"
#include "spate/exec/task.hpp"
#include "spate/platform/export.hpp"

namespace spate {

class actor_system;
/// An answer to a request, given later (response_promise.hpp).
template <class R>
class response_promise;

namespace detail {
/// The response type of a handler result: R for a handler that replies later through a
/// response_promise<R>, the result itself otherwise.
template <class T>
struct unwrap_promise {
  using type = T;
};
template <class R>
struct unwrap_promise<response_promise<R>> {
  using type = R;
};
template <class T>
using unwrap_promise_t = typename unwrap_promise<T>::type;
}  // namespace detail

namespace detail {
/// An actor system's message counters, shared with its actors: an actor handle may outlive
/// the system, and a message that reaches the actor then is still counted.
struct message_counters {
  std::atomic<std::uint64_t> dead_letters{0};
  std::atomic<std::uint64_t> unexpected{0};
};
}  // namespace detail

/// What a linked actor receives when the other side terminates abnormally.
struct SPATE_API exit_msg {
  /// The actor that terminated.
  actor source;
  /// Why.
  exit_reason reason;
};

/// What a monitoring actor receives when the monitored one terminates.
struct SPATE_API down_msg {
  /// The actor that terminated.
  actor source;
  /// Why.
  exit_reason reason;
};

/// The base of every actor (see the top of this file).
class SPATE_API abstract_actor : public unit {
 public:
  abstract_actor(const abstract_actor&) = delete;
  abstract_actor& operator=(const abstract_actor&) = delete;
  ~abstract_actor() override;

  /// Unique within its system.
  std::uint64_t id() const noexcept { return id_; }
  /// Its spawn_options name, or its type's.
  const std::string& name() const noexcept { return name_; }
  /// The system it belongs to.
  actor_system& system() const noexcept { return *system_; }
  /// True once it has terminated.
  bool is_terminated() const noexcept { return is_finished(); }
  /// Messages waiting (any thread; approximate while senders send).
  virtual std::size_t mailbox_size() const noexcept = 0;
  /// Mailbox messages handled so far (any thread; metrics).
  std::uint64_t messages_handled() const noexcept {
    return messages_handled_.load(std::memory_order_relaxed);
  }

  /// ---- used by send / request (any thread) ----
  /// Enqueues a type-erased message. Actors with a typed mailbox convert it to one of their
  /// types at run time, or report it as unexpected.
  virtual void enqueue_dynamic(std::any message, message_priority priority,
                               std::shared_ptr<response_sink> reply) = 0;
  /// Queues a control message (overtakes the mailbox); any thread.
  void enqueue_control(control_message* m);
  /// Stops the actor after its current message (control queue, overtakes the mailbox).
  void kill(exit_reason reason);
  /// Counts and fails a message that reached a terminated actor.
  void reject_after_termination(const std::shared_ptr<response_sink>& reply, const char* type_name);

  /// ---- used from inside the actor (its handlers) ----
  actor self() { return actor(this); }
  /// Terminates once the current message is handled.
  void quit(exit_reason reason = {});
  /// Links are bidirectional: when one side terminates with a non-normal reason, the other
  /// receives exit_msg; without an exit handler it then terminates with the same reason.
  void link_to(const actor& other);
  /// Removes a link made by link_to (both sides).
  void unlink_from(const actor& other);
  /// The monitor receives down_msg (any reason) when `other` terminates.
  void monitor(const actor& other);
  /// Handles exit_msg from linked actors instead of terminating with their reason.
  void set_exit_handler(std::function<void(exit_msg&)> handler) {
    exit_handler_ = std::move(handler);
  }
  /// Handles down_msg from monitored actors.
  void set_down_handler(std::function<void(down_msg&)> handler) {
    down_handler_ = std::move(handler);
  }
  /// Sends `message` to this actor after `delay` (a runtime timer).
  void delayed_send_to_self(std::chrono::nanoseconds delay, std::any message);
  /// Inside a request's handler: takes the reply over, to answer later (or delegate) through
  /// the promise; the handler's own result is then not sent. Defined in response_promise.hpp.
  template <class R>
  response_promise<R> make_response_promise();

  /// ---- task ----
  resume_result resume(std::size_t budget) final;

  /// ---- reference counting (actor_ref) ----
  void add_ref() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  /// Drops a reference; the last one deletes the actor.
  void release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 protected:
  abstract_actor();

  /// Runs once, in the actor's context, before the first message.
  virtual void initialize() {}
  /// Handles up to `budget` mailbox messages; returns how many it handled.
  virtual std::size_t process_mailbox(std::size_t budget) = 0;
  /// The idle handshake: mark_mailbox() (consumer side, before publishing idle) and
  /// mailbox_grew_since() (after; reads only producer-side atomics, see mpsc_queue).
  virtual mailbox_mark mark_mailbox() const noexcept = 0;
  /// Whether a mailbox grew since `mark` (the idle re-check; producer-side atomics only).
  virtual bool mailbox_grew_since(const mailbox_mark& mark) const noexcept = 0;
  /// At termination: fails pending requests and counts the dropped messages.
  virtual std::size_t drop_mailbox() = 0;
  /// Called once when the actor terminates, before links and monitors are told.
  virtual void on_terminated(const exit_reason&) {}

  /// Schedules the actor if it is idle (called after every enqueue): unit::notify().
  void schedule_if_idle() noexcept { notify(); }

  /// Runs `f` for one message; turns an exception into termination (and a failed request).
  template <class F>
  void guarded(const std::shared_ptr<response_sink>& reply, F&& f) noexcept;
  /// guarded() for a mailbox message: while `f` runs, make_response_promise() may take
  /// `reply` over (leaving it null, so the caller sends no answer of its own).
  template <class F>
  void handle_guarded(std::shared_ptr<response_sink>& reply, F&& f) noexcept {
    reply_scope scope(*this, reply);
    guarded(reply, std::forward<F>(f));
  }
  /// Makes `reply` the one make_response_promise() takes over, for the scope's lifetime.
  class reply_scope {
   public:
    /// Makes `reply` the current request's sink while a handler runs.
    reply_scope(abstract_actor& self, std::shared_ptr<response_sink>& reply) noexcept
        : self_(self) {
      self_.current_reply_ = &reply;
    }
    ~reply_scope() { self_.current_reply_ = nullptr; }
    reply_scope(const reply_scope&) = delete;
    reply_scope& operator=(const reply_scope&) = delete;

   private:
    abstract_actor& self_;
  };
  /// Fails the request (if any) with the handler's exception and reports it.
  void fail_with_exception(const std::shared_ptr<response_sink>& reply, const char* what,
                           const std::string& exception_type) noexcept;
  /// Reports a message no handler takes and fails its request.
  void report_unexpected(const std::string& type_name, const std::shared_ptr<response_sink>& reply);
  /// Runs the control messages queued (links, monitors, kills) before the mailbox.
  void drain_control_queue();
  /// A request dropped with the mailbox at termination ends with dead_actor.
  void fail_dropped_request(const std::shared_ptr<response_sink>& reply) {
    if (reply) {
      reply->fail(request_error(request_error_code::dead_actor,
                                "actor '" + name_ + "' terminated before replying"));
    }
  }
  /// Empties a mailbox queue at termination, failing the requests in it; returns the count.
  template <class Queue>
  std::size_t fail_and_drop_all(Queue& queue) {
    std::size_t dropped = 0;
    while (auto* e = queue.front()) {
      fail_dropped_request(e->reply);
      queue.pop();
      ++dropped;
    }
    return dropped;
  }
  /// True once quit() was called.
  bool quit_requested() const noexcept { return quit_requested_; }
  /// The reason quit() was given (blocking actors end with it).
  const exit_reason& quit_reason_for_blocking() const noexcept { return quit_reason_; }
  /// No control message queued.
  bool control_is_empty() const noexcept { return control_.empty_approx(); }
  /// Messages found in the mailbox when the actor object is destroyed: sent while it
  /// terminated, after terminate() had emptied the mailbox. Mailbox owners call this from
  /// their destructor with what they dropped, so every message is handled or counted.
  void count_dead_letters(std::size_t n) noexcept {
    /// n is almost always 0: no read-modify-write on the system-wide counter then.
    if (n != 0 && counters_) counters_->dead_letters.fetch_add(n, std::memory_order_relaxed);
  }
  /// Ends the actor: drops its mailbox, tells links and monitors, leaves the registry.
  void terminate(exit_reason reason);


 private:
  friend class actor_system;
  friend class scoped_actor;
  void handle_exit(exit_msg& m);
  void handle_down(down_msg& m);

  std::atomic<std::uint32_t> refs_{1};
  std::uint64_t id_ = 0;
  std::string name_;
  actor_system* system_ = nullptr;
  std::shared_ptr<detail::message_counters> counters_;
  bool initialized_ = false;
  bool quit_requested_ = false;
  std::atomic<std::uint64_t> messages_handled_{0};  ///< written by the running activation only
  exit_reason quit_reason_;
  std::shared_ptr<response_sink>* current_reply_ = nullptr;  ///< while a handler runs
  intrusive_mpsc_queue<control_message> control_;

  actor_links links_;  ///< links and monitors (not hot paths)
  std::function<void(exit_msg&)> exit_handler_;
  std::function<void(down_msg&)> down_handler_;
};

template <class F>
void abstract_actor::guarded(const std::shared_ptr<response_sink>& reply, F&& f) noexcept {
  try {
    f();
  } catch (const std::exception& e) {
    fail_with_exception(reply, e.what(), demangle(typeid(e).name()));
  } catch (...) {
    fail_with_exception(reply, "unknown exception", "non-std exception");
  }
}

inline void intrusive_add_ref(abstract_actor* a) noexcept {
  a->add_ref();
}
inline void intrusive_release(abstract_actor* a) noexcept {
  a->release();
}

template <class T>
abstract_actor* actor_ref<T>::as_base() const noexcept {
  return ptr_;
}
template <class T>
std::uint64_t actor_ref<T>::id() const noexcept {
  return ptr_ ? as_base()->id() : 0;
}
template <class T>
const std::string& actor_ref<T>::name() const noexcept {
  static const std::string none = "<null actor>";
  return ptr_ ? as_base()->name() : none;
}
template <class T>
std::size_t actor_ref<T>::mailbox_size() const noexcept {
  return ptr_ ? as_base()->mailbox_size() : 0;
}
template <class T>
bool actor_ref<T>::is_terminated() const noexcept {
  return ptr_ == nullptr || as_base()->is_terminated();
}

}  // namespace spate
