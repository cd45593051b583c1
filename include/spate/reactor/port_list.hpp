#pragma once
// A list of ports of one value type: a port, a multiport's channels, the same port of every
// reactor of a bank (in bank order, or interleaved: channel-major), or several of these in a
// row. It is what connections wire one to one (LF's `a.out, b.out -> c.in`), what a
// broadcast repeats (`(a.out)+ -> b.in`), and what a reaction may declare as a trigger,
// source or effect as a whole.
#include <cstddef>
#include <type_traits>
#include <vector>

#include "spate/reactor/port.hpp"

namespace spate::reactor {

/// An ordered list of ports of one value type: one side of a connection.
template <class T>
class port_list {
 public:
  /// The ports' value type.
  using value_type = T;
  port_list() = default;
  /// A list of one port.
  port_list(port<T>& p) : ports_{&p} {}  // NOLINT: a port is a list of one
  /// A list of one input or output port.
  template <class P>
    requires std::is_base_of_v<port<T>, P>
  port_list(multiport<P>& m) {  // NOLINT: a multiport is a list of its channels
    for (P& p : m) ports_.push_back(&p);
  }

  /// How many ports.
  std::size_t size() const noexcept { return ports_.size(); }
  /// Port i.
  port<T>& operator[](std::size_t i) const { return *ports_[i]; }
  /// The first port.
  auto begin() const { return ports_.begin(); }
  /// After the last port.
  auto end() const { return ports_.end(); }
  /// Adds the other list's ports after these.
  void append(const port_list& other) {
    ports_.insert(ports_.end(), other.ports_.begin(), other.ports_.end());
  }
  /// Adds one port.
  void append(port<T>& p) { ports_.push_back(&p); }
  /// True when the list repeats to fill the other side (broadcast()).
  bool is_broadcast() const noexcept { return broadcast_; }

  /// LF's `(list)+`: repeat the list as often as the other side of the connection needs.
  friend port_list broadcast(port_list list) {
    list.broadcast_ = true;
    return list;
  }

 private:
  std::vector<port<T>*> ports_;
  bool broadcast_ = false;
};

template <class P>
port_list(multiport<P>&) -> port_list<typename P::value_type>;
template <class T>
port_list(input<T>&) -> port_list<T>;
template <class T>
port_list(output<T>&) -> port_list<T>;

template <class X>
struct port_list_value;
/// The value type of an input.
template <class T>
struct port_list_value<input<T>> {
  /// Its values' type.
  using type = T;
};
/// The value type of an output.
template <class T>
struct port_list_value<output<T>> {
  /// Its values' type.
  using type = T;
};
/// The value type of a multiport.
template <class P>
struct port_list_value<multiport<P>> {
  /// Its ports' values' type.
  using type = typename P::value_type;
};
/// The value type of a port list.
template <class T>
struct port_list_value<port_list<T>> {
  /// Its ports' values' type.
  using type = T;
};
template <class X>
using port_list_value_t = typename port_list_value<std::remove_cvref_t<X>>::type;

/// Anything that denotes ports: a port, a multiport, a port_list.
template <class X>
concept port_selection = requires { typename port_list_value<std::remove_cvref_t<X>>::type; };

template <class X>
port_list<port_list_value_t<X>> as_port_list(X&& x) {
  if constexpr (std::is_same_v<std::remove_cvref_t<X>, port_list<port_list_value_t<X>>>) {
    return x;
  } else {
    return port_list<port_list_value_t<X>>(x);
  }
}

/// LF's `(a.out)+` for a port or multiport: `connect(broadcast(a.out), b.in)` (the port_list
/// overload is port_list's friend).
template <port_selection X>
  requires(!std::is_same_v<std::remove_cvref_t<X>, port_list<port_list_value_t<X>>>)
port_list<port_list_value_t<X>> broadcast(X&& x) {
  return broadcast(as_port_list(x));
}

/// Several selections of one type in a row: `ports(a.out, b.out)` is LF's `a.out, b.out`.
template <port_selection First, port_selection... Rest>
  requires(std::is_same_v<port_list_value_t<First>, port_list_value_t<Rest>> && ...)
port_list<port_list_value_t<First>> ports(First&& first, Rest&&... rest) {
  auto list = as_port_list(first);
  (list.append(as_port_list(rest)), ...);
  return list;
}

}  // namespace spate::reactor
