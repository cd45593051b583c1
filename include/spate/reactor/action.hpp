#pragma once
// Actions, timers and the startup and shutdown triggers (LF paper, Sect. 2.3): the things
// that put events into the event queue. A reaction schedules a logical action (declared as
// its effect) for a later tag of logical time; anyone, on any thread, schedules a physical
// action for a tag taken from the physical clock; timers fire at offset + k * period.
//
// Minimum spacing (for both kinds): an event closer than `min_spacing` to the previous one of
// the same action is deferred to keep the spacing, dropped, or replaces the previous event's
// value when that one is still pending (and is deferred otherwise), per `spacing_policy`.
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "spate/platform/export.hpp"
#include "spate/reactor/element.hpp"
#include "spate/reactor/tag.hpp"

namespace spate::reactor {

namespace detail {
class assembler;
class reaction_scheduler;
}  // namespace detail

enum class spacing_policy { defer, drop, replace };

/// How an action's events are spaced (LF's min_delay, min_spacing and policy).
struct action_options {
  /// Added to every event's delay.
  duration min_delay{0};
  /// The least time between two events (zero: none).
  duration min_spacing{0};
  /// What an event closer than min_spacing does.
  spacing_policy policy = spacing_policy::defer;
};

/// What every action, timer and trigger shares (see the top of this file).
class SPATE_API action_base : public element, public detail::event_target {
 public:
  /// Which of them this is.
  enum class kind : unsigned char { logical, physical, timer, startup, shutdown };

  /// True when it has an event at the current tag.
  bool is_present() const noexcept { return present_; }
  /// Logical, physical, timer, startup or shutdown.
  kind action_kind() const noexcept { return kind_; }
  /// Its spacing options.
  action_options options() const noexcept {
    if (!spacing_) return {.min_delay = min_delay_};
    return {
        .min_delay = min_delay_, .min_spacing = spacing_->min_spacing, .policy = spacing_->policy};
  }

 protected:
  /// An action named `name` in `container`.
  action_base(std::string name, reactor* container, kind k, action_options options = {});
  /// The current event's value (type-erased).
  const detail::erased_value& value() const noexcept { return value_; }
  /// Thread-safe: a physical action's event at (physical now + min_delay + delay, 0).
  void schedule_physical(detail::erased_value value, duration delay);

 private:
  friend class detail::assembler;
  friend class detail::reaction_scheduler;
  /// An action's spacing rule (LF's min_spacing and policy), made only for an action that
  /// has one: most have none, and every reactor has two triggers.
  struct spacing {
    duration min_spacing;
    spacing_policy policy;
    /// The tag of the latest event scheduled (under the reaction scheduler's lock).
    std::optional<tag> last_scheduled;
  };
  kind kind_;
  duration min_delay_;
  std::unique_ptr<spacing> spacing_;
};

/// Shared reading interface of logical and physical actions.
template <class T>
class valued_action : public action_base {
 public:
  /// The value its events carry (void: none).
  using value_type = T;
  /// (The return type is spelled so that it is well-formed for T = void, where these do not
  /// exist.)
  std::add_lvalue_reference_t<const T> get() const
    requires(!std::is_void_v<T>)
  {
    return value().template get<T>();
  }
  /// The current event's value.
  std::add_lvalue_reference_t<const T> operator*() const
    requires(!std::is_void_v<T>)
  {
    return get();
  }

 protected:
  /// As action_base's constructor.
  using action_base::action_base;
};

/// Scheduled by reactions that declare it as an effect (through the body's
/// action_scheduler<T> handle).
template <class T = void>
class logical_action final : public valued_action<T> {
 public:
  /// An action named `name` in `container`, scheduled by reactions that declare it.
  logical_action(reactor* container, std::string name, action_options options = {})
      : valued_action<T>(std::move(name), container, action_base::kind::logical, options) {}
};

/// Scheduled from anywhere: another thread, a callback, an actor (interop), or a reaction
/// that declared it as an effect. The tag comes from the physical clock, so its order with
/// other events is not deterministic; everything after it is.
template <class T = void>
class physical_action final : public valued_action<T> {
 public:
  /// An action named `name` in `container` that any thread may schedule.
  physical_action(reactor* container, std::string name, action_options options = {})
      : valued_action<T>(std::move(name), container, action_base::kind::physical, options) {}

