#pragma once
// What both keyed stores (state/keyed_store.hpp in memory, state/backend_keyed_store.hpp on
// a backend) do with a node's handles: the row a key holds (one slot per handle), binding
// the handles to it, its emptiness, its bytes, and the layout a checkpoint part records.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/platform/type_name.hpp"
#include "spate/state/codec.hpp"
#include "spate/state/keyed.hpp"

namespace spate::state::detail {

template <class Key, class Fields>
struct keyed_row;

template <class Key, class... H>
struct keyed_row<Key, std::tuple<H&...>> {
  static_assert(encodable<Key>,
                "spate::state: the by_key function of a farm whose node has keyed state must "
                "return a type with a codec (a view such as std::string_view cannot be kept as "
                "a key: return a std::string)");

  /// The node's handles.
  using fields_type = std::tuple<H&...>;
  /// What a key holds: one slot per handle, in state_fields() order.
  using type = std::tuple<typename H::slot_type...>;

  /// Points every handle at its slot of `row`; null unbinds them.
  static void bind(fields_type& fields, type* row) noexcept {
    bind_each(fields, row, std::index_sequence_for<H...>{});
  }

  /// Every state of `row` is empty (no value, an empty map or list): the key can go.
  static bool empty(const type& row) noexcept {
    return std::apply([](const auto&... s) { return (slot_empty(s) && ...); }, row);
  }

  static void encode(const type& row, byte_writer& out) {
    std::apply([&](const auto&... slot) { (state::encode(slot, out), ...); }, row);
  }
  static type decode(byte_reader& in) {
    return type{state::decode<typename H::slot_type>(in)...};  // braces: in order
  }

  /// What a part records of the node's states: the key type, each state's name and type. A
  /// part of another layout is refused on restore.
  static std::string layout(fields_type fields) {
    std::string out = spate::type_name<Key>();
    std::apply(
        [&](auto&... h) {
          ((out += "; ", out += h.name(), out += ": ",
            out += spate::type_name<typename std::decay_t<decltype(h)>::slot_type>()),
           ...);
        },
        fields);
    return out;
  }

  /// Throws std::invalid_argument when two of a node's states share a name (a checkpoint
  /// finds a state by its name).
  static void check_names(fields_type fields) {
    std::vector<const std::string*> names;
    std::apply([&](auto&... h) { (names.push_back(&h.name()), ...); }, fields);
    for (std::size_t i = 0; i < names.size(); ++i) {
      for (std::size_t j = i + 1; j < names.size(); ++j) {
        if (*names[i] == *names[j]) {
          throw std::invalid_argument("spate::state: two states of one node are named '" +
                                      *names[i] + "'");
        }
      }
    }
  }

 private:
  template <std::size_t... I>
  static void bind_each(fields_type& fields, type* row, std::index_sequence<I...>) noexcept {
    (handle_access::bind(std::get<I>(fields), row != nullptr ? &std::get<I>(*row) : nullptr), ...);
  }
  template <class Slot>
  static bool slot_empty(const Slot& s) noexcept {
    if constexpr (requires { s.has_value(); }) {
      return !s.has_value();
    } else {
      return s.empty();
    }
  }
};

}  // namespace spate::state::detail
