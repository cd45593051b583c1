#pragma once
// Mutations: a program that changes its own structure while it runs (the LF paper names
// runtime mutations as missing from its runtime). A reaction that declares
// `effects(mutations)` receives a `mutator&`:
//
//   reaction("grow").triggers(request).effects(mutations, out).body(
//       [this](mutator& m, port_writer<int>& out) {
//         auto& w = m.create<worker>("w" + std::to_string(n++), parameters...);
//         m.connect(out, w.in);          // ports of this reactor and of what it contains
//         m.remove(old_worker);           // only reactors a mutation created
//       });
//
// Changes take effect when the tag ends: the created reactors' startup reactions run at the
// next microstep, their timers start from there, and connections carry values from the next
// tag on. The dependency graph is updated incrementally (new edges, levels raised where an
// edge demands it), not rebuilt. A mutation whose connections would close a causality loop,
// or that breaks any assembly rule, is rejected as a whole — the program stays as it was —
// and the error, naming the cycle, is reported through the runtime's error reporter and
// counted (environment::rejected_mutations()).
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/platform/export.hpp"
#include "spate/reactor/reactor.hpp"

namespace spate::reactor {

namespace detail {
/// What one reaction's mutator asked for at one tag, applied when the tag ends.
struct SPATE_API pending_mutation {
  reactor* owner;
  std::vector<std::unique_ptr<reactor>> created;
  std::vector<std::unique_ptr<connection>> connections;
  std::vector<reactor*> removed;
};
SPATE_API pending_mutation& mutation_of(reaction& r, reactor& owner);
}  // namespace detail

/// What a reaction that declared effects(mutations) receives (see the top of this file).
class mutator {
 public:
  /// Mutations by `r` inside `owner`.
  mutator(reaction& r, reactor& owner) noexcept : reaction_(&r), owner_(&owner) {}

  /// A new reactor inside this reactor, constructed now, part of the program from the next
  /// tag on. The reference stays valid until a mutation removes it.
  template <class R, class... Args>
    requires std::is_base_of_v<reactor, R>
  R& create(std::string name, Args&&... args) {
    auto& children = owner_->children_;
    const std::size_t before = children.size();
    std::unique_ptr<R> made;
    try {
      made = std::make_unique<R>(reactor::context{owner_, std::move(name)},
                                 std::forward<Args>(args)...);
    } catch (...) {
      // A constructor that threw after reactor's own had run left its reactor registered in
      // the owner, freed: take it out before the exception fails the reaction.
      children.erase(children.begin() + static_cast<std::ptrdiff_t>(before), children.end());
      throw;
    }
    R& result = *made;
    detail::mutation_of(*reaction_, *owner_).created.push_back(std::move(made));
    return result;
  }

  /// A connection between ports of this reactor and of reactors it contains (also ones
  /// created by this mutation), with the options of reactor::connect. Beyond reactor::connect's
  /// rules it may also leave this reactor's own output and enter its own input: that is how a
  /// reaction, whose declarations predate the created reactors, sends to and hears from them.
  template <port_selection From, port_selection To>
  connection& connect(From&& from, To&& to) {
    auto ends = detail::ends_of(std::forward<From>(from), std::forward<To>(to));
    auto c = std::make_unique<connection>(std::move(ends.from), std::move(ends.to), ends.broadcast);
    connection& result = *c;
    detail::mutation_of(*reaction_, *owner_).connections.push_back(std::move(c));
    return result;
  }

  /// Removes a reactor a mutation of this reactor created, with its connections and pending
  /// events, when the tag ends.
  void remove(reactor& child) {
    detail::mutation_of(*reaction_, *owner_).removed.push_back(&child);
  }

 private:
  reaction* reaction_;
  reactor* owner_;
};

namespace detail {
template <>
struct effect_traits<mutation_point> {
  using handle = mutator;
  static handle make(reaction& r, mutation_point& m) { return handle(r, m.owner()); }
};
}  // namespace detail

}  // namespace spate::reactor
