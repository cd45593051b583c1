#pragma once
// Handles to actors. An actor_ref<T> keeps its actor alive (intrusive reference count) and
// gives only thread-safe operations: identity, mailbox length, liveness. Messages go through
// spate::send / spate::request (actor/send.hpp). `actor` is the untyped handle every actor
// converts to; actor_ref<T> for a typed actor lets the compiler check message types.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

namespace spate {

class abstract_actor;
void intrusive_add_ref(abstract_actor* a) noexcept;
void intrusive_release(abstract_actor* a) noexcept;

template <class T>
class actor_ref {
 public:
  actor_ref() noexcept = default;
  actor_ref(std::nullptr_t) noexcept {}
  /// Adopts a new reference (the caller already counted it) when `add_ref` is false.
  explicit actor_ref(T* p, bool add_ref = true) noexcept : ptr_(p) {
    if (ptr_ != nullptr && add_ref) intrusive_add_ref(as_base());
  }
  actor_ref(const actor_ref& other) noexcept : actor_ref(other.ptr_) {}
  actor_ref(actor_ref&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  template <class U>
  requires(std::is_convertible_v<U*, T*> && !std::is_same_v<U, T>)
      actor_ref(const actor_ref<U>& other)
  noexcept : actor_ref(other.get()) {}
  ~actor_ref() { reset(); }

  actor_ref& operator=(actor_ref other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }
  void reset() noexcept {
    if (ptr_ != nullptr) intrusive_release(as_base());
    ptr_ = nullptr;
  }

  explicit operator bool() const noexcept { return ptr_ != nullptr; }
  /// The actor object. Calling its handlers from another thread is a data race: use it only
  /// for what actor_ref's own members offer, or from inside the actor itself.
  T* get() const noexcept { return ptr_; }

  std::uint64_t id() const noexcept;
  const std::string& name() const noexcept;
  std::size_t mailbox_size() const noexcept;
  bool is_terminated() const noexcept;

  friend bool operator==(const actor_ref& a, const actor_ref& b) noexcept {
    return a.ptr_ == b.ptr_;
  }

 private:
  abstract_actor* as_base() const noexcept;
  T* ptr_ = nullptr;
};

using actor = actor_ref<abstract_actor>;

}  // namespace spate

template <class T>
struct std::hash<spate::actor_ref<T>> {
  std::size_t operator()(const spate::actor_ref<T>& a) const noexcept {
    return std::hash<const void*>{}(a.get());
  }
};
