// Codecs: how a value of keyed state (and a key) becomes bytes in a checkpoint or an on-disk
// store, and back. The first piece of the state layer (docs/state.md).
//
// A type has a codec when `spate::state::codec<T>` is a complete type with
//
//     static void encode(const T& value, byte_writer& out);
//     static T decode(byte_reader& in);
//
// spate provides codecs for
//   - trivially copyable types that hold no pointer (integers, floating point, enums, plain
//     structs of those, std::array of those): their bytes, as the machine lays them out;
//   - std::string, std::vector, std::deque, std::map, std::unordered_map, std::set,
//     std::unordered_set, std::optional, std::pair, std::tuple and std::array of types that
//     have codecs: a length (LEB128 varint) and the elements, in order.
// Anything else is specialised by the user:
//
//     template <> struct spate::state::codec<account> {
//       static void encode(const account& a, byte_writer& out) {
//         state::encode(a.owner, out);
//         state::encode(a.balance, out);
//       }
//       static account decode(byte_reader& in) {
//         auto owner = state::decode<std::string>(in);
//         return account{std::move(owner), state::decode<std::int64_t>(in)};
//       }
//     };
//
// A type without a codec does not compile: encode<T>() and decode<T>() stop at a
// static_assert that says to specialise spate::state::codec<T> (for a container, of its
// element type). Pointers, and views that hold one (std::string_view, std::span,
// std::reference_wrapper), are refused even though they are trivially copyable: an address
// means nothing to the process that restores. A codec must write at least one byte (a
// container's length check counts on it); one that writes none fails to decode in a container.
//
// Bytes are in the host's byte order and layout, padding included: a checkpoint is read back
// by the same build on the same architecture (the checkpoint's header records both).
//
// Decoding never reads past its input and never allocates for a length it does not have: a
// length longer than the bytes left, a truncated value, a bool or presence byte other than 0
// or 1, a duplicate key or bytes left over after the value throw decode_error, which names
// what was being read and where. What it cannot check is the bit pattern inside a type stored
// as its bytes: a struct with a bool or enum member read from corrupted bytes is undefined
// behaviour, so bytes that may be corrupt must be checked (a checksum) before they are
// decoded.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace spate::state {

