// Setting a port that was not declared as an effect must not compile: ports have no public
// setter, only the writer handed to the body for a declared effect.
#include "spate/reactor.hpp"

using namespace spate::reactor;

struct sneaky : reactor {
  output<int> out{this, "out"};
  explicit sneaky(context ctx) : reactor(ctx) {
    reaction().triggers(startup).body([this] { out.set(1); });
  }
};
