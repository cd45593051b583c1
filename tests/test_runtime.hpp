#pragma once
// The runtime the io, Kafka and fault tests share within one test binary: two workers, the
// SPATE_* environment ignored (the tests pin their pool), built on first use and shut down
// when the binary exits.
#include "spate/exec/runtime.hpp"

namespace spate::test {

/// Two workers, the SPATE_* environment ignored: the configuration of every test runtime
/// that pins its pool.
inline spate::runtime_config two_workers() {
  spate::runtime_config c;
  c.scheduler.threads = 2;
  c.read_environment = false;
  return c;
}

inline spate::runtime& shared_runtime() {
  static spate::runtime r(two_workers());
  return r;
}

}  // namespace spate::test
