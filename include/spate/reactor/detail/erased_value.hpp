#pragma once
// The value an event or a port carries, with its type erased so that one event queue holds
// the values of every action and delayed connection. Small trivially copyable values (ints,
// doubles, small structs) are stored in place, so they cost no allocation; anything else is
// an immutable std::shared_ptr<const T>, so one value read by many readers (a port fanned
// out to many inputs, a multicast `after` connection) is never copied.
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace spate::reactor::detail {

inline constexpr std::size_t inline_value_size = 16;

template <class T>
inline constexpr bool stored_in_place =
    std::is_trivially_copyable_v<T> && sizeof(T) <= inline_value_size &&
    alignof(T) <= alignof(void*);

class erased_value {
 public:
  erased_value() noexcept : bytes_{} {}
  erased_value(const erased_value& other) noexcept : bytes_{}, kind_(other.kind_) {
    if (kind_ == kind::shared)
      ::new (static_cast<void*>(&shared_)) std::shared_ptr<const void>(other.shared_);
    else
      copy_bytes(other);
  }
  erased_value(erased_value&& other) noexcept : bytes_{}, kind_(other.kind_) {
    if (kind_ == kind::shared)
      ::new (static_cast<void*>(&shared_)) std::shared_ptr<const void>(std::move(other.shared_));
    else
      copy_bytes(other);
  }
  erased_value& operator=(const erased_value& other) noexcept {
    if (this != &other) {
      erased_value copy(other);
      *this = std::move(copy);
    }
    return *this;
  }
  erased_value& operator=(erased_value&& other) noexcept {
    if (this != &other) {
      reset();
      kind_ = other.kind_;
      if (kind_ == kind::shared)
        ::new (static_cast<void*>(&shared_)) std::shared_ptr<const void>(std::move(other.shared_));
      else
        copy_bytes(other);
    }
    return *this;
  }
  ~erased_value() { reset(); }

  template <class T, class U = std::decay_t<T>>
  static erased_value of(T&& value) {
    erased_value result;
    if constexpr (stored_in_place<U>) {
      ::new (static_cast<void*>(result.bytes_)) U(std::forward<T>(value));
      result.kind_ = kind::in_place;
    } else {
      ::new (static_cast<void*>(&result.shared_))
          std::shared_ptr<const void>(std::make_shared<const U>(std::forward<T>(value)));
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
      ::new (static_cast<void*>(&result.shared_)) std::shared_ptr<const void>(std::move(value));
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
    if (kind_ == kind::shared) shared_.~shared_ptr();
    kind_ = kind::empty;
  }

 private:
  enum class kind : unsigned char { empty, no_value, in_place, shared };
  // In-place values are trivially copyable, so their bytes are the value.
  void copy_bytes(const erased_value& other) noexcept {
    std::memcpy(bytes_, other.bytes_, inline_value_size);
  }
  // One or the other, as kind_ says: an event or a port carries 32 bytes, not 48.
  union {
    alignas(void*) unsigned char bytes_[inline_value_size];
    std::shared_ptr<const void> shared_;
  };
  kind kind_ = kind::empty;
};

}  // namespace spate::reactor::detail
