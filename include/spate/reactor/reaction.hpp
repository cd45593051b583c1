#pragma once
// Reactions (LF paper, Sect. 2.1): the code of a reactor, run when one of its triggers is
// present. A reaction declares what triggers it, what else it reads (sources) and what it
// writes (effects); the declarations are the dependency graph the reaction scheduler follows, so
// they are enforced: the body receives one handle per declared effect, in declaration order,
// and ports and logical actions can be written only through those handles.
//
//   reaction("scale")
//       .triggers(in)                       // ports, actions, timers, startup, shutdown
//       .effects(out)                       // ports, multiports, port lists, actions
//       .body([this](port_writer<int>& out) { out.set(in.get() * factor); })
//       .deadline(10ms, [this](port_writer<int>& out) { out.set(-1); });  // optional
//
// Reactions of one reactor run in declaration order when triggered at the same tag.
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/exec/task.hpp"
#include "spate/platform/export.hpp"
#include "spate/reactor/action.hpp"
#include "spate/reactor/port_list.hpp"

namespace spate::reactor {

namespace detail {
class assembler;
class reaction_scheduler;
struct delayed_connection;
struct pending_mutation;

/// An event a reaction produced at this tag (a logical action, a delayed connection's value);
/// merged into the event queue when the tag ends, in reaction order, so the result is the
/// same whichever worker ran which reaction first.
struct staged_event {
  event_target* target;
  action_base* action;  ///< for spacing; null for a delayed connection
  erased_value value;
  duration delay;
  bool physical;
};
}  // namespace detail

class reaction;
class mutation_point;
namespace detail {
SPATE_API void declare_trigger(reaction& r, action_base& a);
SPATE_API void declare_port(reaction& r, port_base& p,
                            int role);  ///< 0 trigger, 1 source, 2 effect
SPATE_API void declare_effect_action(reaction& r, action_base& a);
struct pending_mutation;
SPATE_API pending_mutation& mutation_of(reaction& r, reactor& owner);
}  // namespace detail

/// A reaction: triggers, sources, effects and a body (see the top of this file).
class SPATE_API reaction : public element, private task {
 public:
  ~reaction() override;
  /// Declaration order within the reactor, from 1.
  std::size_t priority() const noexcept { return priority_; }
  /// The reaction's level: the length of the longest dependency chain leading to it.
  std::size_t level() const noexcept { return level_; }
  /// Its deadline, when it has one.
  std::optional<duration> deadline() const noexcept {
    if (deadline_ == no_deadline) return std::nullopt;
    return deadline_;
  }

 protected:
  /// A reaction of `container`, `priority` in its declaration order.
  reaction(std::string name, reactor* container, std::size_t priority);
  /// Sets its deadline.
  void set_deadline(duration d) { deadline_ = d; }

 private:
  friend class detail::assembler;
  friend class detail::reaction_scheduler;
  template <class... E>
  friend class reaction_builder;
  friend void set_port_value(reaction&, port_base&, detail::erased_value);
  friend void detail::declare_trigger(reaction&, action_base&);
  friend void detail::declare_port(reaction&, port_base&, int);
  friend void detail::declare_effect_action(reaction&, action_base&);
  template <class T>
  friend class action_scheduler;

  virtual void invoke() = 0;
  virtual void invoke_deadline_handler() = 0;
  resume_result resume(std::size_t budget) override;
  void stage_logical(action_base& action, detail::erased_value value, duration delay);

