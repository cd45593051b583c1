// A body that does not take the declared effects' handles is a compile-time error with a
// message saying what it must accept.
#include "spate/reactor.hpp"

using namespace spate::reactor;

struct forgetful : reactor {
  output<int> out{this, "out"};
  explicit forgetful(context ctx) : reactor(ctx) {
    reaction().triggers(startup).effects(out).body([] {});
  }
};
