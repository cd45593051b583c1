#include "spate/actor/blocking_actor.hpp"

namespace spate {

void blocking_actor::enqueue_dynamic(std::any message, message_priority,
                                     std::shared_ptr<response_sink> reply) {
  if (is_terminated()) {
    reject_after_termination(reply, message.type().name());
    return;
  }
  mailbox_.push(dynamic_envelope{std::move(message), std::move(reply)});
  schedule_if_idle();
}

std::optional<dynamic_envelope> blocking_actor::next_message(
    std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    drain_control_queue();
    if (quit_requested()) throw actor_exited(quit_reason_for_blocking());
    if (dynamic_envelope* e = mailbox_.front()) {
      dynamic_envelope taken = std::move(*e);
      mailbox_.pop();
      return taken;
    }
    // The wake handshake, with a wait in the waiter instead of a return: a sender
    // that wins the unit (idle -> scheduled) "schedules" it through thread_waker, which
    // notifies the waiter after that CAS; the waiter's condition reads the state.
    const mailbox_mark mark = mark_mailbox();
    if (!go_idle([&] { return mailbox_grew_since(mark) || !control_is_empty(); })) {
      const auto won_back = [this] { return handshake_state() != wake_handshake::state::idle; };
      bool woken = true;
      if (deadline == std::chrono::steady_clock::time_point::max()) {
        wake_.wait_until(won_back);
      } else {
        woken = wake_.wait_until(won_back, deadline);
      }
      take_back_after_wait();
      if (!woken) return std::nullopt;
    }
  }
}

void blocking_actor::run_handler(const behavior& b, dynamic_envelope& envelope) {
  std::optional<std::any> result;
  {
    reply_scope scope(*this, envelope.reply);
    result = b.invoke(envelope.message);
  }
  if (!result) {
    report_unexpected(demangle(envelope.message.type().name()), envelope.reply);
  } else if (envelope.reply) {
    envelope.reply->deliver(result->has_value() ? std::move(*result) : std::any(unit_t{}));
  }
}

std::size_t blocking_actor::drop_mailbox() {
  // Kept messages are older than the mailbox's: fail them first.
  const std::size_t kept = kept_.size();
  for (auto& e : kept_) fail_dropped_request(e.reply);
  kept_.clear();
  kept_count_.store(0, std::memory_order_relaxed);
  return kept + fail_and_drop_all(mailbox_);
}

}  // namespace spate
