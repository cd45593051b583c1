// Must not compile: std::string is accepted by the actor but is not part of the interface.
#include <string>

#include "spate/actor.hpp"

struct increment {};
using counter_api = spate::actor_interface<void(increment)>;
struct counter : spate::typed_actor<counter, increment, std::string> {
  void on(increment&) {}
  void on(std::string&) {}
};

int main() {
  spate::actor_system system;
  spate::typed_handle<counter_api> c = system.spawn<counter>();
  spate::send(c, std::string("hello"));
}
