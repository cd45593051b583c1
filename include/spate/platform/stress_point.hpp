#pragma once
// Delay injection for the stress harness (tests/stress/).
//
// Every handshake calls stress_point() between publishing its own state and re-checking the
// other side's. In a build configured with -DSPATE_STRESS_HOOKS=ON (the tsan and stress
// presets) and with injection switched on (set_stress_injection, or SPATE_STRESS_INJECT=1
// in the environment), the call randomly yields or sleeps a few microseconds, which widens
// the race windows that a lost wake-up needs from nanoseconds to microseconds. In every
// other build it is an empty inline function.
#include <cstdint>
#include "spate/platform/export.hpp"

namespace spate {

#if defined(SPATE_STRESS_HOOKS)
SPATE_API void stress_point() noexcept;
/// Switches injection on or off for the whole process; returns the previous setting.
SPATE_API bool set_stress_injection(bool on) noexcept;
constexpr bool stress_hooks_compiled = true;
#else
inline void stress_point() noexcept {}
inline bool set_stress_injection(bool) noexcept {
  return false;
}
constexpr bool stress_hooks_compiled = false;
#endif

}  // namespace spate
