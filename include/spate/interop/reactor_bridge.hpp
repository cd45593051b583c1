#pragma once
// Bridges between reactor programs and actors (and, through a graph actor, flow graphs), so
// one program mixes the three models on one runtime without their headers knowing of one
// another.
//
// Into a reactor program: a physical action is already thread-safe, so any actor may call
// `action.schedule(v)` from a handler. `spawn_action_forwarder` makes the action an actor of
// its own, so code that talks to actors (a router, a graph's output, a request) can address
// it by actor_ref like anything else:
//
//   auto into_program = spate::interop::spawn_action_forwarder(actors, monitor.reading);
//   spate::send(into_program, 21.5);        // becomes an event of the reactor program
//
// Out of a reactor program: a reaction may send to any actor (spate::send is thread-safe and
// never blocks), and so feed a flow graph spawned as an actor (flow::spawn_graph). Sending is
// a side effect outside the program: its order across reactions of one tag follows the
// reactions' dependency order, not the clock.
#include <utility>

#include "spate/actor.hpp"
#include "spate/reactor/action.hpp"

namespace spate::interop {

/// An actor that schedules a reactor program's physical action with every T it receives.
template <class T>
struct action_forwarder : typed_actor<action_forwarder<T>, T> {
  /// Forwards to `action`, which must outlive the actor.
  explicit action_forwarder(reactor::physical_action<T>* action) : action(action) {}
  /// Schedules the action with `value`.
  void on(T& value) { action->schedule(std::move(value)); }
  /// The action scheduled.
  reactor::physical_action<T>* action;
};

/// An actor that schedules `action` with every T it receives. The action's program must
/// outlive the actor's last message (stop the actor, or the actor system, first).
template <class T>
actor_ref<action_forwarder<T>> spawn_action_forwarder(actor_system& system,
                                                      reactor::physical_action<T>& action) {
  return system.spawn<action_forwarder<T>>(&action);
}

}  // namespace spate::interop
