#pragma once
// The links and monitors of one actor: who must be told when it terminates, and how.
// A link is mutual (both sides hold the other); a monitor is one-way (the watched actor
// holds its watchers). Once the actor terminated, its set is closed: linking to it or
// monitoring it then reports its final reason at once, so no exit or down is ever missed.
//
// Thread-safe: any actor may link to or monitor any other. Two sets are locked in address
// order, so two actors linking to each other at the same time cannot deadlock.
#include <mutex>
#include <optional>
#include <vector>

#include "spate/actor/actor_ref.hpp"
#include "spate/actor/exit_reason.hpp"
#include "spate/platform/export.hpp"

namespace spate {

class abstract_actor;

/// An actor's links and monitors (both directions), and who to tell when it terminates.
class SPATE_API actor_links {
 public:
  /// Links `a` (whose set is `a_links`) and `b` both ways. When `b` had already terminated,
  /// nothing is linked and its final reason is returned: the caller tells `a`.
  static std::optional<exit_reason> link(actor_links& a_links, const actor& a, actor_links& b_links,
                                         const actor& b);
  /// Removes the link between a and b from both sides.
  static void unlink(actor_links& a_links, const actor& a, actor_links& b_links, const actor& b);

  /// Adds a watcher; when this actor had already terminated, returns its final reason instead.
  std::optional<exit_reason> add_monitor(const actor& watcher);
  /// Forgets a linked peer (it terminated, or told us it is gone).
  void remove_link(const actor& peer);

  /// This actor terminated with `reason`: closes the set and returns whom to tell.
  struct to_notify {
    /// Linked actors to send exit_msg.
    std::vector<actor> linked;
    /// Monitors to send down_msg.
    std::vector<actor> monitors;
  };
  /// Closes the links at termination; returns who must be told.
  to_notify close(const exit_reason& reason);

 private:
  std::mutex mutex_;
  std::vector<actor> links_;
  std::vector<actor> monitors_;
  bool closed_ = false;
  exit_reason final_reason_;
};

}  // namespace spate
