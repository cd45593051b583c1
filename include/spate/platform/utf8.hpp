#pragma once
// UTF-8 well-formedness, shared by the io layer (input_errors: malformed lines) and the
// metrics writers (text that is not UTF-8 becomes U+FFFD).
#include <cstddef>
#include <string_view>

namespace spate {

/// The length (1 to 4) of the well-formed UTF-8 sequence that starts at `s[i]`, or 0 when the
/// bytes there are not one: a stray continuation byte, an overlong form, a surrogate, a value
/// past U+10FFFF, or a sequence cut short by the end of `s`. Unicode 15, Table 3-7: the second
/// byte's range depends on the first byte. Requires i < s.size().
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char low = 0x80, high = 0xbf;  // the second byte's range
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) low = 0xa0;
    if (c == 0xed) high = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) low = 0x90;
    if (c == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  return n;
}

}  // namespace spate
