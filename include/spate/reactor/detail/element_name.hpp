#pragma once
// An element's name in 16 bytes (a std::string is 32, and heap-allocates past 15 characters).
// A program holds one per port, action, reaction and reactor: at a million ports the
// difference is tens of megabytes. Three forms:
//   - up to 14 characters, in place;
//   - longer, on the heap;
//   - a multiport channel's "name[i]", held as its multiport's name (which outlives the
//     channel: the multiport owns its channels) and i, and spelled out only when asked
//     (for error messages and traces): a uct node's ten channels hold no text at all.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace spate::reactor::detail {

/// Names a multiport's channel: `(*base)[index]`.
struct channel_name {
  const std::string* base;
  std::uint32_t index;
};

class element_name {
 public:
  explicit element_name(std::string_view text) {
    if (text.size() < sizeof(bytes_)) {
      std::memcpy(bytes_, text.data(), text.size());
      form_ = static_cast<unsigned char>(text.size());
    } else {
      char* heap = new char[text.size()];
      std::memcpy(heap, text.data(), text.size());
      const auto size = static_cast<std::uint32_t>(text.size());
      std::memcpy(bytes_, &heap, sizeof heap);
      std::memcpy(bytes_ + sizeof heap, &size, sizeof size);
      form_ = on_heap;
    }
  }
  explicit element_name(channel_name channel) noexcept : form_(indexed) {
    std::memcpy(bytes_, &channel.base, sizeof channel.base);
    std::memcpy(bytes_ + sizeof channel.base, &channel.index, sizeof channel.index);
  }
  element_name(const element_name&) = delete;
  element_name& operator=(const element_name&) = delete;
  ~element_name() {
    if (form_ == on_heap) delete[] pointer_at<char>();
  }

  /// The name, spelled out.
  std::string str() const {
    if (form_ == on_heap) return {pointer_at<char>(), number_at()};
    if (form_ == indexed)
      return *pointer_at<const std::string>() + "[" + std::to_string(number_at()) + "]";
    return {bytes_, form_};
  }

 private:
  static constexpr unsigned char on_heap = 0xFE;
  static constexpr unsigned char indexed = 0xFF;
  template <class T>
  T* pointer_at() const noexcept {
    T* p;
    std::memcpy(&p, bytes_, sizeof p);
    return p;
  }
  std::uint32_t number_at() const noexcept {
    std::uint32_t n;
    std::memcpy(&n, bytes_ + sizeof(void*), sizeof n);
    return n;
  }
  char bytes_[15];
  unsigned char form_;  ///< 0..14: the length in place; on_heap; indexed
};
static_assert(sizeof(element_name) == 16);

}  // namespace spate::reactor::detail
