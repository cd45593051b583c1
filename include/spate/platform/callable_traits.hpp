#pragma once
// What a one-argument callable takes and returns, read off its call operator: actor
// behaviours and flow lambdas both dispatch on it. (A generic lambda has no fixed argument
// type; callers that accept one ask for the type explicitly.)
#include <type_traits>

namespace spate {

/// \cond recursive_traits
/// Extracts the single argument type and the result of a handler (lambda or function).
template <class F>
struct handler_signature : handler_signature<decltype(&std::decay_t<F>::operator())> {};
template <class C, class R, class A>
struct handler_signature<R (C::*)(A) const> {
  using argument = std::decay_t<A>;
  using result = R;
};
template <class C, class R, class A>
struct handler_signature<R (C::*)(A)> {
  using argument = std::decay_t<A>;
  using result = R;
};
template <class R, class A>
struct handler_signature<R (*)(A)> {
  using argument = std::decay_t<A>;
  using result = R;
};
/// \endcond

}  // namespace spate
