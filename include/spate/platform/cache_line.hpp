#pragma once
// Cache-line geometry and padding, so that atomics written by different threads never
// share a line (false sharing costs a cross-core round trip per write).
#include <cstddef>
#include <new>
#include <utility>

namespace spate {

/// std::hardware_destructive_interference_size is 64 on x86-64 but GCC warns that its value
/// is ABI-unstable; a fixed constant keeps layouts identical across translation units.
inline constexpr std::size_t cache_line_size = 64;

/// A value alone on its own cache line.
template <class T>
struct alignas(cache_line_size) cache_padded {
  /// The padded value.
  T value{};

  cache_padded() = default;
  /// Builds the value from `args`.
  template <class... Args>
  explicit cache_padded(Args&&... args) : value(std::forward<Args>(args)...) {}

  /// The value.
  T& operator*() noexcept { return value; }
  /// The value.
  const T& operator*() const noexcept { return value; }
  /// The value.
  T* operator->() noexcept { return &value; }
  /// The value.
  const T* operator->() const noexcept { return &value; }
};
/// alignas rounds sizeof up to a whole number of lines, so the next member starts a new line.
static_assert(sizeof(cache_padded<char>) == cache_line_size);

}  // namespace spate
