#pragma once
// A list of pointers in one machine word, for the lists every port, action and reaction
// keeps (readers, writers, triggered reactions, connections). Most of them hold zero or one
// pointer: a std::vector costs 24 bytes and a heap block (at least 32 bytes with malloc's
// header) for that one pointer, which at a million ports is most of a program's memory
// (Savina's uct: 15 ports and 3 reactions per node). Here an empty or one-pointer list costs
// the word itself and no allocation; a longer one costs the word and one block. (The idea is
// LLVM's TinyPtrVector.)
//
// Representation of `word_` (always an object of type T, the only member):
//   null                     empty, no block;
//   a pointer, low bit 0     one element, in place;
//   low bit 1                a block (header + elements) at word_ & ~1, which may hold 0..n
//                            elements: clear() keeps it, so a list refilled at every tag (a
//                            reaction's set ports) allocates once, as a vector would.
// The element pointers must therefore be at least 2-byte aligned (every object type here is).
//
// Threads: none of its own; the owner's rules apply (like std::vector).
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace spate::reactor::detail {

template <class T>
  requires std::is_pointer_v<T>
class pointer_list {
 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  pointer_list() noexcept = default;
  pointer_list(const pointer_list&) = delete;
  pointer_list& operator=(const pointer_list&) = delete;
  pointer_list(pointer_list&& other) noexcept : word_(std::exchange(other.word_, nullptr)) {}
  pointer_list& operator=(pointer_list&& other) noexcept {
    if (this != &other) {
      release();
      word_ = std::exchange(other.word_, nullptr);
    }
    return *this;
  }
  ~pointer_list() { release(); }

  std::size_t size() const noexcept {
    if (const block* b = as_block()) return b->size;
    return word_ != nullptr ? 1 : 0;
  }
  bool empty() const noexcept { return size() == 0; }

  T* begin() noexcept {
    if (block* b = as_block()) return b->items();
    return &word_;
  }
  T* end() noexcept { return begin() + size(); }
  const T* begin() const noexcept { return const_cast<pointer_list*>(this)->begin(); }
  const T* end() const noexcept { return begin() + size(); }
  T* data() noexcept { return begin(); }
  const T* data() const noexcept { return begin(); }
  std::span<const T> span() const noexcept { return {begin(), size()}; }

  T operator[](std::size_t i) const noexcept { return begin()[i]; }
  T front() const noexcept { return *begin(); }
  T back() const noexcept { return begin()[size() - 1]; }

  /// Appends `value` (not null: null is the empty list's word; and at least 2-byte aligned:
  /// the low bit tells a block from an element).
  void push_back(T value) {
    assert(value != nullptr && (reinterpret_cast<std::uintptr_t>(value) & 1U) == 0);
    if (block* b = as_block()) {
      if (b->size == b->capacity) b = grow(b);
      b->items()[b->size++] = value;
    } else if (word_ == nullptr) {
      word_ = value;
    } else {
      block* fresh = allocate(2);  // 24 bytes: malloc's smallest chunk
      fresh->items()[0] = word_;
      fresh->items()[1] = value;
      fresh->size = 2;
      set_block(fresh);
    }
  }
  /// Removes the last element (precondition: not empty).
  void pop_back() noexcept {
    assert(!empty());
    if (block* b = as_block())
      --b->size;
    else
      word_ = nullptr;
  }
  /// Removes [first, last), moving the rest down (for the erase-remove idiom).
  void erase(T* first, T* last) noexcept {
    T* stop = end();
    T* out = first;
    for (T* in = last; in != stop; ++in) *out++ = *in;
    truncate(static_cast<std::size_t>(out - begin()));
  }
  /// Removes every element equal to `value`; true when one was there.
  bool erase_value(T value) noexcept {
    T* out = begin();
    const T* stop = end();
    for (T* in = begin(); in != stop; ++in)
      if (*in != value) *out++ = *in;
    const std::size_t kept = static_cast<std::size_t>(out - begin());
    const bool removed = kept != size();
    truncate(kept);
    return removed;
  }
  /// Empty; a block is kept for the next fill.
  void clear() noexcept { truncate(0); }
  /// Empty, and its block freed.
  void reset() noexcept {
    release();
    word_ = nullptr;
  }
  bool contains(T value) const noexcept {
    for (T x : *this)
      if (x == value) return true;
    return false;
  }

 private:
  struct block {
    std::uint32_t size;
    std::uint32_t capacity;
    T* items() noexcept { return reinterpret_cast<T*>(this + 1); }
  };
  static_assert(sizeof(block) % alignof(T) == 0);

  block* as_block() const noexcept {
    const auto bits = reinterpret_cast<std::uintptr_t>(word_);
    return (bits & 1U) != 0 ? reinterpret_cast<block*>(bits & ~std::uintptr_t{1}) : nullptr;
  }
  void set_block(block* b) noexcept {
    word_ = reinterpret_cast<T>(reinterpret_cast<std::uintptr_t>(b) | 1U);
  }
  static block* allocate(std::uint32_t capacity) {
    void* raw = ::operator new(sizeof(block) + capacity * sizeof(T));
    block* b = ::new (raw) block{0, capacity};
    return b;
  }
  block* grow(block* old) {
    block* fresh = allocate(old->capacity * 2);
    for (std::uint32_t i = 0; i < old->size; ++i) fresh->items()[i] = old->items()[i];
    fresh->size = old->size;
    ::operator delete(old);
    set_block(fresh);
    return fresh;
  }
  void truncate(std::size_t n) noexcept {
    if (block* b = as_block())
      b->size = static_cast<std::uint32_t>(n);
    else if (n == 0)
      word_ = nullptr;
  }
  void release() noexcept {
    if (block* b = as_block()) ::operator delete(b);
  }

  T word_ = nullptr;
};

}  // namespace spate::reactor::detail
