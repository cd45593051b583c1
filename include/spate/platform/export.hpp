#pragma once
// SPATE_API marks what a shared libspate exports. The libraries build with hidden symbols
// (CMake's CXX_VISIBILITY_PRESET hidden, src/CMakeLists.txt), so only classes and functions
// marked here are in the shared library's dynamic symbol table; everything else (inline
// helpers, template instantiations of the standard library, file-local code) stays private
// to it. On ELF the same attribute serves the library and its users; a static build keeps
// it harmlessly.
#if defined(__GNUC__) || defined(__clang__)
#define SPATE_API __attribute__((visibility("default")))
#else
#define SPATE_API
#endif
