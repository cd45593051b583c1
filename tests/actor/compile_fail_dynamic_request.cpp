// Must not compile: a request to a dynamically typed actor must name its response type.
#include "spate/actor.hpp"

int main() {
  spate::actor_system system;
  auto a = system.spawn(
      [](spate::event_based_actor&) { return spate::behavior{[](int x) { return x; }}; });
  (void)spate::request(a, 1, std::chrono::seconds(1));
}
