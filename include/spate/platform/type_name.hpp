#pragma once
// Human-readable type names for error messages ("unexpected message of type ...").
#include <string>
#include <typeinfo>
#include "spate/platform/export.hpp"

namespace spate {

SPATE_API std::string demangle(const char* mangled_name);

template <class T>
std::string type_name() {
  return demangle(typeid(T).name());
}

}  // namespace spate
