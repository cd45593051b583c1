// Must not compile: `counter` does not accept std::string.
#include <string>

#include "spate/actor.hpp"

struct increment {};
struct counter : spate::typed_actor<counter, increment> {
  void on(increment&) {}
};

int main() {
  spate::actor_system system;
  auto c = system.spawn<counter>();
  spate::send(c, std::string("hello"));
}