  static constexpr duration no_deadline = duration::min();
  std::uint32_t priority_;
  std::atomic<std::uint32_t> pending_{0};  ///< per tag (see below)
  duration deadline_ = no_deadline;
  /// Declarations (pointer_lists: most hold one port or none, at no allocation).
  detail::pointer_list<port_base*> trigger_ports_, source_ports_, effect_ports_;
  detail::pointer_list<action_base*> trigger_actions_, effect_actions_;
  /// The dependency graph (assembly).
  detail::pointer_list<reaction*> successors_, predecessors_;
  std::uint32_t level_ = 0;
  /// Position in the program's total order: at assembly level, then reactor tree; a mutation's
  /// reactions after all others. A removal renumbers the ones after it, keeping their order.
  std::uint32_t index_ = 0;
  detail::reaction_scheduler* reaction_scheduler_ = nullptr;
  /// Per tag; see reaction_scheduler.hpp for who writes what when.
  std::uint64_t cone_generation_ = 0;
  std::atomic<bool> triggered_{false};
  bool ran_ = false;
  bool failed_ = false;             ///< threw at this tag: its mutation is dropped
  reaction* chunk_next_ = nullptr;  ///< sparse tags: the next reaction of its level's chunk
  detail::pointer_list<port_base*> set_ports_;
  std::vector<detail::staged_event> staged_;
  std::unique_ptr<detail::pending_mutation> mutation_;  ///< mutation.hpp
  friend detail::pending_mutation& detail::mutation_of(reaction&, reactor&);
};

/// Sets the port at the current tag: stores the value, triggers the readers, and stages the
/// value for delayed connections leaving the port.
SPATE_API void set_port_value(reaction& by, port_base& port, detail::erased_value value);

// ---- effect handles: what a body receives for each declared effect ----

/// What a reaction's body receives for a port it declared as an effect.
template <class T>
class port_writer {
 public:
  /// Writes `p` on behalf of `r`.
  port_writer(reaction& r, port<T>& p) noexcept : reaction_(&r), port_(&p) {}
  /// Sets the port's value at the current tag.
  void set(const T& value) { set_port_value(*reaction_, *port_, detail::erased_value::of(value)); }
  /// Sets the port's value at the current tag.
  void set(T&& value) {
    set_port_value(*reaction_, *port_, detail::erased_value::of(std::move(value)));
  }
  /// Sets a shared value (no copy for readers).
  void set(std::shared_ptr<const T> value) {
    set_port_value(*reaction_, *port_, detail::erased_value::of_shared(std::move(value)));
  }
  /// Sets a value built from `args`.
  template <class... Args>
    requires std::is_constructible_v<T, Args&&...>
  void emplace(Args&&... args) {
    set(T(std::forward<Args>(args)...));
  }
  /// True once set at this tag.
  bool is_present() const noexcept { return port_->is_present(); }
  /// The value set at this tag.
  const T& get() const { return port_->get(); }
  /// The port written.
  port<T>& target() const noexcept { return *port_; }

 private:
  reaction* reaction_;
  port<T>* port_;
};

/// A port that carries presence only.
template <>
class port_writer<void> {
 public:
  /// Writes `p` (a port without values) on behalf of `r`.
  port_writer(reaction& r, port<void>& p) noexcept : reaction_(&r), port_(&p) {}
  /// Makes the port present at the current tag.
  void set() { set_port_value(*reaction_, *port_, detail::erased_value::empty_present()); }
  /// True once set at this tag.
  bool is_present() const noexcept { return port_->is_present(); }
  /// The port written.
  port<void>& target() const noexcept { return *port_; }

 private:
  reaction* reaction_;
  port<void>* port_;
};

/// A writer for every channel of a multiport or port list: `out[i].set(v)`.
template <class T>
class multiport_writer {
 public:
  /// Writers for every port of `ports`.
  multiport_writer(reaction& r, const port_list<T>& ports) {
    writers_.reserve(ports.size());
    for (port<T>* p : ports) writers_.emplace_back(r, *p);
  }
  /// The writer of port i.
  port_writer<T>& operator[](std::size_t i) noexcept { return writers_[i]; }
  /// How many ports.
  std::size_t size() const noexcept { return writers_.size(); }
  /// How many ports.
  std::size_t width() const noexcept { return writers_.size(); }
  /// The first writer.
  auto begin() noexcept { return writers_.begin(); }
  /// After the last writer.
  auto end() noexcept { return writers_.end(); }

 private:
  std::vector<port_writer<T>> writers_;
};

/// What a reaction's body receives for an action it declared as an effect.
template <class T>
class action_scheduler {
 public:
  /// Schedules `a` on behalf of `r`.
  action_scheduler(reaction& r, valued_action<T>& a) noexcept : reaction_(&r), action_(&a) {}

  /// At the current tag + min_delay + delay (a zero total: the next microstep).
  template <class V>
    requires(!std::is_void_v<T> && std::is_constructible_v<T, V &&>)
  void schedule(V&& value, duration delay = duration::zero()) {
    place(detail::erased_value::of(T(std::forward<V>(value))), delay);
  }
  /// An event `delay` after the current tag (plus min_delay).
  void schedule(duration delay = duration::zero())
    requires std::is_void_v<T>
  {
    place(detail::erased_value::empty_present(), delay);
  }
  /// True when the action has an event at this tag.
  bool is_present() const noexcept { return action_->is_present(); }

