// Codecs (spate/state/codec.hpp): every built-in codec round-trips, the format is what the
// header says, and corrupt or truncated input throws decode_error naming what and where,
// never reads past the end or allocates for a length it does not have.
#include "spate/state/codec.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

using namespace spate;

enum class side : std::uint8_t { buy, sell };
struct tick {  // trivially copyable, no pointer: stored as its bytes
  std::int64_t time;
  double price;
  side direction;
  bool operator==(const tick&) const = default;
};

struct point {  // trivially copyable but not default-constructible
  point(int x, int y) : x(x), y(y) {}
  int x, y;
  bool operator==(const point&) const = default;
};

struct account {  // not trivially copyable: a user codec
  std::string owner;
  std::int64_t balance = 0;
  bool operator==(const account&) const = default;
};

struct no_codec {
  std::string text;
};

struct compact {  // trivially copyable, with a codec of its own that is not its bytes
  std::uint64_t small;
  bool operator==(const compact&) const = default;
};

}  // namespace

template <>
struct spate::state::codec<compact> {
  static void encode(const compact& c, byte_writer& out) { out.write_varint(c.small); }
  static compact decode(byte_reader& in) { return compact{in.read_varint("compact")}; }
};

template <>
struct spate::state::codec<account> {
  static void encode(const account& a, byte_writer& out) {
    state::encode(a.owner, out);
    state::encode(a.balance, out);
  }
  static account decode(byte_reader& in) {
    auto owner = state::decode<std::string>(in);
    return account{std::move(owner), state::decode<std::int64_t>(in)};
  }
};

namespace {

static_assert(state::encodable<int>);
static_assert(state::encodable<tick>);
static_assert(state::encodable<std::array<int, 3>>);
static_assert(state::encodable<std::map<std::string, std::vector<account>>>);
static_assert(!state::encodable<int*>, "an address means nothing after a restart");
static_assert(!state::encodable<std::nullptr_t>);
static_assert(!state::encodable<std::array<const char*, 2>>);
static_assert(!state::encodable<std::vector<int*>>);
static_assert(!state::encodable<std::unique_ptr<int>>);
static_assert(!state::encodable<no_codec>);
static_assert(!state::encodable<std::map<int, no_codec>>, "a container needs its elements'");
static_assert(!state::encodable<std::optional<no_codec>>);
static_assert(!state::encodable<std::string_view>, "a view holds a pointer");
static_assert(!state::encodable<std::span<const int>>);
static_assert(!state::encodable<std::reference_wrapper<int>>);
static_assert(!state::encodable<std::array<std::string_view, 2>>);
static_assert(!state::encodable<int[3]>, "a C array: use std::array");
static_assert(state::encodable<const int>);
static_assert(state::encodable<std::optional<const int>>);

template <class T>
void expect_round_trip(const T& value) {
  const std::string bytes = state::to_bytes(value);
  EXPECT_EQ(state::from_bytes<T>(bytes), value);
}

TEST(StateCodec, EveryBuiltInCodecRoundTrips) {
  expect_round_trip(0);
  expect_round_trip(std::numeric_limits<std::int64_t>::min());
  expect_round_trip(-0.125);
  expect_round_trip(side::sell);
  expect_round_trip(tick{42, 101.5, side::buy});
  expect_round_trip(point{3, -4});
  expect_round_trip(true);
  expect_round_trip(std::array<int, 3>{1, -2, 3});
  expect_round_trip(std::array<std::string, 2>{"left", "right"});
  expect_round_trip(std::string());
  expect_round_trip(std::string("with\0nul", 8));
  expect_round_trip(std::string(1000, 'x'));  // a two-byte length
  expect_round_trip(std::vector<int>{});
  expect_round_trip(std::vector<std::string>{"a", "", "ccc"});
  expect_round_trip(std::vector<bool>{true, false, true});
  expect_round_trip(std::deque<double>{1.5, 2.5});
  expect_round_trip(std::map<std::string, std::vector<int>>{{"a", {1, 2}}, {"b", {}}});
  expect_round_trip(std::unordered_map<int, std::string>{{1, "one"}, {2, "two"}, {3, "three"}});
  expect_round_trip(std::set<std::string>{"x", "y"});
  expect_round_trip(std::unordered_set<std::int64_t>{5, -1, 1LL << 40});
  expect_round_trip(std::array<std::unordered_set<std::int64_t>, 2>{{{1, 2}, {}}});
  expect_round_trip(std::optional<int>{});
  expect_round_trip(std::optional<std::string>{"present"});
  expect_round_trip(std::pair<std::string, int>{"p", 7});
  expect_round_trip(std::tuple<int, std::string, double>{1, "two", 3.0});
  expect_round_trip(std::tuple<>{});
  expect_round_trip(account{"ada", -250});
  expect_round_trip(std::optional<const int>{5});
  // An array of optionals goes through the optional's codec (a presence byte each), not the
  // array's bytes: a corrupt flag is then an error, not a bool with no valid value.
  expect_round_trip(std::array<std::optional<int>, 2>{7, std::nullopt});
  EXPECT_EQ(state::to_bytes(std::array<std::optional<std::int32_t>, 1>{7}).size(), 5u);
  expect_round_trip(
      std::map<std::string, std::vector<account>>{{"bank", {{"ada", 1}, {"bob", 2}}}});
  // A trivially copyable type with a codec of its own: a vector of it is read through that
  // codec, whose encoding is shorter than the type's bytes.
  expect_round_trip(std::vector<compact>{{1}, {2}, {300}});
  EXPECT_EQ(state::to_bytes(std::vector<compact>{{1}, {2}, {300}}).size(), 5u);
}

TEST(StateCodec, TheFormatIsLengthThenBytes) {
  EXPECT_EQ(state::to_bytes(std::string("abc")), std::string("\x03"
                                                             "abc"));
  // 300 as an LEB128 varint: 0xAC 0x02.
  EXPECT_EQ(state::to_bytes(std::string(300, 'z')).substr(0, 2), std::string("\xAC\x02"));
  EXPECT_EQ(state::to_bytes(std::vector<std::uint8_t>{7, 8}), std::string("\x02\x07\x08"));
  EXPECT_EQ(state::to_bytes(std::optional<std::uint8_t>{}), std::string("\x00", 1));
  EXPECT_EQ(state::to_bytes(std::uint32_t{5}).size(), 4u);
  // Elements in order: a tuple's are read back in the order they were written.
  EXPECT_EQ(state::to_bytes(std::pair<std::uint8_t, std::uint8_t>{1, 2}), std::string("\x01\x02"));
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const state::decode_error& e) {
    return e.what();
  }
  return "(no decode_error)";
}