/// Thrown by decoding: the input is shorter than the value it starts, or has bytes left
/// over. what(): "decoding std::string at byte 12 of 14: length 40 exceeds the 2 bytes left".
class decode_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Appends encoded bytes to a string it does not own. Not thread-safe (one encoder at a time).
class byte_writer {
 public:
  /// Appends to `out`, which must outlive the writer.
  explicit byte_writer(std::string& out) noexcept : out_(&out) {}
  /// Appends `size` bytes from `data`.
  void write(const void* data, std::size_t size) {
    out_->append(static_cast<const char*>(data), size);
  }
  /// Appends `value` as an LEB128 varint (1 byte below 128, at most 10).
  void write_varint(std::uint64_t value) {
    while (value >= 0x80) {
      out_->push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    out_->push_back(static_cast<char>(value));
  }
  /// Bytes written so far, including what the string held before.
  std::size_t size() const noexcept { return out_->size(); }

 private:
  std::string* out_;
};

/// Reads encoded bytes from a view it does not own (the bytes must outlive the reader). Not
/// thread-safe. Every read checks the bytes left and throws decode_error naming `what`.
class byte_reader {
 public:
  /// Reads `in` from its first byte.
  explicit byte_reader(std::string_view in) noexcept : in_(in) {}
  /// Copies the next `size` bytes to `data`.
  void read(void* data, std::size_t size, const char* what) {
    if (size > left()) fail(what, "needs " + std::to_string(size) + " bytes");
    std::memcpy(data, in_.data() + position_, size);
    position_ += size;
  }
  /// Reads an LEB128 varint.
  std::uint64_t read_varint(const char* what) {
    std::uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (left() == 0) fail(what, "a length runs past the end");
      const auto byte = static_cast<unsigned char>(in_[position_++]);
      if (shift == 63 && byte > 1) fail_at(position_ - 1, what, "a length exceeds 64 bits");
      value |= std::uint64_t(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    fail(what, "a length is longer than 10 bytes");  // unreachable: the 10th byte is 0 or 1
  }
  /// Reads a count of elements that each take at least one byte: one larger than the bytes
  /// left is corrupt input, refused before anything is allocated for it.
  std::size_t read_count(const char* what) {
    const std::size_t start = position_;
    const std::uint64_t n = read_varint(what);
    if (const std::size_t available = left(); n > available) {
      position_ = start;  // the error names where the length starts
      fail(what, "length " + std::to_string(n) + " exceeds the " + std::to_string(available) +
                     " bytes left");
    }
    return static_cast<std::size_t>(n);
  }
  /// The next `size` bytes, without copying them.
  std::string_view take(std::size_t size, const char* what) {
    if (size > left()) fail(what, "needs " + std::to_string(size) + " bytes");
    std::string_view bytes = in_.substr(position_, size);
    position_ += size;
    return bytes;
  }
  /// Bytes read so far.
  std::size_t position() const noexcept { return position_; }
  /// Bytes not read yet.
  std::size_t left() const noexcept { return in_.size() - position_; }
  /// Everything it reads, from the first byte (a view of the input).
  std::string_view input() const noexcept { return in_; }
  /// Every byte read.
  bool at_end() const noexcept { return position_ == in_.size(); }
  /// Throws decode_error: "decoding WHAT at byte P of N: PROBLEM".
  [[noreturn]] void fail(const char* what, const std::string& problem) const {
    fail_at(position_, what, problem);
  }
  /// The same, naming byte `at` (where the bad value starts).
  [[noreturn]] void fail_at(std::size_t at, const char* what, const std::string& problem) const {
    throw decode_error("decoding " + std::string(what) + " at byte " + std::to_string(at) + " of " +
                       std::to_string(in_.size()) + ": " + problem);
  }

 private:
  std::string_view in_;
  std::size_t position_ = 0;
};

/// Specialise for a type spate does not know (see the top of this file).
template <class T>
struct codec;

/// T (cv-qualifiers aside) has a complete codec with the two functions.
template <class T>
concept encodable = requires(const std::remove_cv_t<T>& value, byte_writer& out, byte_reader& in) {
  codec<std::remove_cv_t<T>>::encode(value, out);
  { codec<std::remove_cv_t<T>>::decode(in) } -> std::same_as<std::remove_cv_t<T>>;
};

/// Appends `value`'s encoding.
template <class T>
void encode(const T& value, byte_writer& out) {
  static_assert(encodable<T>,
                "spate::state: this type has no codec (a container: its element type has "
                "none); specialise spate::state::codec<T> with static void encode(const T&, "
                "byte_writer&) and static T decode(byte_reader&) (see spate/state/codec.hpp)");
  if constexpr (encodable<T>) codec<std::remove_cv_t<T>>::encode(value, out);
}

/// Reads one T.
template <class T>
std::remove_cv_t<T> decode(byte_reader& in) {
  static_assert(encodable<T>,
                "spate::state: this type has no codec (a container: its element type has "
                "none); specialise spate::state::codec<T> with static void encode(const T&, "
                "byte_writer&) and static T decode(byte_reader&) (see spate/state/codec.hpp)");
  if constexpr (encodable<T>)
    return codec<std::remove_cv_t<T>>::decode(in);
  else
    throw decode_error("unreachable: the static_assert above stops compilation");
}

/// `value` as a string of bytes.
template <class T>
std::string to_bytes(const T& value) {
  std::string bytes;
  byte_writer out(bytes);
  encode(value, out);
  return bytes;
}

/// The T that `bytes` hold, all of them: bytes left over are an error too.
template <class T>
T from_bytes(std::string_view bytes) {
  byte_reader in(bytes);
  T value = decode<T>(in);
  if (!in.at_end()) in.fail("a value", std::to_string(in.left()) + " bytes left over after it");
  return value;
}

namespace detail {

template <class T, template <class...> class Template>
inline constexpr bool is_instance_of = false;
template <template <class...> class Template, class... Args>
inline constexpr bool is_instance_of<Template<Args...>, Template> = true;

template <class T>
inline constexpr bool is_std_array = false;
template <class T, std::size_t N>
inline constexpr bool is_std_array<std::array<T, N>> = true;

template <class T>
inline constexpr bool is_span = false;
template <class T, std::size_t Extent>
inline constexpr bool is_span<std::span<T, Extent>> = true;

// A pointer's bytes do not survive a restart, nor do those of a view that holds one.
template <class T>
inline constexpr bool is_pointer_like =
    std::is_pointer_v<T> || std::is_member_pointer_v<T> || std::is_null_pointer_v<T> ||
    is_instance_of<T, std::basic_string_view> || is_instance_of<T, std::reference_wrapper> ||
    is_span<T>;

// Types with a codec of their own even when trivially copyable, so that each type has exactly
// one: the standard wrappers, and arrays of them.
template <class T>
inline constexpr bool has_own_codec = is_instance_of<T, std::optional> ||
                                      is_instance_of<T, std::pair> || is_instance_of<T, std::tuple>;

// What an array of T inherits: the element decides.
template <class T>
inline constexpr bool element_refuses_bytes = is_pointer_like<T> || has_own_codec<T>;
template <class T, std::size_t N>
inline constexpr bool element_refuses_bytes<std::array<T, N>> = element_refuses_bytes<T>;

// Types whose bytes are their value. C arrays are not (a function cannot return one; use
// std::array). A struct with a pointer member cannot be told apart from one without: do not
// checkpoint it by its bytes.
template <class T>
inline constexpr bool bytes_are_value =
    std::is_trivially_copyable_v<T> && !std::is_array_v<T> && !element_refuses_bytes<T>;

// A type whose encoding may be empty (no bytes): a container of it cannot bound its length
// by the bytes left, and is refused.
template <class T>
inline constexpr bool may_encode_empty = false;
template <>
inline constexpr bool may_encode_empty<std::tuple<>> = true;
template <class... Ts>
inline constexpr bool may_encode_empty<std::tuple<Ts...>> = (may_encode_empty<Ts> && ...);
template <class A, class B>
inline constexpr bool may_encode_empty<std::pair<A, B>> =
    may_encode_empty<A> && may_encode_empty<B>;
template <class T, std::size_t N>
inline constexpr bool may_encode_empty<std::array<T, N>> =
    !bytes_are_value<std::array<T, N>> && (N == 0 || may_encode_empty<T>);

// The name a decode_error gives a container (typeid names are mangled).
template <class T>
constexpr const char* container_name() {
  if constexpr (std::is_same_v<T, std::string>)
    return "std::string";
  else if constexpr (is_instance_of<T, std::vector>)
    return "std::vector";
  else if constexpr (is_instance_of<T, std::deque>)
    return "std::deque";
  else if constexpr (is_instance_of<T, std::map>)
    return "std::map";
  else if constexpr (is_instance_of<T, std::unordered_map>)
    return "std::unordered_map";
  else if constexpr (is_instance_of<T, std::set>)
    return "std::set";
  else if constexpr (is_instance_of<T, std::unordered_set>)
    return "std::unordered_set";
  else
    return "a container";
}

}  // namespace detail

/// Trivially copyable types without pointers: their bytes.
template <class T>
  requires detail::bytes_are_value<T>
struct codec<T> {
  /// Marks the codec that writes exactly sizeof(T) bytes (detail::stored_as_bytes).
  static constexpr bool stores_bytes = true;
  /// Appends the encoding of the value.
  static void encode(const T& value, byte_writer& out) { out.write(&value, sizeof(T)); }
  /// Reads one value; throws decode_error on corrupt or truncated input.
  static T decode(byte_reader& in) {
    // Through bit_cast: T need not be default-constructible to be trivially copyable.
    std::array<std::byte, sizeof(T)> raw;
    in.read(raw.data(), sizeof(T), "a value stored as its bytes");
    if constexpr (std::is_same_v<T, bool>) {
      // Any other byte would be a bool with no valid value (undefined behaviour to read).
      if (std::to_integer<unsigned>(raw[0]) > 1)
        in.fail_at(in.position() - 1, "a bool",
                   "byte " + std::to_string(std::to_integer<unsigned>(raw[0])) + " is not 0 or 1");
    }
    return std::bit_cast<T>(raw);
  }
};

/// Strings: the length, then the characters.
template <>
struct codec<std::string> {
  /// Appends the encoding of the value.
  static void encode(const std::string& value, byte_writer& out) {
    out.write_varint(value.size());
    out.write(value.data(), value.size());
  }
  /// Reads one value; throws decode_error on corrupt or truncated input.
  static std::string decode(byte_reader& in) {
    const std::size_t n = in.read_count("std::string");
    return std::string(in.take(n, "std::string"));
  }
};

namespace detail {

// T's codec is the bytes codec above: a trivially copyable type may have one of its own
// (a user's, or window::window_result's), whose encoding has another length.
template <class T>
inline constexpr bool stored_as_bytes = requires { requires codec<T>::stores_bytes; };

// A sequence's count: every element takes at least one byte, and an element stored as its
// bytes exactly sizeof of them, so a count the bytes left cannot hold is refused here.
template <class T>
std::size_t read_elements(byte_reader& in, const char* what) {
  const std::size_t start = in.position();
  const std::size_t n = in.read_count(what);
  if constexpr (stored_as_bytes<T>) {
    if (n > in.left() / sizeof(T))
      in.fail_at(start, what,
                 std::to_string(n) + " elements of " + std::to_string(sizeof(T)) +
                     " bytes exceed the " + std::to_string(in.left()) + " bytes left");
  }
  return n;
}

// Sequences: the count, then each element.
template <class Sequence>
struct sequence_codec {
  using value_type = typename Sequence::value_type;
  static_assert(!may_encode_empty<value_type>,
                "spate::state: a container of values that encode to no bytes (std::tuple<>, "
                "an empty std::array) cannot be decoded safely; store its size instead");
  /// Appends the encoding of the value.
  static void encode(const Sequence& values, byte_writer& out) {
    out.write_varint(values.size());
    for (const auto& v : values) state::encode(v, out);
  }
  /// Reads one value; throws decode_error on corrupt or truncated input.
  static Sequence decode(byte_reader& in) {
    const std::size_t n = read_elements<value_type>(in, container_name<Sequence>());
    Sequence values;
    // Reserved only when n elements are known to fit in the bytes left; otherwise the
    // container grows as elements decode, so memory follows the bytes actually read.
    if constexpr (stored_as_bytes<value_type> && requires { values.reserve(n); }) values.reserve(n);
    for (std::size_t i = 0; i < n; ++i) values.push_back(state::decode<value_type>(in));
    return values;
  }
};

// Associative containers: the count, then each element (a pair for maps), inserted in order.
template <class Container>
struct associative_codec {
  static_assert(!may_encode_empty<typename Container::key_type>,
                "spate::state: a map or set whose keys encode to no bytes cannot be decoded "
                "safely");
  /// Appends the encoding of the value.
  static void encode(const Container& values, byte_writer& out) {
    out.write_varint(values.size());
    for (const auto& v : values) {
      if constexpr (requires { v.second; }) {
        state::encode(v.first, out);
        state::encode(v.second, out);
      } else {
        state::encode(v, out);
      }
    }
  }
  /// Reads one value; throws decode_error on corrupt or truncated input.
  static Container decode(byte_reader& in) {
    const char* what = container_name<Container>();
    const std::size_t n = in.read_count(what);
    Container values;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = in.position();
      const std::size_t before = values.size();
      if constexpr (requires { typename Container::mapped_type; }) {
        auto key = state::decode<typename Container::key_type>(in);
        auto mapped = state::decode<typename Container::mapped_type>(in);
        values.emplace_hint(values.end(), std::move(key), std::move(mapped));
      } else {
        values.emplace_hint(values.end(), state::decode<typename Container::value_type>(in));
      }
      // Encoded from a map or set, the keys are distinct: a repeated one is corrupt input.
      if (values.size() == before) in.fail_at(at, what, "a key appears twice");
    }
    return values;
  }
};

}  // namespace detail

template <class T, class A>
  requires encodable<T>
struct codec<std::vector<T, A>> : detail::sequence_codec<std::vector<T, A>> {};
template <class T, class A>
  requires encodable<T>
struct codec<std::deque<T, A>> : detail::sequence_codec<std::deque<T, A>> {};
template <class K, class V, class C, class A>
  requires encodable<K> && encodable<V>
struct codec<std::map<K, V, C, A>> : detail::associative_codec<std::map<K, V, C, A>> {};
template <class K, class V, class H, class E, class A>
  requires encodable<K> && encodable<V>
struct codec<std::unordered_map<K, V, H, E, A>>
    : detail::associative_codec<std::unordered_map<K, V, H, E, A>> {};
template <class K, class C, class A>
  requires encodable<K>
struct codec<std::set<K, C, A>> : detail::associative_codec<std::set<K, C, A>> {};
template <class K, class H, class E, class A>
  requires encodable<K>
struct codec<std::unordered_set<K, H, E, A>>
    : detail::associative_codec<std::unordered_set<K, H, E, A>> {};

/// Optionals: a presence byte (0 or 1), then the value when present.
template <class T>
  requires encodable<T>
struct codec<std::optional<T>> {
  /// Appends the encoding of the value.
  static void encode(const std::optional<T>& value, byte_writer& out) {
    const std::uint8_t has = value.has_value() ? 1 : 0;
    out.write(&has, 1);
    if (value) state::encode(*value, out);
  }
  /// Reads one value; throws decode_error on corrupt or truncated input.
  static std::optional<T> decode(byte_reader& in) {
    std::uint8_t has = 0;
    in.read(&has, 1, "std::optional");
    if (has > 1)
      in.fail_at(in.position() - 1, "std::optional",
                 "presence byte " + std::to_string(has) + " is not 0 or 1");
    if (has == 0) return std::nullopt;
    return state::decode<T>(in);
  }
};

/// Pairs: first, then second.
template <class A, class B>
  requires encodable<A> && encodable<B>
struct codec<std::pair<A, B>> {
  /// Appends the encoding of the value.
  static void encode(const std::pair<A, B>& value, byte_writer& out) {
    state::encode(value.first, out);
    state::encode(value.second, out);
  }
  /// Reads one value; throws decode_error on corrupt or truncated input.
  static std::pair<A, B> decode(byte_reader& in) {
    auto first = state::decode<A>(in);  // named: the order of evaluation is the format
    return {std::move(first), state::decode<B>(in)};
  }
};

/// Tuples: each element in order.
template <class... Ts>
  requires(encodable<Ts> && ...)
struct codec<std::tuple<Ts...>> {
  /// Appends the encoding of the value.
  static void encode(const std::tuple<Ts...>& value, byte_writer& out) {
    std::apply([&](const Ts&... v) { (state::encode(v, out), ...); }, value);
  }
  /// Reads one value; throws decode_error on corrupt or truncated input.
  static std::tuple<Ts...> decode(byte_reader& in) {
    // Braced initialisation evaluates left to right: the elements are read in order.
    return std::tuple<Ts...>{state::decode<Ts>(in)...};
  }
};

/// Arrays of types that are not stored as bytes: each element in order (no length: N is
/// the type's).
template <class T, std::size_t N>
  requires encodable<T> && (!detail::bytes_are_value<std::array<T, N>>)
struct codec<std::array<T, N>> {
  /// Appends the encoding of the value.
  static void encode(const std::array<T, N>& values, byte_writer& out) {
    for (const auto& v : values) state::encode(v, out);
  }
  /// Reads one value; throws decode_error on corrupt or truncated input.
  static std::array<T, N> decode(byte_reader& in) {
    return decode_each(in, std::make_index_sequence<N>{});
  }

 private:
  template <std::size_t... I>
  static std::array<T, N> decode_each(byte_reader& in, std::index_sequence<I...>) {
    return std::array<T, N>{{(static_cast<void>(I), state::decode<T>(in))...}};
  }
};

}  // namespace spate::state
