#include <string>

#include "spate/io/input_errors.hpp"
#include "spate/platform/utf8.hpp"

namespace spate::io {

std::size_t first_invalid_utf8(const std::string& text) noexcept {
  const std::string_view bytes = text;
  std::size_t i = 0;
  while (i < bytes.size()) {
    if (static_cast<unsigned char>(bytes[i]) < 0x80) {  // ASCII, the common case
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(bytes, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string::npos;
}

}  // namespace spate::io
