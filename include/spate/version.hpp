#pragma once
// spate's version, written here only: CMake reads these three numbers for the project's
// version (and the installed package's version file).
#define SPATE_VERSION_MAJOR 0
#define SPATE_VERSION_MINOR 2
#define SPATE_VERSION_PATCH 0

#define SPATE_VERSION_DETAIL_TEXT(x) #x
#define SPATE_VERSION_DETAIL_JOIN(major, minor, patch) \
  SPATE_VERSION_DETAIL_TEXT(major)                     \
  "." SPATE_VERSION_DETAIL_TEXT(minor) "." SPATE_VERSION_DETAIL_TEXT(patch)

namespace spate {

inline constexpr int version_major = SPATE_VERSION_MAJOR;
inline constexpr int version_minor = SPATE_VERSION_MINOR;
inline constexpr int version_patch = SPATE_VERSION_PATCH;
/// "major.minor.patch"
inline constexpr const char* version_string =
    SPATE_VERSION_DETAIL_JOIN(SPATE_VERSION_MAJOR, SPATE_VERSION_MINOR, SPATE_VERSION_PATCH);

}  // namespace spate