 private:
  void place(detail::erased_value value, duration delay) {
    reaction_->stage_logical(*action_, std::move(value), delay);
  }
  reaction* reaction_;
  valued_action<T>* action_;
};

namespace detail {

template <class D>
struct effect_traits;  ///< no handle: this kind of element cannot be an effect
template <class T>
struct effect_traits<input<T>> {
  using handle = port_writer<T>;
  static handle make(reaction& r, input<T>& p) { return handle(r, p); }
};
template <class T>
struct effect_traits<output<T>> {
  using handle = port_writer<T>;
  static handle make(reaction& r, output<T>& p) { return handle(r, p); }
};
template <class P>
struct effect_traits<multiport<P>> {
  using handle = multiport_writer<typename P::value_type>;
  static handle make(reaction& r, multiport<P>& m) {
    return handle(r, port_list<typename P::value_type>(m));
  }
};
template <class T>
struct effect_traits<port_list<T>> {
  using handle = multiport_writer<T>;
  static handle make(reaction& r, const port_list<T>& l) { return handle(r, l); }
};
template <class T>
struct effect_traits<logical_action<T>> {
  using handle = action_scheduler<T>;
  static handle make(reaction& r, logical_action<T>& a) { return handle(r, a); }
};
template <class T>
struct effect_traits<physical_action<T>> {
  using handle = action_scheduler<T>;
  static handle make(reaction& r, physical_action<T>& a) { return handle(r, a); }
};

template <class D>
concept effect_declaration = requires { typename effect_traits<std::remove_cvref_t<D>>::handle; };

template <class D>
using effect_handle_t = typename effect_traits<std::remove_cvref_t<D>>::handle;

/// Trigger and source declarations: anything that denotes ports, or an action of any kind.
template <class X>
concept trigger_declaration =
    port_selection<X> || std::is_base_of_v<action_base, std::remove_cvref_t<X>> ||
    std::is_base_of_v<lifecycle_trigger, std::remove_cvref_t<X>>;

/// How a declared effect is held until the body is given: a port list by value (it may be a
/// temporary `bank.ports(...)`), anything else by address.
template <class D>
struct effect_storage {
  using type = D*;
};
template <class T>
struct effect_storage<port_list<T>> {
  using type = port_list<T>;
};
template <class D>
using effect_storage_t = typename effect_storage<std::remove_cvref_t<D>>::type;

template <class S>
auto& deref_effect(S& stored) {
  if constexpr (std::is_pointer_v<S>) {
    return *stored;
  } else {
    return stored;
  }
}

template <class Body, class Handles>
struct body_accepts;
template <class Body, class... H>
struct body_accepts<Body, std::tuple<H...>>
    : std::bool_constant<std::is_invocable_v<Body&, H&...>> {};

template <class Body, class... Decls>
class typed_reaction final : public reaction {
 public:
  using handles = std::tuple<effect_handle_t<Decls>...>;

  typed_reaction(std::string name, reactor* container, std::size_t priority, Body body,
                 std::tuple<effect_storage_t<Decls>...>& effects)
      : reaction(std::move(name), container, priority),
        body_(std::move(body)),
        handles_(make_handles(effects, std::index_sequence_for<Decls...>{})) {}

  using reaction::deadline;
  /// LF's `deadline(d) {= handler =}`: when the reaction would start later than its tag's
  /// time + d by the physical clock, the handler runs instead of the body. A negative `d`
  /// throws std::invalid_argument naming the reaction.
  template <class Handler>
  typed_reaction& deadline(duration d, Handler handler) {
    static_assert(body_accepts<Handler, handles>::value,
                  "the deadline handler must accept the reaction's effect handles, in the order "
                  "the effects were declared (port_writer<T>&, multiport_writer<T>&, "
                  "action_scheduler<T>&)");
    detail::require_not_negative("reaction", *this, "deadline", d);
    set_deadline(d);
    deadline_handler_ = std::make_unique<std::function<void()>>(
        [this, h = std::move(handler)]() mutable { std::apply(h, handles_); });
    return *this;
  }

 private:
  template <std::size_t... I>
  handles make_handles(std::tuple<effect_storage_t<Decls>...>& effects, std::index_sequence<I...>) {
    return handles(effect_traits<std::remove_cvref_t<Decls>>::make(
        *this, deref_effect(std::get<I>(effects)))...);
  }
  void invoke() override { std::apply(body_, handles_); }
  void invoke_deadline_handler() override {
    if (deadline_handler_) (*deadline_handler_)();
  }

  Body body_;
  handles handles_;
  std::unique_ptr<std::function<void()>> deadline_handler_;  ///< few reactions have one
};

/// Registration in the reactor (element.cpp).
SPATE_API std::size_t next_reaction_priority(reactor& owner);
SPATE_API void add_reaction(reactor& owner, std::unique_ptr<reaction> r);
SPATE_API void note_reaction_without_body(reactor& owner, const std::string& name);

}  // namespace detail

/// Returned by reactor::reaction(name); registers the reaction when given its body.
template <class... Effects>
class [[nodiscard]] reaction_builder {
 public:
  /// A reaction named `name` of `owner`, declared when the builder is done.
  reaction_builder(reactor& owner, std::string name) : owner_(&owner), name_(std::move(name)) {}
  reaction_builder(const reaction_builder&) = delete;
  /// Takes the other's declaration over.
  reaction_builder(reaction_builder&& other) noexcept
      : owner_(std::exchange(other.owner_, nullptr)),
        name_(std::move(other.name_)),
        trigger_actions_(std::move(other.trigger_actions_)),
        port_roles_(std::move(other.port_roles_)),
        effects_(std::move(other.effects_)) {}
  ~reaction_builder() {
    if (owner_ != nullptr) detail::note_reaction_without_body(*owner_, name_);
  }

