#pragma once
// A side output for late tuples: what a time pattern leaves out as late — a tuple late for
// every window that would have held it, a session's tuple whose interval the watermark has
// passed, a join's or a deduplication's tuple behind the watermark — goes to a function
// instead of nowhere:
//
//   auto late = window::late_to<reading>([&](reading&& r) { corrections.push_back(r); });
//   window::key_partitioning<reading>(spec, key, time, f, 2, {.report = report, .late = late});
//
// The function runs on the pattern's emitter, once per late tuple, in arrival order, and
// is handed the tuple itself (moved). It is the emitter's work: a slow function slows the
// pattern, and an exception fails the graph, naming the emitter. One late output given to
// several patterns is called from each one's emitter, on different threads at once: its
// function must then be thread-safe. The report's late_tuples
// and dropped_tuples count the tuples either way. For a join the tuple type is the input's
// std::variant<L, R>.
//
// The function's tuple type must be the pattern's: a pattern given a late_output of another
// type refuses it when it is built (std::invalid_argument naming both types).
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "spate/platform/type_name.hpp"

namespace spate::window {

/// What pattern_options::late holds: a late_output<T> for some tuple type T.
class late_output_base {
 public:
  virtual ~late_output_base() = default;
  /// The tuple type its function takes.
  virtual const std::type_info& tuple_type() const noexcept = 0;
};

/// A function that takes a pattern's late tuples of type T.
template <class T>
class late_output final : public late_output_base {
 public:
  /// `send(T&&)`, called on the pattern's emitter.
  explicit late_output(std::function<void(T&&)> send) : send_(std::move(send)) {}
  /// Hands one late tuple over.
  void operator()(T&& tuple) const { send_(std::move(tuple)); }
  const std::type_info& tuple_type() const noexcept override { return typeid(T); }

 private:
  std::function<void(T&&)> send_;
};

/// A late output calling `send(T&&)` for each late tuple; for pattern_options::late.
template <class T, class Send>
  requires std::is_invocable_v<Send&, T&&>
std::shared_ptr<late_output_base> late_to(Send send) {
  return std::make_shared<late_output<T>>(std::function<void(T&&)>(std::move(send)));
}

namespace detail {
// The pattern's own late output (null without one); throws for one of another tuple type.
template <class T>
std::shared_ptr<const late_output<T>> late_output_for(const std::shared_ptr<late_output_base>& late,
                                                      const char* pattern) {
  if (!late) return nullptr;
  auto typed = std::dynamic_pointer_cast<const late_output<T>>(late);
  if (!typed)
    throw std::invalid_argument(
        std::string(pattern) + ": pattern_options::late takes tuples of type " +
        demangle(late->tuple_type().name()) + ", and this pattern's tuples are " + type_name<T>());
  return typed;
}
}  // namespace detail

}  // namespace spate::window
