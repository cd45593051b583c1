// Must not compile: the interface promises a long answer, the handler returns int.
#include "spate/actor.hpp"

struct get_count {};
using counter_api = spate::actor_interface<long(get_count)>;
struct counter : spate::typed_actor<counter, get_count> {
  int on(get_count&) { return 0; }
};

int main() {
  spate::actor_system system;
  spate::typed_handle<counter_api> c = system.spawn<counter>();
}
