#pragma once
// A fresh, empty directory for one test (mkdtemp: unique, also among the test binaries CTest
// runs at once), removed with everything in it when the test ends.
#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace spate::test {

struct temp_dir {
  std::filesystem::path path;
  /// `/tmp/spate-<what>-XXXXXX`, made now.
  explicit temp_dir(const std::string& what = "test") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("spate-" + what + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    }
    path = pattern;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace spate::test
