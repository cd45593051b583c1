#include "spate/actor/event_based_actor.hpp"

namespace spate {

void event_based_actor::enqueue_dynamic(std::any message, message_priority priority,
                                        std::shared_ptr<response_sink> reply) {
  if (is_terminated()) {
    reject_after_termination(reply, message.type().name());
    return;
  }
  auto& queue = priority == message_priority::high ? high_ : normal_;
  queue.push(dynamic_envelope{std::move(message), std::move(reply)});
  schedule_if_idle();
}

void event_based_actor::initialize() {
  behavior_ = make_behavior();
  if (behavior_.empty()) quit();
}

std::size_t event_based_actor::process_mailbox(std::size_t budget) {
  std::size_t handled = 0;
  while (handled < budget) {
    auto* queue = &high_;
    dynamic_envelope* e = queue->front();
    if (e == nullptr) {
      queue = &normal_;
      e = queue->front();
      if (e == nullptr) break;
    }
    handle_guarded(e->reply, [&] {
      // Copy: a handler may call become() and destroy the behavior it runs in.
      const behavior current = behavior_;
      auto result = current.invoke(e->message);
      if (!result) {
        report_unexpected(demangle(e->message.type().name()), e->reply);
      } else if (e->reply) {
        e->reply->deliver(result->has_value() ? std::move(*result) : std::any(unit_t{}));
      }
    });
    queue->pop();
    ++handled;
    if (quit_requested()) break;
  }
  return handled;
}

std::size_t event_based_actor::drop_mailbox() {
  return fail_and_drop_all(high_) + fail_and_drop_all(normal_);
}

}  // namespace spate