  /// What triggers it: ports, multiports, port lists, actions, timers.
  template <detail::trigger_declaration... X>
  reaction_builder triggers(X&&... triggers) && {
    (add_trigger(std::forward<X>(triggers)), ...);
    return std::move(*this);
  }
  /// What it reads without being triggered.
  template <port_selection... X>
  reaction_builder sources(X&&... sources) && {
    (add_ports(as_port_list(sources), 1), ...);
    return std::move(*this);
  }
  /// What it writes: ports, multiports, port lists, actions, mutations.
  template <class... E>
  reaction_builder<Effects..., std::remove_cvref_t<E>...> effects(E&&... effects) && {
    static_assert((detail::effect_declaration<E> && ...),
                  "an effect must be a port (input of a contained reactor or own output), a "
                  "multiport, a port_list, a logical or physical action, or `mutations`");
    reaction_builder<Effects..., std::remove_cvref_t<E>...> next(*owner_, std::move(name_));
    owner_ = nullptr;
    next.trigger_actions_ = std::move(trigger_actions_);
    next.port_roles_ = std::move(port_roles_);
    next.effects_ =
        std::tuple_cat(std::move(effects_),
                       std::tuple<detail::effect_storage_t<E>...>(store_effect<E>(effects)...));
    return next;
  }

  /// Registers the reaction. `body` is called with one handle per declared effect.
  template <class Body>
  auto& body(Body body) && {
    static_assert(
        detail::body_accepts<Body, std::tuple<detail::effect_handle_t<Effects>...>>::value,
        "the reaction body must accept one handle per declared effect, in declaration "
        "order: port_writer<T>& for a port, multiport_writer<T>& for a multiport or "
        "port_list, action_scheduler<T>& for an action");
    auto* owner = std::exchange(owner_, nullptr);
    auto r = std::make_unique<detail::typed_reaction<Body, Effects...>>(
        std::move(name_), owner, detail::next_reaction_priority(*owner), std::move(body), effects_);
    auto& result = *r;
    for (action_base* a : trigger_actions_) detail::declare_trigger(result, *a);
    for (auto& [p, role] : port_roles_) detail::declare_port(result, *p, role);
    register_effects(result, std::index_sequence_for<Effects...>{});
    detail::add_reaction(*owner, std::move(r));
    return result;
  }

 private:
  template <class... E>
  friend class reaction_builder;

  template <class E>
  static detail::effect_storage_t<E> store_effect(E& e) {
    if constexpr (std::is_pointer_v<detail::effect_storage_t<E>>) {
      return &e;
    } else {
      return as_port_list(e);
    }
  }
  template <class X>
  void add_trigger(X&& x) {
    if constexpr (std::is_base_of_v<action_base, std::remove_cvref_t<X>>) {
      trigger_actions_.push_back(&x);
    } else if constexpr (std::is_base_of_v<lifecycle_trigger, std::remove_cvref_t<X>>) {
      trigger_actions_.push_back(&x.declared());
    } else {
      add_ports(as_port_list(x), 0);
    }
  }
  template <class T>
  void add_ports(const port_list<T>& list, int role) {
    for (port<T>* p : list) port_roles_.emplace_back(p, role);
  }
  template <class R, std::size_t... I>
  void register_effects(R& r, std::index_sequence<I...>) {
    (register_effect(r, detail::deref_effect(std::get<I>(effects_))), ...);
  }
  template <class D>
  static void register_effect(reaction& r, D& d) {
    if constexpr (std::is_same_v<D, mutation_point>) {
      (void)r;  // a mutator writes structure, not ports: no edge in the dependency graph
      (void)d;
    } else if constexpr (std::is_base_of_v<action_base, D>) {
      detail::declare_effect_action(r, d);
    } else {
      for (auto* p : as_port_list(d)) detail::declare_port(r, *p, 2);
    }
  }

  reactor* owner_;
  std::string name_;
  std::vector<action_base*> trigger_actions_;
  std::vector<std::pair<port_base*, int>> port_roles_;
  std::tuple<detail::effect_storage_t<Effects>...> effects_;
};

}  // namespace spate::reactor
