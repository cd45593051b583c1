#pragma once
// The runtime the io, Kafka and fault tests share within one test binary: two workers, the
// SPATE_* environment ignored (the tests pin their pool), built on first use and shut down
// when the binary exits.
#include "spate/exec/runtime.hpp"

namespace spate::test {

inline spate::runtime& shared_runtime() {
  static spate::runtime r([] {
    spate::runtime_config c;
    c.scheduler = spate::scheduler_config{};
    c.scheduler.threads = 2;
    c.read_environment = false;
    return c;
  }());
  return r;
}

}  // namespace spate::test
