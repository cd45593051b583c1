#include "spate/reactor/detail/assembler.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "spate/reactor/environment.hpp"

namespace spate::reactor::detail {

namespace {

bool is_child_of(const reactor* child, const reactor* parent) {
  return child != nullptr && child->container() == parent;
}

}  // namespace

void assembler::fail(const std::string& text) {
  throw assembly_error(text);
}

std::string assembler::fqn(const element& e) {
  return e.fully_qualified_name();
}

bool assembler::by_index(const reaction* a, const reaction* b) {
  return a->index_ < b->index_;
}

// Why an edge exists, for cycle reports: the port it follows, or the declaration order.
std::string assembler::edge_reason(reaction* from, reaction* to) {
  for (port_base* written : from->effect_ports_) {
    std::vector<port_base*> stack{written};
    while (!stack.empty()) {
      port_base* p = stack.back();
      stack.pop_back();
      for (reaction* r : p->readers_)
        if (r == to) return p == written ? fqn(*p) : fqn(*written) + " → " + fqn(*p);
      for (port_base* q : p->outward_) stack.push_back(q);
    }
  }
  if (from->container() == to->container()) return "declaration order";
  return "a new connection";
}

std::string assembler::describe_cycle(const std::vector<reaction*>& path, reaction* closing) {
  std::ostringstream text;
  text << "causality cycle: ";
  for (std::size_t i = 0; i < path.size(); ++i) {
    reaction* to = i + 1 < path.size() ? path[i + 1] : closing;
    text << fqn(*path[i]) << " -[" << edge_reason(path[i], to) << "]-> ";
  }
  text << fqn(*closing) << " (break it with a delay: connect(...).after(...) or a logical action)";
  return text.str();
}

std::vector<reaction*> assembler::reactions_of(const std::vector<reactor*>& reactors) {
  std::vector<reaction*> reactions;
  for (reactor* r : reactors) {
    if (!r->reactions_without_body_.empty())
      fail("reactor " + fqn(*r) + ": reaction '" + r->reactions_without_body_.front() +
           "' was declared without a body (end the declaration with .body(...))");
    for (reaction* x : r->reactions_) reactions.push_back(x);
  }
  return reactions;
}

std::vector<reactor*> assembler::collect(reactor* root) {
  std::vector<reactor*> out;
  auto walk = [&](auto& self, reactor* r) -> void {
    out.push_back(r);
    for (reactor* c : r->children_) self(self, c);
  };
  walk(walk, root);
  return out;
}

void assembler::declare(const std::vector<reaction*>& reactions) {
  check_declarations(reactions);
  record_declarations(reactions);
}

void assembler::check_declarations(const std::vector<reaction*>& reactions) {
  for (reaction* x : reactions) {
    reactor* owner = x->container();
    for (port_base* p : x->effect_ports_) {
      bool own_output = p->container() == owner && !p->is_input();
      bool child_input = is_child_of(p->container(), owner) && p->is_input();
      if (!own_output && !child_input)
        fail("reaction " + fqn(*x) + " declares " + fqn(*p) +
             " as an effect; a reaction may write its reactor's outputs and the inputs of "
             "reactors it contains");
    }
    auto check_readable = [&](port_base* p, const char* role) {
      bool own_port = p->container() == owner;
      bool child_output = is_child_of(p->container(), owner) && !p->is_input();
      if (!own_port && !child_output)
        fail("reaction " + fqn(*x) + " declares " + fqn(*p) + " as a " + role +
             "; a reaction may read its reactor's ports and the outputs of reactors it "
             "contains");
    };
    for (port_base* p : x->trigger_ports_) check_readable(p, "trigger");
    for (port_base* p : x->source_ports_) check_readable(p, "source");
    for (action_base* a : x->trigger_actions_)
      if (a->container() != owner)
        fail("reaction " + fqn(*x) + " declares " + fqn(*a) +
             " as a trigger; actions and timers trigger only reactions of their own reactor");
    for (action_base* a : x->effect_actions_)
      if (a->container() != owner)
        fail("reaction " + fqn(*x) + " declares " + fqn(*a) +
             " as an effect; a reaction schedules only its own reactor's actions");
  }
}

// After check_declarations(), so that a failed check leaves nothing behind.
void assembler::record_declarations(const std::vector<reaction*>& reactions) {
  for (reaction* x : reactions) {
    for (port_base* p : x->effect_ports_) p->writers_.push_back(x);
    for (port_base* p : x->trigger_ports_) p->readers_.push_back(x);
    for (port_base* p : x->source_ports_) p->readers_.push_back(x);
    for (action_base* a : x->trigger_actions_) a->triggered_.push_back(x);
  }
}

void assembler::check_connection(reactor* r, connection& c, bool& has_physical,
                                 bool through_own_ports) {
  auto describe = [&] {
    std::string text = "connection in " + fqn(*r) + " from ";
    text += c.from_.empty() ? "(nothing)" : fqn(*c.from_.front());
    if (c.from_.size() > 1) text += " … (" + std::to_string(c.from_.size()) + " ports)";
    text += " to ";
    text += c.to_.empty() ? "(nothing)" : fqn(*c.to_.front());
    if (c.to_.size() > 1) text += " … (" + std::to_string(c.to_.size()) + " ports)";
    return text;
  };
  if (c.from_.empty() || c.to_.empty()) fail(describe() + ": a side has no ports");
  if (!c.broadcast_ && c.from_.size() != c.to_.size())
    fail(describe() + ": widths differ (" + std::to_string(c.from_.size()) + " to " +
         std::to_string(c.to_.size()) +
         "); connect equal widths, or broadcast(...) the left side to repeat it");
  for (port_base* p : c.from_) {
    bool own_input = p->container() == r && p->is_input();
    bool child_output = is_child_of(p->container(), r) && !p->is_input();
    bool own_output = through_own_ports && p->container() == r && !p->is_input();
    if (!own_input && !child_output && !own_output)
      fail(describe() + ": " + fqn(*p) +
           " cannot be a source here; a connection leaves an input of " + fqn(*r) +
           " or an output of a reactor it contains");
  }
  for (port_base* p : c.to_) {
    bool own_output = p->container() == r && !p->is_input();
    bool child_input = is_child_of(p->container(), r) && p->is_input();
    bool own_input = through_own_ports && p->container() == r && p->is_input();
    if (!own_output && !child_input && !own_input)
      fail(describe() + ": " + fqn(*p) +
           " cannot be a destination here; a connection enters an output of " + fqn(*r) +
           " or an input of a reactor it contains");
  }
  if (c.physical_) has_physical = true;
}

void assembler::wire(connection& c, program& prog) {
  for (std::size_t i = 0; i < c.to_.size(); ++i) {
    port_base* from = c.from_[i % c.from_.size()];
    port_base* to = c.to_[i];
    to->inward_ = from;
    if (c.delay_.has_value()) {
      to->inward_is_delayed = true;
      prog.delayed_connections.push_back(std::make_unique<delayed_connection>(
          delayed_connection{from, to, *c.delay_, c.physical_}));
      from->delayed_links().leaving.push_back(prog.delayed_connections.back().get());
    } else {
      from->outward_.push_back(to);
    }
  }
}

void assembler::close_root(port_base* root) {
  root->triggered_.clear();
  if (root->delayed_ != nullptr) root->delayed_->from_closure.clear();
  root->channel_readers_.clear();
  std::vector<port_base*> stack{root};
  std::set<reaction*> seen;
  while (!stack.empty()) {
    port_base* p = stack.back();
    stack.pop_back();
    p->root_ = root;
    if (p->channel_entry_ != nullptr) root->channel_readers_.push_back(p->channel_entry_);
    for (reaction* x : p->readers_)
      if (std::find(x->trigger_ports_.begin(), x->trigger_ports_.end(), p) !=
              x->trigger_ports_.end() &&
          seen.insert(x).second)
        root->triggered_.push_back(x);
    for (delayed_connection* d : p->delayed_leaving())
      root->delayed_links().from_closure.push_back(d);
    for (port_base* q : p->outward_) stack.push_back(q);
  }
  std::sort(root->triggered_.begin(), root->triggered_.end(), by_index);
}

void assembler::add_edge(reaction* from, reaction* to) {
  if (std::find(from->successors_.begin(), from->successors_.end(), to) != from->successors_.end())
    return;
  from->successors_.push_back(to);
  to->predecessors_.push_back(from);
}

void assembler::assign_levels_and_check(const std::vector<reaction*>& reactions) {
  std::map<reaction*, std::size_t> in_degree;
  std::vector<reaction*> ready;
  for (reaction* x : reactions) {
    in_degree[x] = x->predecessors_.size();
    if (x->predecessors_.empty()) ready.push_back(x);
  }
  std::size_t sorted = 0;
  while (!ready.empty()) {
    reaction* x = ready.back();
    ready.pop_back();
    ++sorted;
    for (reaction* s : x->successors_) {
      s->level_ = std::max(s->level_, x->level_ + 1);
      if (--in_degree[s] == 0) ready.push_back(s);
    }
  }
  if (sorted == reactions.size()) return;
  // Walk successors that are still unsorted until one repeats: that is a cycle.
  reaction* start = nullptr;
  for (reaction* x : reactions)
    if (in_degree[x] != 0) {
      start = x;
      break;
    }
  std::vector<reaction*> path{start};
  std::map<reaction*, std::size_t> position{{start, 0}};
  for (;;) {
    reaction* next = nullptr;
    for (reaction* s : path.back()->successors_)
      if (in_degree[s] != 0) {
        next = s;
        break;
      }
    if (auto it = position.find(next); it != position.end())
      fail(describe_cycle(
          std::vector<reaction*>(path.begin() + std::ptrdiff_t(it->second), path.end()), next));
    position[next] = path.size();
    path.push_back(next);
  }
}

std::vector<action_base*> assembler::shutdown_triggers(const std::vector<reactor*>& tops) {
  std::vector<action_base*> triggers;
  for (reactor* top : tops)
    for (reactor* r : collect(top))
      if (action_base* made = r->shutdown.action()) triggers.push_back(made);
  return triggers;
}

program assembler::assemble(const std::vector<reactor*>& tops) {
  program prog;
  prog.tops = tops;
  for (reactor* top : tops) top->startup.declared();  // every program has its startup tag

  // 1. Collect, in tree order, and check declarations.
  std::vector<reactor*> reactors;
  for (reactor* top : tops)
    for (reactor* r : collect(top)) reactors.push_back(r);
  std::vector<reaction*> reactions = reactions_of(reactors);
  for (reactor* r : reactors) {
    for (action_base* a : r->actions_) {
      switch (a->action_kind()) {
        case action_base::kind::startup:
          prog.startup_triggers.push_back(a);
          break;
        case action_base::kind::shutdown:
          prog.shutdown_triggers.push_back(a);
          break;
        case action_base::kind::timer:
          prog.timers.push_back(static_cast<timer*>(a));
          break;
        case action_base::kind::physical:
          prog.has_physical_inputs = true;
          break;
        case action_base::kind::logical:
          break;
      }
    }
  }
  declare(reactions);

  // 2. Connections.
  for (reactor* r : reactors)
    for (connection* c : r->connections_) check_connection(r, *c, prog.has_physical_inputs, false);
  for (reactor* r : reactors) {
    for (connection* c : r->connections_) {
      for (std::size_t i = 0; i < c->to_.size(); ++i) {
        port_base* from = c->from_[i % c->from_.size()];
        port_base* to = c->to_[i];
        if (to->inward_ != nullptr)
          fail("port " + fqn(*to) + " has two writers: the connections from " + fqn(*to->inward_) +
               " and from " + fqn(*from));
        to->inward_ = from;  // provisional, for the check; wire() sets it for good
      }
    }
  }
  for (reactor* r : reactors)
    for (port_base* p : r->ports_) p->inward_ = nullptr;
  for (reactor* r : reactors)
    for (connection* c : r->connections_) wire(*c, prog);
  for (reactor* r : reactors)
    for (port_base* p : r->ports_)
      if (p->inward_ != nullptr && !p->writers_.empty())
        fail("port " + fqn(*p) + " has two writers: reaction " + fqn(*p->writers_.front()) +
             " and the connection from " + fqn(*p->inward_));

  // 4. The reaction graph (before roots: close_root sorts by index, assigned below).
  for (reaction* w : reactions) {
    for (port_base* written : w->effect_ports_) {
      std::vector<port_base*> stack{written};
      while (!stack.empty()) {
        port_base* p = stack.back();
        stack.pop_back();
        for (reaction* reader : p->readers_) add_edge(w, reader);
        for (port_base* q : p->outward_) stack.push_back(q);
      }
    }
  }
  for (reactor* r : reactors)
    for (std::size_t i = 1; i < r->reactions_.size(); ++i)
      add_edge(r->reactions_[i - 1], r->reactions_[i]);

  // 5. Levels, or the cycle.
  assign_levels_and_check(reactions);
  std::size_t max_level = 0;
  for (reaction* x : reactions) max_level = std::max<std::size_t>(max_level, x->level_);
  prog.level_count = reactions.empty() ? 0 : max_level + 1;

  // Index: level first, then tree order (stable), so equal-level reactions keep the
  // declaration order of their reactors.
  std::stable_sort(reactions.begin(), reactions.end(),
                   [](reaction* a, reaction* b) { return a->level_ < b->level_; });
  for (std::size_t i = 0; i < reactions.size(); ++i) reactions[i]->index_ = i;
  for (reaction* x : reactions) std::sort(x->successors_.begin(), x->successors_.end(), by_index);

  // 3. Roots (now that indices exist to order the triggered lists).
  for (reactor* r : reactors)
    for (port_base* p : r->ports_)
      if (p->inward_ == nullptr || p->inward_is_delayed) close_root(p);
  prog.reactions = std::move(reactions);
  return prog;
}

}  // namespace spate::reactor::detail
