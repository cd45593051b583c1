#pragma once
// Messages the runtime itself sends to an actor: exits along links, down notifications,
// responses to its requests, kill. They travel in a separate intrusive queue that the actor
// drains before its mailbox (so a kill overtakes a long mailbox), and are rare enough to be
// allocated one by one.
#include <utility>

#include "spate/channel/intrusive_mpsc_queue.hpp"
#include "spate/platform/export.hpp"

namespace spate {

class abstract_actor;

/// A message to the actor's runtime part (links, monitors, kills), ahead of its mailbox.
class SPATE_API control_message : public intrusive_mpsc_link {
 public:
  virtual ~control_message() = default;
  /// Runs in the actor's context.
  virtual void run(abstract_actor& self) = 0;
};

/// A control message running a function.
template <class F>
class control_function final : public control_message {
 public:
  /// Runs `f` in the actor's context.
  explicit control_function(F f) : f_(std::move(f)) {}
  /// Calls the function.
  void run(abstract_actor& self) override { f_(self); }

 private:
  F f_;
};

template <class F>
control_message* make_control(F f) {
  return new control_function<F>(std::move(f));
}

}  // namespace spate
