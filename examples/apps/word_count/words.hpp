#pragma once
// Words, as the word-count demos and the Word Count application split them: runs of letters
// of any script with the combining marks that follow a letter, lower-cased; a line that is
// not valid UTF-8 is a malformed record.
#include <utf8proc.h>

#include <string>
#include <string_view>
#include <utility>

namespace apps::word_count {

// Whether `text` is well-formed UTF-8 (ASCII text is). utf8proc rejects overlong forms,
// surrogates and truncated sequences as well as stray bytes.
inline bool is_valid_utf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  const auto size = static_cast<utf8proc_ssize_t>(text.size());
  for (utf8proc_ssize_t i = 0; i < size;) {
    if (bytes[i] < 0x80) {
      ++i;
      continue;
    }
    utf8proc_int32_t code_point = 0;
    const utf8proc_ssize_t length = utf8proc_iterate(bytes + i, size - i, &code_point);
    if (length < 0) return false;
    i += length;
  }
  return true;
}

// Calls f(word) for each word of `line`, a line already known to be valid UTF-8 (checked
// when it was read: `is_valid_utf8`), so the hot path does not check it again. Words are runs
// of letters of any script, with the combining marks that follow a letter, lower-cased
// ("Café" and "CAFÉ" are "café"); anything else separates them. ASCII takes a short path. A
// byte that does not decode after all separates words, as punctuation does.
template <class F>
void for_each_word_of_valid_utf8(std::string_view line, F&& f) {
  std::string word;
  const auto flush = [&] {
    if (!word.empty()) {
      f(word);
      word.clear();
    }
  };
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(line.data());
  const auto size = static_cast<utf8proc_ssize_t>(line.size());
  for (utf8proc_ssize_t i = 0; i < size;) {
    const utf8proc_uint8_t c = bytes[i];
    if (c < 0x80) {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        word += static_cast<char>(c | 0x20);
      } else {
        flush();
      }
      ++i;
      continue;
    }
    utf8proc_int32_t code_point = 0;
    const utf8proc_ssize_t length = utf8proc_iterate(bytes + i, size - i, &code_point);
    if (length <= 0) {  // not UTF-8 after all: a separator
      flush();
      ++i;
      continue;
    }
    i += length;
    const auto category = utf8proc_category(code_point);
    const bool letter = category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_LO;
    const bool mark = category >= UTF8PROC_CATEGORY_MN && category <= UTF8PROC_CATEGORY_ME;
    if (letter || (mark && !word.empty())) {
      utf8proc_uint8_t encoded[4];
      const auto n =
          utf8proc_encode_char(letter ? utf8proc_tolower(code_point) : code_point, encoded);
      word.append(reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(n));
    } else {
      flush();
    }
  }
  flush();
}

// Calls f(word) for each word of `line` (as for_each_word_of_valid_utf8) and returns true; or,
// when the line is not valid UTF-8 (a malformed record), calls nothing and returns false.
template <class F>
bool for_each_word(std::string_view line, F&& f) {
  if (!is_valid_utf8(line)) return false;
  for_each_word_of_valid_utf8(line, std::forward<F>(f));
  return true;
}

}  // namespace apps::word_count
