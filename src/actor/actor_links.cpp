#include "spate/actor/actor_links.hpp"

#include <algorithm>
#include <utility>

#include "spate/actor/abstract_actor.hpp"

namespace spate {

std::optional<exit_reason> actor_links::link(actor_links& a_links, const actor& a,
                                             actor_links& b_links, const actor& b) {
  actor_links* first = std::min(&a_links, &b_links);
  actor_links* second = std::max(&a_links, &b_links);
  std::scoped_lock lock(first->mutex_, second->mutex_);
  if (b_links.closed_) return b_links.final_reason_;
  if (std::find(a_links.links_.begin(), a_links.links_.end(), b) != a_links.links_.end()) {
    return std::nullopt;
  }
  a_links.links_.push_back(b);
  b_links.links_.push_back(a);
  return std::nullopt;
}

void actor_links::unlink(actor_links& a_links, const actor& a, actor_links& b_links,
                         const actor& b) {
  actor_links* first = std::min(&a_links, &b_links);
  actor_links* second = std::max(&a_links, &b_links);
  std::scoped_lock lock(first->mutex_, second->mutex_);
  std::erase(a_links.links_, b);
  std::erase(b_links.links_, a);
}

std::optional<exit_reason> actor_links::add_monitor(const actor& watcher) {
  std::lock_guard lock(mutex_);
  if (closed_) return final_reason_;
  monitors_.push_back(watcher);
  return std::nullopt;
}

void actor_links::remove_link(const actor& peer) {
  std::lock_guard lock(mutex_);
  std::erase(links_, peer);
}

actor_links::to_notify actor_links::close(const exit_reason& reason) {
  std::lock_guard lock(mutex_);
  closed_ = true;
  final_reason_ = reason;
  return {std::exchange(links_, {}), std::exchange(monitors_, {})};
}

}  // namespace spate
