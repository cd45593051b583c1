#pragma once
// Connections (LF paper, Sect. 2.1 and 2.4), as a reactor declares them in its constructor:
//
//   connect(a.out, b.in);                          // same tag
//   connect(a.out, b.in).after(10ms);              // 10 ms later in logical time
//   connect(a.out, b.in).after(0ns);               // the next microstep
//   connect(a.out, b.in).physical();               // at the physical time of arrival
//   connect(sources.ports(&src::out), sink.in);    // bank to multiport, one to one in order
//   connect(broadcast(a.out), b.in);               // one value to every channel
//
// Both sides are port lists; their channels are paired in order and the widths must be equal
// unless the left side is a broadcast. A connection goes from an input of the declaring
// reactor or an output of a contained one, to an output of the declaring reactor or an input
// of a contained one. Checked at assembly; errors name the ports.
#include <optional>
#include <type_traits>
#include <vector>

#include "spate/reactor/detail/pointer_list.hpp"
#include "spate/reactor/port_list.hpp"
#include "spate/reactor/tag.hpp"

namespace spate::reactor {

/// A connection between port lists (reactor::connect's result; see the top of this file).
class connection {
 public:
  /// A logical delay; zero means the next microstep. Negative: std::invalid_argument naming
  /// the ports (a value would arrive before it was sent).
  connection& after(duration delay) {
    if (delay < duration::zero())
      detail::reject_negative_connection_delay(from_.span(), to_.span(), "after", delay);
    delay_ = delay;
    return *this;
  }
  /// The value arrives at a tag taken from the physical clock (plus `delay`) when it is sent.
  /// Negative: std::invalid_argument naming the ports.
  connection& physical(duration delay = duration::zero()) {
    if (delay < duration::zero())
      detail::reject_negative_connection_delay(from_.span(), to_.span(), "physical", delay);
    physical_ = true;
    delay_ = delay;
    return *this;
  }
  /// True when it carries values to a later tag.
  bool is_delayed() const noexcept { return delay_.has_value(); }
  /// True when values arrive at the physical time they are set.
  bool is_physical() const noexcept { return physical_; }
  /// Its delay, when it has one.
  std::optional<duration> delay() const noexcept { return delay_; }

  /// True when `pred` holds for a port at either end.
  template <class Pred>
  bool touches(Pred pred) const {
    for (const port_base* p : from_)
      if (pred(p)) return true;
    for (const port_base* p : to_)
      if (pred(p)) return true;
    return false;
  }

  /// From `from` to `to`, channel by channel (`broadcast`: `from` repeated).
  connection(const std::vector<port_base*>& from, const std::vector<port_base*>& to, bool broadcast)
      : broadcast_(broadcast) {
    for (port_base* p : from) from_.push_back(p);
    for (port_base* p : to) to_.push_back(p);
  }

 private:
  friend class detail::assembler;
  detail::pointer_list<port_base*> from_, to_;  ///< one port each, most often: no allocation
  bool broadcast_;
  std::optional<duration> delay_;
  bool physical_ = false;
};

namespace detail {

/// Both sides of a connection as ports, whatever the selections were written as.
struct connection_ends {
  std::vector<port_base*> from, to;
  bool broadcast;
};
template <port_selection From, port_selection To>
connection_ends ends_of(From&& from, To&& to) {
  static_assert(std::is_same_v<port_list_value_t<From>, port_list_value_t<To>>,
                "connect: both sides must carry the same value type");
  auto f = as_port_list(from);
  auto t = as_port_list(to);
  return {std::vector<port_base*>(f.begin(), f.end()), std::vector<port_base*>(t.begin(), t.end()),
          f.is_broadcast()};
}

/// A delayed or physical connection between two channels, after assembly: setting `from`
/// stages an event for `to`.
struct delayed_connection {
  port_base* from;
  port_base* to;
  duration delay;
  bool physical;
};
}  // namespace detail

}  // namespace spate::reactor
