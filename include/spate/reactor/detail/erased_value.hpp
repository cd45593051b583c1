#pragma once
// The value an event or a port carries, with its type erased so that one event queue holds
// the values of every action and delayed connection. Small trivially copyable values (ints,
// doubles, small structs) are stored in place, so they cost no allocation; anything else is
// an immutable std::shared_ptr<const T>, so one value read by many readers (a port fanned
// out to many inputs, a multicast `after` connection) is never copied.
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace spate::reactor::detail {

inline constexpr std::size_t inline_value_size = 16;

template <class T>
inline constexpr bool stored_in_place =
    std::is_trivially_copyable_v<T> && sizeof(T) <= inline_value_size &&
    alignof(T) <= alignof(std::max_align_t);

class erased_value {
 public:
  erased_value() = default;

  template <class T, class U = std::decay_t<T>>
  static erased_value of(T&& value) {
    erased_value result;
    if constexpr (stored_in_place<U>) {
      ::new (static_cast<void*>(result.bytes_)) U(std::forward<T>(value));
      result.kind_ = kind::in_place;
    } else {
      result.shared_ = std::make_shared<const U>(std::forward<T>(value));
      result.kind_ = kind::shared;
    }
    return result;
  }

  template <class T>
  static erased_value of_shared(std::shared_ptr<const T> value) {
    if constexpr (stored_in_place<T>) {
      return of(T(*value));
    } else {
      erased_value result;
      result.shared_ = std::move(value);
      result.kind_ = kind::shared;
      return result;
    }
  }

  // A marker for valueless events (actions of type void).
  static erased_value empty_present() noexcept {
    erased_value result;
    result.kind_ = kind::no_value;
    return result;
  }

  bool has_value() const noexcept { return kind_ == kind::in_place || kind_ == kind::shared; }

  // Precondition: has_value() and T is the type it was made with.
  template <class T>
  const T& get() const noexcept {
    if constexpr (stored_in_place<T>) {
      return *std::launder(reinterpret_cast<const T*>(bytes_));
    } else {
      return *static_cast<const T*>(shared_.get());
    }
  }

  // The shared value (a copy of the in-place value for small types).
  template <class T>
  std::shared_ptr<const T> get_shared() const {
    if constexpr (stored_in_place<T>) {
      return std::make_shared<const T>(get<T>());
    } else {
      return std::static_pointer_cast<const T>(shared_);
    }
  }

  void reset() noexcept {
    shared_.reset();
    kind_ = kind::empty;
  }

 private:
  enum class kind : unsigned char { empty, no_value, in_place, shared };
  // Zeroed: copying a shared or empty value copies these bytes too (GCC -O3 warns otherwise).
  alignas(std::max_align_t) unsigned char bytes_[inline_value_size]{};
  std::shared_ptr<const void> shared_;
  kind kind_ = kind::empty;
};

}  // namespace spate::reactor::detail
