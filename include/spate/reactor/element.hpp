#pragma once
// What every part of a reactor program has: a name, a container, and a fully qualified name
// ("main.sensor[2].out") that every error message uses.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spate/platform/export.hpp"
#include "spate/reactor/detail/element_name.hpp"
#include "spate/reactor/detail/erased_value.hpp"
#include "spate/reactor/detail/pointer_list.hpp"
#include "spate/reactor/tag.hpp"

namespace spate::reactor {

class reactor;
class reaction;
class environment;

class element;
class port_base;

namespace detail {
/// Throws std::invalid_argument naming `kind` `who` ("timer main.clock") when `value`, its
/// `what` ("offset"), is negative: logical time never goes backwards.
SPATE_API void require_not_negative(const char* kind, const element& who, const char* what,
                                    duration value);
/// Throws std::invalid_argument for `connect(from, to).<how>(delay)` with a negative delay,
/// naming the ports.
[[noreturn]] SPATE_API void reject_negative_connection_delay(std::span<port_base* const> from,
                                                             std::span<port_base* const> to,
                                                             const char* how, duration delay);
}  // namespace detail

/// Anything with a name inside a reactor (ports, actions, reactions, reactors).
class SPATE_API element {
 public:
  element(const element&) = delete;
  element& operator=(const element&) = delete;

  /// Its own name.
  std::string name() const { return name_.str(); }
  /// The reactor this element belongs to; null for a top-level reactor.
  reactor* container() const noexcept { return container_; }
  /// Its name with its containers', "main.counter.out".
  std::string fully_qualified_name() const;

 protected:
  /// An element named `name` in `container` (null: a top-level reactor).
  element(std::string_view name, reactor* container) : name_(name), container_(container) {}
  /// A multiport's channel, named "multiport[i]".
  element(detail::channel_name name, reactor* container) noexcept
      : name_(name), container_(container) {}
  ~element() = default;

 private:
  detail::element_name name_;
  reactor* container_;
};

namespace detail {

/// Something an event of the event queue makes present at a tag: an action, a timer, the
/// startup and shutdown triggers, or the input at the end of a delayed connection.
class SPATE_API event_target {
 public:
  /// What the reaction scheduler does after delivering: a periodic timer places its next
  /// event, an input at the end of a delayed connection forwards along further delayed
  /// connections.
  enum class target_kind : unsigned char { port, timer, other };

  explicit event_target(target_kind kind) noexcept : kind_(kind) {}
  // Not virtual: targets are ports and actions, owned as members of their reactors, never
  // deleted through this base (a vtable pointer in each of a million ports is 8 MB).
  ~event_target() = default;
  target_kind kind() const noexcept { return kind_; }
  /// Present with `value`: at the start of the event's tag, on the thread that advances time
  /// (no reaction runs), or when a reaction sets a port.
  void deliver(erased_value value) {
    value_ = std::move(value);
    present_ = true;
  }
  /// At the end of that tag: absent again.
  void clear() noexcept {
    present_ = false;
    value_.reset();
  }
  /// The reactions this target's presence triggers (computed at assembly).
  std::span<reaction* const> triggered_reactions() const noexcept { return triggered_.span(); }

 protected:
  friend class assembler;
  // The one-byte fields come last: their tail padding holds a derived class's first small
  // fields (a port's direction and flag), 8 bytes less in every port and action.
  pointer_list<reaction*> triggered_;
  erased_value value_;
  bool present_ = false;

 private:
  target_kind kind_;
};

}  // namespace detail
}  // namespace spate::reactor