  /// An event with `value` at physical now + min_delay + `delay` (any thread).
  template <class V>
    requires(!std::is_void_v<T> && std::is_constructible_v<T, V &&>)
  void schedule(V&& value, duration delay = duration::zero()) {
    this->schedule_physical(detail::erased_value::of(T(std::forward<V>(value))), delay);
  }
  /// An event at physical now + min_delay + `delay` (any thread).
  void schedule(duration delay = duration::zero())
    requires std::is_void_v<T>
  {
    this->schedule_physical(detail::erased_value::empty_present(), delay);
  }
};

/// Fires at start + offset, then every period (period zero: once).
class timer final : public action_base {
 public:
  /// Fires at start + offset, then every period (zero: once). Neither may be negative
  /// (std::invalid_argument naming the timer).
  timer(reactor* container, std::string name, duration offset = duration::zero(),
        duration period = duration::zero())
      : action_base(std::move(name), container, kind::timer), offset_(offset), period_(period) {
    detail::require_not_negative("timer", *this, "offset", offset);
    detail::require_not_negative("timer", *this, "period", period);
  }
  /// Time from the start to the first event.
  duration offset() const noexcept { return offset_; }
  /// Time between events (zero: once).
  duration period() const noexcept { return period_; }

 private:
  duration offset_;
  duration period_;
};

namespace detail {
/// The action behind a startup or shutdown trigger.
class SPATE_API lifecycle_action final : public action_base {
 public:
  lifecycle_action(reactor* container, kind k)
      : action_base(k == kind::startup ? "startup" : "shutdown", container, k) {}
};
}  // namespace detail

/// Present at the first tag (startup) or at the last tag (shutdown) of a run. Every reactor
/// has one of each: `triggers(startup)`. The action behind it is made when a reaction first
/// declares it: most reactors never do, and a program of a million reactors would otherwise
/// carry two million actions. So only a reaction of a reactor that declared it sees it
/// present (and a top-level reactor's startup, which always exists: every program has its
/// startup tag); a reactor made by a mutation adds a startup tag only when it declared one.
class SPATE_API lifecycle_trigger {
 public:
  lifecycle_trigger(const lifecycle_trigger&) = delete;
  lifecycle_trigger& operator=(const lifecycle_trigger&) = delete;
  /// True at the tag it stands for, to a reaction that declared it.
  bool is_present() const noexcept { return action_ != nullptr && action_->is_present(); }
  /// The action behind it; null until a reaction declares it (or it is a top-level
  /// reactor's startup, which always exists: every program has its startup tag).
  action_base* action() const noexcept { return action_.get(); }

 protected:
  /// `owner`'s trigger for its first tag (`kind::startup`) or its last (`kind::shutdown`).
  lifecycle_trigger(reactor* owner, action_base::kind k) noexcept : owner_(owner), kind_(k) {}
  ~lifecycle_trigger() = default;

 private:
  template <class... E>
  friend class reaction_builder;
  friend class detail::assembler;
  /// The action behind it, made now if it was not yet (declaration and assembly only: an
  /// action made later would belong to no program).
  action_base& declared() {
    if (!action_) action_ = std::make_unique<detail::lifecycle_action>(owner_, kind_);
    return *action_;
  }
  reactor* owner_;
  action_base::kind kind_;
  std::unique_ptr<detail::lifecycle_action> action_;
};

/// Present at the program's first tag.
class SPATE_API startup_trigger final : public lifecycle_trigger {
 public:
  /// Every reactor's startup trigger.
  explicit startup_trigger(reactor* container) noexcept
      : lifecycle_trigger(container, action_base::kind::startup) {}
};
/// Present at the program's last tag.
class SPATE_API shutdown_trigger final : public lifecycle_trigger {
 public:
  /// Every reactor's shutdown trigger.
  explicit shutdown_trigger(reactor* container) noexcept
      : lifecycle_trigger(container, action_base::kind::shutdown) {}
};

}  // namespace spate::reactor
