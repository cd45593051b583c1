#pragma once
// Dynamic messages and behaviours, for actors that take open-ended input
// (event_based_actor, blocking_actor). Typed actors do not use this: their mailbox holds a
// std::variant of the declared types and dispatch is a compile-time jump table.
#include <any>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "spate/platform/callable_traits.hpp"
#include "spate/platform/type_name.hpp"
#include "spate/platform/export.hpp"

namespace spate {

/// Marker result of a handler that returns nothing, delivered to requesters as std::any{}.
struct SPATE_API unit_t {};

/// A dynamic actor's handlers, one per message type.
class behavior {
 public:
  behavior() = default;
  /// Handlers tried in order.
  template <class... Handlers>
  requires(sizeof...(Handlers) > 0) explicit behavior(Handlers&&... handlers) {
    (add(std::forward<Handlers>(handlers)), ...);
  }

  /// No handlers.
  bool empty() const noexcept { return handlers_.empty(); }
  /// Whether a handler takes messages of this type.
  bool handles(const std::type_info& type) const noexcept {
    for (const auto& h : handlers_) {
      if (*h.type == type) return true;
    }
    return false;
  }

  /// Runs the first handler whose argument type equals the message's type. Returns nullopt
  /// when none matches; otherwise the handler's result (an empty std::any for void).
  std::optional<std::any> invoke(std::any& message) const {
    for (const auto& h : handlers_) {
      if (*h.type == message.type()) return h.call(message);
    }
    return std::nullopt;
  }

 private:
  struct handler {
    const std::type_info* type;
    std::function<std::any(std::any&)> call;
  };

  template <class F>
  void add(F&& f) {
    using signature = handler_signature<F>;
    using argument = typename signature::argument;
    using result = typename signature::result;
    handlers_.push_back(
        handler{&typeid(argument), [fn = std::forward<F>(f)](std::any& m) mutable -> std::any {
                  auto& value = *std::any_cast<argument>(&m);
                  if constexpr (std::is_void_v<result>) {
                    fn(value);
                    return {};
                  } else {
                    return std::any(fn(value));
                  }
                }});
  }

  std::vector<handler> handlers_;
};

}  // namespace spate
