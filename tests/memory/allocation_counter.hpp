#pragma once
// Counts calls of the global operator new in this test binary (allocation_counter.cpp
// replaces it), so a test can check that a steady state allocates nothing.
#include <cstddef>

namespace spate::test {
std::size_t global_allocations() noexcept;  // calls of any operator new so far, all threads
}  // namespace spate::test
