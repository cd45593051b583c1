#include "spate/actor/event_based_actor.hpp"

namespace spate {

void event_based_actor::enqueue_dynamic(std::any message, message_priority priority,
                                        std::shared_ptr<response_sink> reply) {
  if (is_terminated()) {
    reject_after_termination(reply, message.type().name());
    return;
  }
  mailbox_.push(dynamic_envelope{std::move(message), std::move(reply)}, priority);
  schedule_if_idle();
}

void event_based_actor::initialize() {
  behavior_ = make_behavior();
  if (behavior_.empty()) quit();
}

std::size_t event_based_actor::process_mailbox(std::size_t budget) {
  return mailbox_.drain(
      budget, [] { return true; },
      [this](dynamic_envelope& e) {
        handle_guarded(e.reply, [&] {
          // Copy: a handler may call become() and destroy the behavior it runs in.
          const behavior current = behavior_;
          auto result = current.invoke(e.message);
          if (!result) {
            report_unexpected(demangle(e.message.type().name()), e.reply);
          } else if (e.reply) {
            e.reply->deliver(result->has_value() ? std::move(*result) : std::any(unit_t{}));
          }
        });
        return !quit_requested();
      });
}

std::size_t event_based_actor::drop_mailbox() {
  return mailbox_.drop_all([this](dynamic_envelope& e) { fail_dropped_request(e.reply); });
}

}  // namespace spate
