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
//     std::optional, std::pair, std::tuple and std::array of types that have codecs: a
//     length (LEB128 varint) and the elements, in order.
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
// static_assert that says to specialise spate::state::codec<T>. Pointers are refused even
// though they are trivially copyable: an address means nothing to the process that restores.
//
// Bytes are in the host's byte order and layout: a checkpoint is read back by the same build
// on the same architecture (the checkpoint's header records both).
//
// Decoding never trusts its input: a length longer than the bytes left, a truncated value or
// bytes left over after the value throw decode_error, which names what was being read and
// where.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
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
      value |= std::uint64_t(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    fail(what, "a length is longer than 10 bytes");
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
  /// Every byte read.
  bool at_end() const noexcept { return position_ == in_.size(); }
  /// Throws decode_error: "decoding WHAT at byte P of N: PROBLEM".
  [[noreturn]] void fail(const char* what, const std::string& problem) const {
    throw decode_error("decoding " + std::string(what) + " at byte " + std::to_string(position_) +
                       " of " + std::to_string(in_.size()) + ": " + problem);
  }

 private:
  std::string_view in_;
  std::size_t position_ = 0;
};

/// Specialise for a type spate does not know (see the top of this file).
template <class T>
struct codec;

/// T has a complete codec with the two functions.
template <class T>
concept encodable = requires(const T& value, byte_writer& out, byte_reader& in) {
  codec<T>::encode(value, out);
  { codec<T>::decode(in) } -> std::same_as<T>;
};

/// Appends `value`'s encoding.
template <class T>
void encode(const T& value, byte_writer& out) {
  static_assert(encodable<T>,
                "spate::state: this type has no codec; specialise spate::state::codec<T> with "
                "static void encode(const T&, byte_writer&) and static T decode(byte_reader&) "
                "(see spate/state/codec.hpp)");
  codec<T>::encode(value, out);
}

/// Reads one T.
template <class T>
T decode(byte_reader& in) {
  static_assert(encodable<T>,
                "spate::state: this type has no codec; specialise spate::state::codec<T> with "
                "static void encode(const T&, byte_writer&) and static T decode(byte_reader&) "
                "(see spate/state/codec.hpp)");
  return codec<T>::decode(in);
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

// A pointer's bytes do not survive a restart.
template <class T>
inline constexpr bool is_pointer_like =
    std::is_pointer_v<T> || std::is_member_pointer_v<T> || std::is_null_pointer_v<T>;
template <class T, std::size_t N>
inline constexpr bool is_pointer_like<std::array<T, N>> = is_pointer_like<T>;
template <class T, std::size_t N>
inline constexpr bool is_pointer_like<T[N]> = is_pointer_like<T>;

// Types whose bytes are their value. The standard wrappers get their own codecs, even when
// they are trivially copyable, so that each type has exactly one. (A struct with a pointer
// member cannot be told apart from one without: do not checkpoint it by its bytes.)
template <class T>
inline constexpr bool bytes_are_value =
    std::is_trivially_copyable_v<T> && !is_pointer_like<T> && !is_instance_of<T, std::optional> &&
    !is_instance_of<T, std::pair> && !is_instance_of<T, std::tuple>;

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
  else
    return "a container";
}

}  // namespace detail

/// Trivially copyable types without pointers: their bytes.
template <class T>
  requires detail::bytes_are_value<T>
struct codec<T> {
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
        in.fail("a bool",
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

// Sequences: the count, then each element.
template <class Sequence>
struct sequence_codec {
  using value_type = typename Sequence::value_type;
  /// Appends the encoding of the value.
  static void encode(const Sequence& values, byte_writer& out) {
    out.write_varint(values.size());
    for (const auto& v : values) state::encode(v, out);
  }
  /// Reads one value; throws decode_error on corrupt or truncated input.
  static Sequence decode(byte_reader& in) {
    const std::size_t n = in.read_count(detail::container_name<Sequence>());
    Sequence values;
    if constexpr (requires { values.reserve(n); }) values.reserve(n);
    for (std::size_t i = 0; i < n; ++i) values.push_back(state::decode<value_type>(in));
    return values;
  }
};

// Associative containers: the count, then each element (a pair for maps), inserted in order.
template <class Container>
struct associative_codec {
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
    const std::size_t n = in.read_count(detail::container_name<Container>());
    Container values;
    if constexpr (requires { values.reserve(n); }) values.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (requires { typename Container::mapped_type; }) {
        auto key = state::decode<typename Container::key_type>(in);
        auto mapped = state::decode<typename Container::mapped_type>(in);
        values.emplace_hint(values.end(), std::move(key), std::move(mapped));
      } else {
        values.emplace_hint(values.end(), state::decode<typename Container::value_type>(in));
      }
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
      in.fail("std::optional", "presence byte " + std::to_string(has) + " is not 0 or 1");
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
