#pragma once
// A reactor (LF paper, Sect. 2): a class whose members are its ports, actions, timers, state
// and contained reactors, and whose constructor declares its reactions and the connections
// between what it contains. Parameters are constructor arguments.
//
//   struct gain : reactor {
//     input<int> in{this, "in"};
//     output<int> out{this, "out"};
//     int factor;
//     gain(context ctx, int factor) : reactor(ctx), factor(factor) {
//       reaction("scale").triggers(in).effects(out).body(
//           [this](port_writer<int>& out) { out.set(in.get() * factor); });
//     }
//   };
//   struct top : reactor {
//     source s{{this, "s"}};
//     gain g{{this, "g"}, 2};
//     explicit top(context ctx) : reactor(ctx) { connect(s.out, g.in); }
//   };
//   environment env{rt};
//   env.make_top<top>("main");
//   env.run();
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/platform/export.hpp"
#include "spate/reactor/action.hpp"
#include "spate/reactor/connection.hpp"
#include "spate/reactor/port_list.hpp"
#include "spate/reactor/reaction.hpp"
#include "spate/reactor/tag.hpp"

namespace spate::reactor {

class mutator;

/// Every reactor's `mutations` member: declare it as an effect to receive a mutator
/// (mutation.hpp).
class mutation_point {
 public:
  /// The mutation effect of `owner` (reactor::mutations).
  explicit mutation_point(reactor* owner) noexcept : owner_(owner) {}
  /// The reactor mutated.
  reactor& owner() const noexcept { return *owner_; }

 private:
  reactor* owner_;
};

/// A reactor: ports, actions, reactions and contained reactors (see the top of this file).
class SPATE_API reactor : public element {
  /// The registries come first: what registers in them (ports, actions, and the startup and
  /// shutdown triggers' actions once declared) may be made by members declared below.
  detail::pointer_list<port_base*> ports_;
  detail::pointer_list<action_base*> actions_;
  detail::pointer_list<reactor*> children_;
  detail::pointer_list<spate::reactor::reaction*> reactions_;  ///< owned (deleted by ~reactor)
  detail::pointer_list<connection*> connections_;              ///< owned (deleted by ~reactor)
  std::vector<std::string> reactions_without_body_;

 public:
  /// Where a reactor is made: inside a container (`{this, "name"}`) or at the top of an
  /// environment (environment::make_top does this).
  struct context {
    /// Contained in `container` as `name`.
    context(reactor* container, std::string name) : container(container), name(std::move(name)) {}
    /// Instance `bank_index` of a bank of `bank_width` in `container`.
    context(reactor* container, std::string name, std::size_t bank_index, std::size_t bank_width)
        : container(container),
          name(std::move(name)),
          bank_index(bank_index),
          bank_width(bank_width) {}
    /// A top-level reactor of `env`.
    context(environment& env, std::string name) : env(&env), name(std::move(name)) {}

    /// The containing reactor (null for a top-level one).
    reactor* container = nullptr;
    /// The environment (top-level reactors).
    environment* env = nullptr;
    /// Its name.
    std::string name;
    /// Its index in its bank.
    std::size_t bank_index = 0;
    std::size_t bank_width = 0;  ///< 0: not in a bank
  };

  /// A reactor where `ctx` says.
  explicit reactor(context ctx);
  virtual ~reactor();

  /// The environment it runs in.
  environment& env() const noexcept { return *env_; }
  /// The index in its bank (0 when not in a bank) and the bank's width (1 when not in one).
  std::size_t bank_index() const noexcept { return bank_index_; }
  /// How many instances its bank has (1 outside a bank).
  std::size_t bank_width() const noexcept { return bank_width_ == 0 ? 1 : bank_width_; }

  /// Time, for reactions (LF's lf.time.*). Logical time is the current tag's.
  tag current_tag() const noexcept;
  /// The current tag's time.
  time_point logical_time() const noexcept { return current_tag().time; }
  /// The current tag's microstep.
  microstep get_microstep() const noexcept { return current_tag().step; }
  /// Logical time since the start.
  duration elapsed_logical_time() const noexcept;
  /// The clock now.
  time_point physical_time() const noexcept { return clock::now(); }
  /// Physical time since the start.
  duration elapsed_physical_time() const noexcept;
  /// The program's start time.
  time_point start_time() const noexcept;
  /// Shutdown at the next microstep (any thread).
  void request_stop();