TEST(StateCodec, CorruptInputIsRefusedWithWhatAndWhere) {
  // A length longer than the bytes left: refused before anything is allocated for it.
  EXPECT_EQ(message_of([] {
              state::from_bytes<std::string>(
                  std::string("\x28"
                              "ab"));
            }),
            "decoding std::string at byte 0 of 3: length 40 exceeds the 2 bytes left");
  const std::string huge = "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x0F";  // 2^60 - 1 elements
  EXPECT_NE(message_of([&] {
              state::from_bytes<std::vector<std::uint64_t>>(huge);
            }).find("decoding std::vector at byte 0 of 9: length"),
            std::string::npos);
  // A truncated value.
  EXPECT_EQ(message_of([] { state::from_bytes<std::int32_t>(std::string("\x01\x02")); }),
            "decoding a value stored as its bytes at byte 0 of 2: needs 4 bytes");
  // Bytes after the value.
  EXPECT_EQ(message_of([] { state::from_bytes<std::uint8_t>(std::string("\x01\x02\x03")); }),
            "decoding a value at byte 1 of 3: 2 bytes left over after it");
  // A bool that is neither 0 nor 1 (reading it as a bool would be undefined behaviour).
  EXPECT_EQ(message_of([] { state::from_bytes<bool>(std::string("\x07")); }),
            "decoding a bool at byte 0 of 1: byte 7 is not 0 or 1");
  // A presence byte that is neither 0 nor 1.
  EXPECT_EQ(message_of(
                [] { state::from_bytes<std::optional<std::uint8_t>>(std::string("\x02\x00", 2)); }),
            "decoding std::optional at byte 0 of 2: presence byte 2 is not 0 or 1");
  // A count of fixed-size elements the bytes left cannot hold: refused before reserving.
  EXPECT_EQ(message_of([] {
              state::from_bytes<std::vector<std::array<char, 65536>>>(std::string("\x02") +
                                                                      std::string(10, 'x'));
            }),
            "decoding std::vector at byte 0 of 11: 2 elements of 65536 bytes exceed the 10 "
            "bytes left");
  // A key twice: a map's encoding never has one.
  EXPECT_EQ(message_of([] {
              state::from_bytes<std::map<std::uint8_t, std::uint8_t>>(
                  std::string("\x02\x01\x01\x01\x02"));
            }),
            "decoding std::map at byte 3 of 5: a key appears twice");
  EXPECT_EQ(message_of([] {
              state::from_bytes<std::unordered_set<std::uint8_t>>(std::string("\x02\x07\x07"));
            }),
            "decoding std::unordered_set at byte 2 of 3: a key appears twice");
  // A tenth length byte with more than the 64th bit.
  EXPECT_EQ(message_of([] { state::from_bytes<std::string>(std::string(9, '\x80') + "\x02"); }),
            "decoding std::string at byte 9 of 10: a length exceeds 64 bits");
  // A length that never ends stops at its tenth byte.
  EXPECT_EQ(message_of([] { state::from_bytes<std::string>(std::string(11, '\x80')); }),
            "decoding std::string at byte 9 of 11: a length exceeds 64 bits");
  EXPECT_NE(message_of([] {
              state::from_bytes<std::string>(std::string("\x80\x80"));
            }).find("a length runs past the end"),
            std::string::npos);
}

TEST(StateCodec, EveryTruncationOfAValueIsRefused) {
  using nested = std::map<std::string, std::vector<std::optional<account>>>;
  const nested value{{"k1", {account{"ada", 1}, std::nullopt}}, {"k2", {}}, {"k3", {account{}}}};
  const std::string bytes = state::to_bytes(value);
  ASSERT_EQ(state::from_bytes<nested>(bytes), value);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    // A copy of exactly n bytes, so that AddressSanitizer sees any read past it.
    const auto prefix = std::make_unique<char[]>(n + 1);
    std::memcpy(prefix.get(), bytes.data(), n);
    EXPECT_THROW(state::from_bytes<nested>(std::string_view(prefix.get(), n)), state::decode_error)
        << "prefix of " << n << " bytes";
  }
}

TEST(StateCodec, AWriterAppendsAndAReaderReadsInSequence) {
  std::string bytes = "header";
  state::byte_writer out(bytes);
  state::encode(std::string("first"), out);
  state::encode(std::int16_t{-3}, out);
  EXPECT_EQ(out.size(), 6u + 6u + 2u);
  state::byte_reader in(std::string_view(bytes).substr(6));
  EXPECT_EQ(state::decode<std::string>(in), "first");
  EXPECT_EQ(state::decode<std::int16_t>(in), -3);
  EXPECT_TRUE(in.at_end());
}

}  // namespace
