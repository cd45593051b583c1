#include "spate/actor/abstract_actor.hpp"
#include "spate/log/log.hpp"
#include "spate/platform/single_writer_counter.hpp"

#include <algorithm>
#include <string>

#include "spate/actor/actor_system.hpp"

namespace spate {

abstract_actor::abstract_actor() = default;

abstract_actor::~abstract_actor() {
  while (control_message* m = control_.pop()) delete m;
}

void abstract_actor::enqueue_control(control_message* m) {
  if (is_terminated()) {
    delete m;
    return;
  }
  control_.push(m);
  schedule_if_idle();
}

void abstract_actor::kill(exit_reason reason) {
  enqueue_control(
      make_control([reason = std::move(reason)](abstract_actor& self) { self.quit(reason); }));
}

void abstract_actor::reject_after_termination(const std::shared_ptr<response_sink>& reply,
                                              const char*) {
  count_dead_letters(1);
  // Debug, not warn: a message racing an actor's end is ordinary (the counter is exported).
  if (log::enabled(log::level::debug)) {
    log::write(log::level::debug, "actor",
               "dead letter: a message to actor '" + name_ + "' (#" + std::to_string(id_) +
                   "), which has terminated");
  }
  if (reply) {
    reply->fail(
        request_error(request_error_code::dead_actor, "actor '" + name_ + "' has terminated"));
  }
}

void abstract_actor::quit(exit_reason reason) {
  if (quit_requested_) return;
  quit_requested_ = true;
  quit_reason_ = std::move(reason);
}


resume_result abstract_actor::resume(std::size_t budget) {
  drain_control_queue();
  if (!initialized_ && !quit_requested_) {
    initialized_ = true;
    guarded(nullptr, [&] { initialize(); });
  }
  std::size_t handled = 0;
  if (!quit_requested_) handled = process_mailbox(budget);
  if (handled != 0) add_single_writer(messages_handled_, handled);
  if (quit_requested_) {
    // Termination drops the registry's reference; this one keeps the actor alive until
    // terminate() returns (it may be the last).
    const actor keep_alive = self();
    terminate(quit_reason_);
    return resume_result::done;
  }
  if (handled == budget) return resume_result::resume_later;
  // The re-check reads only producer-side atomics: another activation may be running.
  const mailbox_mark mark = mark_mailbox();
  if (go_idle([&] { return mailbox_grew_since(mark) || !control_.empty_approx(); })) {
    return resume_result::resume_later;
  }
  return resume_result::awaiting;
}

void abstract_actor::drain_control_queue() {
  while (!quit_requested_) {
    control_message* m = control_.pop();
    if (m == nullptr) break;
    guarded(nullptr, [&] { m->run(*this); });
    delete m;
  }
}

void abstract_actor::fail_with_exception(const std::shared_ptr<response_sink>& reply,
                                         const char* what,
                                         const std::string& exception_type) noexcept {
  try {
    const std::string text = exception_type + ": " + what;
    if (reply) {
      reply->fail(request_error(request_error_code::handler_failed,
                                "actor '" + name_ + "' failed: " + text));
    }
    system_->report_error("spate: actor '" + name_ + "' (#" + std::to_string(id_) +
                          ") terminated by an unhandled exception: " + text);
    quit(exit_reason{exit_code::unhandled_exception, text});
  } catch (...) {
    quit(exit_reason{exit_code::unhandled_exception, "exception while reporting an exception"});
  }
}

void abstract_actor::report_unexpected(const std::string& type_name,
                                       const std::shared_ptr<response_sink>& reply) {
  counters_->unexpected.fetch_add(1, std::memory_order_relaxed);
  system_->report_error("spate: actor '" + name_ + "' (#" + std::to_string(id_) +
                        ") received an unexpected message of type " + type_name);
  if (reply) {
    reply->fail(
        request_error(request_error_code::unexpected_message,
                      "actor '" + name_ + "' cannot handle a message of type " + type_name));
  }
}

void abstract_actor::link_to(const actor& other) {
  if (!other || other.get() == this) return;
  if (auto reason = actor_links::link(links_, self(), other.get()->links_, other)) {
    enqueue_control(make_control([source = other, r = *reason](abstract_actor& me) mutable {
      exit_msg m{std::move(source), std::move(r)};
      me.handle_exit(m);
    }));
  }
}

void abstract_actor::unlink_from(const actor& other) {
  if (!other || other.get() == this) return;
  actor_links::unlink(links_, self(), other.get()->links_, other);
}

void abstract_actor::monitor(const actor& other) {
  if (!other || other.get() == this) return;
  if (auto reason = other.get()->links_.add_monitor(self())) {
    enqueue_control(make_control([source = other, r = *reason](abstract_actor& me) mutable {
      down_msg m{std::move(source), std::move(r)};
      me.handle_down(m);
    }));
  }
}

void abstract_actor::delayed_send_to_self(std::chrono::nanoseconds delay, std::any message) {
  auto boxed = std::make_shared<std::any>(std::move(message));
  system_->timers().schedule_after(delay, [target = self(), boxed] {
    target.get()->enqueue_dynamic(std::move(*boxed), message_priority::normal, nullptr);
  });
}

void abstract_actor::handle_exit(exit_msg& m) {
  links_.remove_link(m.source);
  if (exit_handler_) {
    exit_handler_(m);
  } else if (!m.reason.is_normal()) {
    quit(m.reason);
  }
}

void abstract_actor::handle_down(down_msg& m) {
  if (down_handler_) down_handler_(m);
}

void abstract_actor::terminate(exit_reason reason) {
  guarded(nullptr, [&] { on_terminated(reason); });
  finish_unit();
  const std::size_t dropped = drop_mailbox();
  count_dead_letters(dropped);
  if (dropped != 0 && log::enabled(log::level::debug)) {
    log::write(log::level::debug, "actor",
               "dead letters: actor '" + name_ + "' (#" + std::to_string(id_) +
                   ") terminated with " + std::to_string(dropped) + " messages unread");
  }
  while (control_message* m = control_.pop()) delete m;
  auto [linked, monitors] = links_.close(reason);
  const actor me = self();
  for (auto& peer : linked) {
    peer.get()->links_.remove_link(me);
    peer.get()->enqueue_control(make_control([me, reason](abstract_actor& target) {
      exit_msg m{me, reason};
      target.handle_exit(m);
    }));
  }
  for (auto& watcher : monitors) {
    watcher.get()->enqueue_control(make_control([me, reason](abstract_actor& target) {
      down_msg m{me, reason};
      target.handle_down(m);
    }));
  }
  system_->on_actor_terminated(*this);
}

}  // namespace spate
