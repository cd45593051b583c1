// The version header and the CMake project agree (CMake reads the header), and the string
// spells the numbers.
#include "spate/version.hpp"

#include <gtest/gtest.h>

#include <string>

TEST(version, the_string_spells_the_numbers_and_matches_the_cmake_project) {
  const std::string numbers = std::to_string(spate::version_major) + "." +
                              std::to_string(spate::version_minor) + "." +
                              std::to_string(spate::version_patch);
  EXPECT_EQ(spate::version_string, numbers);
  EXPECT_EQ(spate::version_string, std::string(SPATE_PROJECT_VERSION));
}
