// Elements of a reactor program: names, registration in their reactor, and the port and
// action operations that reach the reaction scheduler.
#include <stdexcept>

#include "describe_time.hpp"

#include "spate/reactor/detail/reaction_scheduler.hpp"
#include "spate/reactor/environment.hpp"
#include "spate/reactor/mutation.hpp"
#include "spate/reactor/reactor.hpp"

namespace spate::reactor {

std::string element::fully_qualified_name() const {
  if (container_ == nullptr) return name_.str();
  std::string text = container_->fully_qualified_name();
  text += '.';
  text += name_.str();
  return text;
}

namespace detail {
void require_not_negative(const char* kind, const element& who, const char* what, duration value) {
  if (value >= duration::zero()) return;
  // Appended piece by piece: GCC 12's -Wrestrict misfires on chained operator+ at -O3.
  std::string text = kind;
  text += ' ';
  text += who.fully_qualified_name();
  text += ": ";
  text += what;
  text += ' ';
  text += describe_duration(value);
  text += " is negative (logical time never goes backwards)";
  throw std::invalid_argument(text);
}

namespace {
std::string describe_ports(std::span<port_base* const> ports) {
  if (ports.empty()) return "no ports";
  std::string text = ports.front()->fully_qualified_name();
  if (ports.size() > 1) {
    text += " and ";
    text += std::to_string(ports.size() - 1);
    text += " more";
  }
  return text;
}
}  // namespace

void reject_negative_connection_delay(std::span<port_base* const> from,
                                      std::span<port_base* const> to, const char* how,
                                      duration delay) {
  std::string text = "connect(";
  text += describe_ports(from);
  text += ", ";
  text += describe_ports(to);
  text += ").";
  text += how;
  text += '(';
  text += describe_duration(delay);
  text +=
      "): a negative delay would deliver a value before it was sent (logical time never "
      "goes backwards)";
  throw std::invalid_argument(text);
}
}  // namespace detail

port_base::port_base(std::string_view name, reactor* container, port_direction direction)
    : element(name, container), event_target(target_kind::port), direction_(direction) {
  join(container);
}

port_base::port_base(detail::channel_name name, reactor* container, port_direction direction)
    : element(name, container), event_target(target_kind::port), direction_(direction) {
  join(container);
}

void port_base::join(reactor* container) {
  if (container == nullptr) throw std::invalid_argument("a port needs its reactor: {this, name}");
  container->ports_.push_back(this);
}

void port_base::throw_absent() const {
  throw std::logic_error("port " + fully_qualified_name() +
                         " is absent at this tag (check is_present() before get())");
}

action_base::action_base(std::string name, reactor* container, kind k, action_options options)
    : element(std::move(name), container),
      event_target(k == kind::timer ? target_kind::timer : target_kind::other),
      kind_(k),
      min_delay_(options.min_delay) {
  if (options.min_spacing > duration::zero())
    spacing_ = std::make_unique<spacing>(spacing{
        .min_spacing = options.min_spacing, .policy = options.policy, .last_scheduled = {}});
  if (container == nullptr)
    throw std::invalid_argument("an action needs its reactor: {this, name}");
  if (options.min_delay < duration::zero() || options.min_spacing < duration::zero())
    throw std::invalid_argument("action " + fully_qualified_name() +
                                ": min_delay and min_spacing must not be negative");
  container->actions_.push_back(this);
}

void action_base::schedule_physical(detail::erased_value value, duration delay) {
  if (delay < duration::zero())
    throw std::invalid_argument("physical action " + fully_qualified_name() +
                                ": a negative delay (" + detail::describe_duration(delay) +
                                ") cannot be scheduled");
  auto* reactions = container()->env().reaction_scheduler();
  if (reactions == nullptr)
    throw std::logic_error("physical action " + fully_qualified_name() +
                           " scheduled before its environment was assembled");
  reactions->schedule_physical(*this, std::move(value), delay);
}

reaction::reaction(std::string name, reactor* container, std::size_t priority)
    : element(name.empty() ? "reaction_" + std::to_string(priority) : std::move(name), container),
      priority_(static_cast<std::uint32_t>(priority)) {}

reaction::~reaction() = default;

namespace detail {
pending_mutation& mutation_of(reaction& r, reactor& owner) {
  if (!r.mutation_)
    r.mutation_ = std::make_unique<pending_mutation>(pending_mutation{&owner, {}, {}, {}});
  return *r.mutation_;
}
}  // namespace detail

resume_result reaction::resume(std::size_t budget) {
  reaction_scheduler_->run_from(this, budget);
  return resume_result::awaiting;
}

void reaction::stage_logical(action_base& action, detail::erased_value value, duration delay) {
  if (delay < duration::zero()) {
    throw std::invalid_argument("reaction " + fully_qualified_name() + " scheduled action " +
                                action.fully_qualified_name() + " with a negative delay (" +
                                detail::describe_duration(delay) + ") at tag " +
                                detail::describe_tag(reaction_scheduler_->current_tag(),
                                                     reaction_scheduler_->start_time()) +
                                ": logical time never goes backwards");
  }
  if (action.action_kind() == action_base::kind::physical) {
    reaction_scheduler_->schedule_physical(action, std::move(value), delay);
    return;
  }
  staged_.push_back(detail::staged_event{&action, &action, std::move(value),
                                         action.options().min_delay + delay, false});
}

void set_port_value(reaction& by, port_base& port, detail::erased_value value) {
  // Listed once per tag (by its first writer): a sparse tag collects its readers from the
  // list, and every writer of a port runs before all of them.
  if (port.deliver_to_root(std::move(value))) by.set_ports_.push_back(&port);
  for (reaction* r : port.triggered_) r->triggered_.store(true, std::memory_order_relaxed);
  for (detail::delayed_connection* c : port.delayed_from_closure())
    by.staged_.push_back(detail::staged_event{c->to, nullptr, port.value_, c->delay, c->physical});
}

namespace detail {

void declare_trigger(reaction& r, action_base& a) {
  r.trigger_actions_.push_back(&a);
}
void declare_port(reaction& r, port_base& p, int role) {
  switch (role) {
    case 0:
      r.trigger_ports_.push_back(&p);
      break;
    case 1:
      r.source_ports_.push_back(&p);
      break;
    default:
      r.effect_ports_.push_back(&p);
      break;
  }
}
void declare_effect_action(reaction& r, action_base& a) {
  r.effect_actions_.push_back(&a);
}
std::size_t next_reaction_priority(reactor& owner) {
  return owner.reactions_.size() + 1;
}
void add_reaction(reactor& owner, std::unique_ptr<reaction> r) {
  owner.reactions_.push_back(r.get());  // may throw: `r` still owns it then
  r.release();                          // owned by the reactor now: ~reactor deletes it
}
void note_reaction_without_body(reactor& owner, const std::string& name) {
  owner.reactions_without_body_.push_back(name.empty() ? "(unnamed)" : name);
}

}  // namespace detail
}  // namespace spate::reactor
