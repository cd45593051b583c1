#pragma once
// What the checkpoint tests share: a keyed counter, its keys, a temporary directory and a
// check that a graph is refused at start.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "flow_test_support.hpp"
#include "spate/state/keyed.hpp"

namespace checkpoint_test {

using namespace flow_test;  // flow = spate::flow, runtime_with, workers
namespace state = spate::state;
namespace fs = std::filesystem;

using count_update = std::pair<int, std::int64_t>;
using counts = std::map<int, std::int64_t>;

// Counts items per key in keyed state; sends each key's running count. Replica 0 is slow
// now and then, so the sink's input from replica 1 reaches each barrier first.
struct counter : flow::node<int, count_update> {
  state::value<std::int64_t> count{"count"};
  auto state_fields() { return std::tie(count); }
  void consume(int& key) {
    const std::int64_t n = ++count.get_or_init(0);
    if (replica_index() == 0 && n % 64 == 0)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    send_next({key, n});
  }
};

inline int key_of(std::size_t i) {
  return static_cast<int>(i * 7919 % 101);
}

struct temp_dir {
  fs::path path;
  temp_dir() {
    path = fs::temp_directory_path() /
           ("spate-checkpoint-test-" + std::to_string(::getpid()) + "-" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// The graph does not start: std::invalid_argument whose text holds `reason`.
inline void expect_refused(flow::graph& g, spate::runtime& rt, const std::string& reason) {
  try {
    g.run(rt);
    FAIL() << "started";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
}

}  // namespace checkpoint_test
