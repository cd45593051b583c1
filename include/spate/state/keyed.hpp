#pragma once
// Keyed state handles: what a node of a by-key farm keeps per key, reached from consume()
// by the current item's key, as in Flink's keyed state (ValueState, MapState, ListState).
//
//   struct counter : spate::flow::node<word, count> {
//     spate::state::value<std::uint64_t> seen{"seen"};
//     auto state_fields() { return std::tie(seen); }
//     void consume(word& w) { send_next({w.text, ++seen.get_or_init(0u)}); }
//   };
//   flow::farm(counter{}, 4, flow::by_key{[](const word& w) { return w.text; }})
//
// Before each consume() the runtime binds every handle the node lists in state_fields() to
// the item's key (the farm's by_key function); after it, a key whose states are all empty is
// dropped. The states live in the runtime's store (state/keyed_store.hpp), which a checkpoint
// snapshots; their types need codecs (state/codec.hpp), checked when the node is compiled.
// A handle used outside consume() (on_start, on_stop, a timer) has no key and throws
// std::logic_error naming the state.
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spate/state/codec.hpp"

namespace spate::state {

namespace detail {
struct handle_access;
}

/// What every handle has: its name and the current key's slot.
template <class Slot>
class handle_base {
  static_assert(encodable<Slot>,
                "spate::state: a keyed state's type has no codec (for a map or list state, its "
                "key or element type has none); specialise spate::state::codec<T> with static "
                "void encode(const T&, byte_writer&) and static T decode(byte_reader&) (see "
                "spate/state/codec.hpp)");

 public:
  /// What the handle keeps per key.
  using slot_type = Slot;

  /// The name it has in checkpoints and messages.
  const std::string& name() const noexcept { return name_; }
  /// A key is bound: inside consume() of a keyed node.
  bool bound() const noexcept { return slot_ != nullptr; }

 protected:
  /// A handle named `name`; throws std::invalid_argument when it is empty.
  explicit handle_base(std::string name) : name_(std::move(name)) {
    if (name_.empty()) throw std::invalid_argument("spate::state: a state needs a name");
  }
  /// The current key's slot; throws outside consume().
  Slot& slot() const {
    if (slot_ == nullptr) {
      throw std::logic_error("spate::state: state '" + name_ +
                             "' used with no current key (outside consume() of a keyed node)");
    }
    return *slot_;
  }

 private:
  friend struct detail::handle_access;
  std::string name_;
  Slot* slot_ = nullptr;
};

/// One value per key (Flink's ValueState). Empty until set.
template <class T>
class value : public handle_base<std::optional<T>> {
 public:
  /// A value state named `name` (unique within its node: a graph refuses a repeat).
  explicit value(std::string name) : handle_base<std::optional<T>>(std::move(name)) {}

  /// The current key has a value.
  bool has_value() const { return this->slot().has_value(); }
  /// The current key's value (it has one).
  T& operator*() const { return *checked(); }
  /// The current key's value (it has one).
  T* operator->() const { return checked(); }
  /// The current key's value, made from `args` first when it has none.
  template <class... Args>
  T& get_or_init(Args&&... args) const {
    auto& s = this->slot();
    if (!s) s.emplace(std::forward<Args>(args)...);
    return *s;
  }
  /// Sets the current key's value.
  template <class U = T>
  T& set(U&& v) const {
    return this->slot().emplace(std::forward<U>(v));
  }
  /// Empties the current key's value.
  void clear() const { this->slot().reset(); }

 private:
  T* checked() const {
    auto& s = this->slot();
    if (!s)
      throw std::logic_error("spate::state: value '" + this->name() + "' is empty for this key");
    return &*s;
  }
};

/// A map per key (Flink's MapState): user keys to values, in no order.
template <class K, class V>
class map : public handle_base<std::unordered_map<K, V>> {
 public:
  /// A map state named `name` (unique within its node).
  explicit map(std::string name) : handle_base<std::unordered_map<K, V>>(std::move(name)) {}

  /// The current key's entry for `k`, or null.
  V* find(const K& k) const {
    auto& m = this->slot();
    auto it = m.find(k);
    return it == m.end() ? nullptr : &it->second;
  }
  /// The current key's entry for `k`, value-initialised when missing.
  V& operator[](const K& k) const { return this->slot()[k]; }
  /// The current key's map has `k`.
  bool contains(const K& k) const { return this->slot().contains(k); }
  /// Removes `k`; false when it was missing.
  bool erase(const K& k) const { return this->slot().erase(k) != 0; }
  /// Entries for the current key.
  std::size_t size() const { return this->slot().size(); }
  /// No entry for the current key.
  bool empty() const { return this->slot().empty(); }
  /// The current key's entries, to iterate (in no order).
  std::unordered_map<K, V>& entries() const { return this->slot(); }
  /// Removes every entry of the current key.
  void clear() const { this->slot().clear(); }
};

/// A list per key (Flink's ListState), in the order added.
template <class T>
class list : public handle_base<std::vector<T>> {
 public:
  /// A list state named `name` (unique within its node).
  explicit list(std::string name) : handle_base<std::vector<T>>(std::move(name)) {}

  /// Appends to the current key's list.
  template <class U = T>
  void add(U&& v) const {
    this->slot().push_back(std::forward<U>(v));
  }
  /// The current key's elements, oldest first.
  std::vector<T>& items() const { return this->slot(); }
  /// Elements for the current key.
  std::size_t size() const { return this->slot().size(); }
  /// No element for the current key.
  bool empty() const { return this->slot().empty(); }
  /// Removes every element of the current key.
  void clear() const { this->slot().clear(); }
};

namespace detail {

template <class T>
struct is_handle : std::false_type {};
template <class T>
struct is_handle<value<T>> : std::true_type {};
template <class K, class V>
struct is_handle<map<K, V>> : std::true_type {};
template <class T>
struct is_handle<list<T>> : std::true_type {};

template <class Tuple>
struct all_handles : std::false_type {};
template <class... H>
struct all_handles<std::tuple<H&...>> : std::bool_constant<(is_handle<H>::value && ...)> {};

// The runtime's side of a handle: binds it to a slot of the current key's row.
struct handle_access {
  template <class Slot>
  static void bind(handle_base<Slot>& h, Slot* slot) noexcept {
    h.slot_ = slot;
  }
};

}  // namespace detail

/// A node with keyed state: state_fields() returns std::tie of its handles.
template <class N>
concept keyed_node = requires(N& n) {
  { n.state_fields() };
} && detail::all_handles<decltype(std::declval<N&>().state_fields())>::value;

}  // namespace spate::state
