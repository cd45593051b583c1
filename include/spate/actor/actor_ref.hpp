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

/// A reference-counted handle to an actor of type T (spate::actor for any actor).
template <class T>
class actor_ref {
 public:
  actor_ref() noexcept = default;
  /// An empty handle.
  actor_ref(std::nullptr_t) noexcept {}
  /// Adopts a new reference (the caller already counted it) when `add_ref` is false.
  explicit actor_ref(T* p, bool add_ref = true) noexcept : ptr_(p) {
    if (ptr_ != nullptr && add_ref) intrusive_add_ref(as_base());
  }
  /// Another reference to the same actor.
  actor_ref(const actor_ref& other) noexcept : actor_ref(other.ptr_) {}
  /// Takes the other's reference over.
  actor_ref(actor_ref&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  /// From a handle of a derived actor type.
  template <class U>
  requires(std::is_convertible_v<U*, T*> && !std::is_same_v<U, T>)
      actor_ref(const actor_ref<U>& other)
  noexcept : actor_ref(other.get()) {}
  ~actor_ref() { reset(); }

  /// Drops this reference and takes the other's.
  actor_ref& operator=(actor_ref other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }
  /// Drops the reference; the handle is empty.
  void reset() noexcept {
    if (ptr_ != nullptr) intrusive_release(as_base());
    ptr_ = nullptr;
  }

  /// True unless empty.
  explicit operator bool() const noexcept { return ptr_ != nullptr; }
  /// The actor object. Calling its handlers from another thread is a data race: use it only
  /// for what actor_ref's own members offer, or from inside the actor itself.
  T* get() const noexcept { return ptr_; }

  /// The actor's id (0 when empty).
  std::uint64_t id() const noexcept;
  /// The actor's name.
  const std::string& name() const noexcept;
  /// Messages waiting in its mailbox (0 when empty).
  std::size_t mailbox_size() const noexcept;
  /// True once it has terminated.
  bool is_terminated() const noexcept;

  /// The same actor.
  friend bool operator==(const actor_ref& a, const actor_ref& b) noexcept {
    return a.ptr_ == b.ptr_;
  }

 private:
  abstract_actor* as_base() const noexcept;
  T* ptr_ = nullptr;
};

using actor = actor_ref<abstract_actor>;

}  // namespace spate

/// \cond std_specializations
template <class T>
struct std::hash<spate::actor_ref<T>> {
  std::size_t operator()(const spate::actor_ref<T>& a) const noexcept {
    return std::hash<const void*>{}(a.get());
  }
};
/// \endcond