  /// Present at the first tag.
  startup_trigger startup{this};
  /// Present at the last tag.
  shutdown_trigger shutdown{this};
  /// Declare as an effect to create, connect and remove reactors (mutation.hpp).
  mutation_point mutations{this};

 protected:
  /// Starts declaring a reaction; reactions run in the order they are declared. An empty name
  /// becomes "reaction_N" (N its priority).
  reaction_builder<> reaction(std::string name = {}) { return {*this, std::move(name)}; }

  /// Connects `from` to `to` (ports, multiports, port lists; see connection.hpp).
  template <port_selection From, port_selection To>
  connection& connect(From&& from, To&& to) {
    auto ends = detail::ends_of(std::forward<From>(from), std::forward<To>(to));
    return add_connection(std::move(ends.from), std::move(ends.to), ends.broadcast);
  }

 private:
  friend class element;
  friend class port_base;
  friend class action_base;
  friend class spate::reactor::reaction;
  friend class detail::assembler;
  friend class detail::reaction_scheduler;
  friend class spate::reactor::mutator;
  friend std::size_t detail::next_reaction_priority(reactor&);
  friend void detail::add_reaction(reactor&, std::unique_ptr<spate::reactor::reaction>);
  friend void detail::note_reaction_without_body(reactor&, const std::string&);
  connection& add_connection(std::vector<port_base*> from, std::vector<port_base*> to,
                             bool broadcast);

  environment* env_;
  std::size_t bank_index_;
  std::size_t bank_width_;
  /// What mutations made and own (mutation.hpp); made at the first.
  struct mutation_made {
    std::vector<std::unique_ptr<reactor>> reactors;
    std::vector<std::unique_ptr<connection>> connections;
  };
  std::unique_ptr<mutation_made> created_;
  mutation_made& created() {
    if (!created_) created_ = std::make_unique<mutation_made>();
    return *created_;
  }
};

/// N instances of a reactor (LF's bank): instance i is named "name[i]" and has bank_index() i.
/// Constructor arguments after the width are passed to every instance.
template <class R>
  requires std::is_base_of_v<reactor, R>
class bank {
 public:
  /// `width` instances of R named name[i], each built with `args`.
  template <class... Args>
  bank(reactor* container, std::string name, std::size_t width, const Args&... args)
      : name_(std::move(name)) {
    for (std::size_t i = 0; i < width; ++i)
      instances_.emplace_back(
          reactor::context{container, name_ + "[" + std::to_string(i) + "]", i, width}, args...);
  }
  bank(const bank&) = delete;
  bank& operator=(const bank&) = delete;

  /// How many instances.
  std::size_t size() const noexcept { return instances_.size(); }
  /// How many instances.
  std::size_t width() const noexcept { return instances_.size(); }
  /// Instance i.
  R& operator[](std::size_t i) { return instances_[i]; }
  /// The first instance.
  auto begin() { return instances_.begin(); }
  /// After the last instance.
  auto end() { return instances_.end(); }

  /// The same port (or multiport) of every instance, instance-major: b[0].out, b[1].out, ...
  /// (for multiports: b[0].out[0], b[0].out[1], b[1].out[0], ...).
  template <class Member>
  auto ports(Member R::*member) {
    port_list<port_list_value_t<Member>> list;
    for (R& r : instances_) list.append(as_port_list(r.*member));
    return list;
  }
  /// LF's `interleaved(b.out)`: channel-major, b[0].out[0], b[1].out[0], b[0].out[1], ...
  template <class P>
  auto interleaved(multiport<P> R::*member) {
    port_list<typename P::value_type> list;
    std::size_t channels = instances_.empty() ? 0 : (instances_.front().*member).width();
    for (std::size_t c = 0; c < channels; ++c)
      for (R& r : instances_) list.append((r.*member)[c]);
    return list;
  }

 private:
  std::string name_;
  std::deque<R> instances_;
};

}  // namespace spate::reactor
