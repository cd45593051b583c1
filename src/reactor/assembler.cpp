#include "spate/reactor/detail/assembler.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "spate/reactor/environment.hpp"

namespace spate::reactor::detail {

namespace {

[[noreturn]] void fail(const std::string& text) {
  throw assembly_error(text);
}

std::string fqn(const element& e) {
  return e.fully_qualified_name();
}

bool is_child_of(const reactor* child, const reactor* parent) {
  return child != nullptr && child->container() == parent;
}

}  // namespace

program assembler::assemble(const std::vector<reactor*>& tops) {
  program prog;

  // 1. Collect, in tree order.
  std::vector<reactor*> reactors;
  auto collect = [&](auto& self, reactor* r) -> void {
    reactors.push_back(r);
    for (reactor* c : r->children_) self(self, c);
  };
  for (reactor* top : tops) collect(collect, top);
  std::vector<reaction*> reactions;
  for (reactor* r : reactors) {
    if (!r->reactions_without_body_.empty())
      fail("reactor " + fqn(*r) + ": reaction '" + r->reactions_without_body_.front() +
           "' was declared without a body (end the declaration with .body(...))");
    for (auto& x : r->reactions_) reactions.push_back(x.get());
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

  // Declarations: what a reaction of reactor R may touch.
  for (reaction* x : reactions) {
    reactor* owner = x->container();
    for (port_base* p : x->effect_ports_) {
      bool own_output = p->container() == owner && !p->is_input();
      bool child_input = is_child_of(p->container(), owner) && p->is_input();
      if (!own_output && !child_input)
        fail("reaction " + fqn(*x) + " declares " + fqn(*p) +
             " as an effect; a reaction may write its reactor's outputs and the inputs of "
             "reactors it contains");
      p->writers_.push_back(x);
    }
    auto check_readable = [&](port_base* p, const char* role) {
      bool own_port = p->container() == owner;
      bool child_output = is_child_of(p->container(), owner) && !p->is_input();
      if (!own_port && !child_output)
        fail("reaction " + fqn(*x) + " declares " + fqn(*p) + " as a " + role +
             "; a reaction may read its reactor's ports and the outputs of reactors it "
             "contains");
      p->readers_.push_back(x);
    };
    for (port_base* p : x->trigger_ports_) check_readable(p, "trigger");
    for (port_base* p : x->source_ports_) check_readable(p, "source");
    for (action_base* a : x->trigger_actions_) {
      if (a->container() != owner)
        fail("reaction " + fqn(*x) + " declares " + fqn(*a) +
             " as a trigger; actions and timers trigger only reactions of their own reactor");
      a->triggered_.push_back(x);
    }
    for (action_base* a : x->effect_actions_) {
      if (a->container() != owner)
        fail("reaction " + fqn(*x) + " declares " + fqn(*a) +
             " as an effect; a reaction schedules only its own reactor's actions");
    }
  }

  // 2. Connections.
  for (reactor* r : reactors) {
    for (connection& c : r->connections_) {
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
        if (!own_input && !child_output)
          fail(describe() + ": " + fqn(*p) +
               " cannot be a source here; a connection leaves an input of " + fqn(*r) +
               " or an output of a reactor it contains");
      }
      for (port_base* p : c.to_) {
        bool own_output = p->container() == r && !p->is_input();
        bool child_input = is_child_of(p->container(), r) && p->is_input();
        if (!own_output && !child_input)
          fail(describe() + ": " + fqn(*p) +
               " cannot be a destination here; a connection enters an output of " + fqn(*r) +
               " or an input of a reactor it contains");
      }
      if (c.physical_) prog.has_physical_inputs = true;
      for (std::size_t i = 0; i < c.to_.size(); ++i) {
        port_base* from = c.from_[i % c.from_.size()];
        port_base* to = c.to_[i];
        if (to->inward_ != nullptr)
          fail("port " + fqn(*to) + " has two writers: the connections from " + fqn(*to->inward_) +
               " and from " + fqn(*from));
        to->inward_ = from;
        if (c.delay_.has_value()) {
          to->inward_is_delayed = true;
          prog.delayed_connections.push_back(std::make_unique<delayed_connection>(
              delayed_connection{from, to, *c.delay_, c.physical_}));
        } else {
          from->outward_.push_back(to);
        }
      }
    }
  }
  for (reactor* r : reactors) {
    for (port_base* p : r->ports_) {
      if (p->inward_ != nullptr && !p->writers_.empty())
        fail("port " + fqn(*p) + " has two writers: reaction " + fqn(*p->writers_.front()) +
             " and the connection from " + fqn(*p->inward_));
    }
  }

  // 3. Roots, triggered reactions and delayed connections per root.
  std::map<port_base*, std::vector<delayed_connection*>> delayed_from;
  for (auto& d : prog.delayed_connections) delayed_from[d->from].push_back(d.get());
  for (reactor* r : reactors) {
    for (port_base* root : r->ports_) {
      if (root->inward_ != nullptr && !root->inward_is_delayed) continue;
      std::vector<port_base*> stack{root};
      std::set<reaction*> seen;
      while (!stack.empty()) {
        port_base* p = stack.back();
        stack.pop_back();
        p->root_ = root;
        for (reaction* x : p->readers_)
          if (std::find(x->trigger_ports_.begin(), x->trigger_ports_.end(), p) !=
                  x->trigger_ports_.end() &&
              seen.insert(x).second)
            root->triggered_.push_back(x);
        if (auto it = delayed_from.find(p); it != delayed_from.end())
          for (delayed_connection* d : it->second) root->delayed_.push_back(d);
        for (port_base* q : p->outward_) stack.push_back(q);
      }
    }
  }

  // 4. The reaction graph, each edge with the port it follows (for cycle reports).
  std::map<std::pair<reaction*, reaction*>, std::string> edge_reason;
  auto add_edge = [&](reaction* from, reaction* to, std::string why) {
    auto [it, inserted] = edge_reason.try_emplace({from, to}, std::move(why));
    if (inserted) {
      from->successors_.push_back(to);
      to->predecessors_.push_back(from);
    }
  };
  for (reaction* w : reactions) {
    for (port_base* written : w->effect_ports_) {
      std::vector<port_base*> stack{written};
      while (!stack.empty()) {
        port_base* p = stack.back();
        stack.pop_back();
        for (reaction* reader : p->readers_)
          add_edge(w, reader, p == written ? fqn(*p) : fqn(*written) + " → " + fqn(*p));
        for (port_base* q : p->outward_) stack.push_back(q);
      }
    }
  }
  for (reactor* r : reactors)
    for (std::size_t i = 1; i < r->reactions_.size(); ++i)
      add_edge(r->reactions_[i - 1].get(), r->reactions_[i].get(), "declaration order");

  // 5. Topological order and levels (Kahn), or the cycle.
  std::map<reaction*, std::size_t> in_degree;
  std::vector<reaction*> ready;
  for (reaction* x : reactions) {
    in_degree[x] = x->predecessors_.size();
    if (x->predecessors_.empty()) ready.push_back(x);
  }
  std::size_t sorted = 0;
  std::size_t max_level = 0;
  while (!ready.empty()) {
    reaction* x = ready.back();
    ready.pop_back();
    ++sorted;
    max_level = std::max(max_level, x->level_);
    for (reaction* s : x->successors_) {
      s->level_ = std::max(s->level_, x->level_ + 1);
      if (--in_degree[s] == 0) ready.push_back(s);
    }
  }
  if (sorted != reactions.size()) {
    // Walk predecessors that are still unsorted until one repeats: that is a cycle.
    reaction* start = nullptr;
    for (reaction* x : reactions)
      if (in_degree[x] != 0) {
        start = x;
        break;
      }
    std::vector<reaction*> path{start};
    std::map<reaction*, std::size_t> position{{start, 0}};
    for (;;) {
      reaction* current = path.back();
      reaction* next = nullptr;
      for (reaction* s : current->successors_)
        if (in_degree[s] != 0) {
          next = s;
          break;
        }
      if (auto it = position.find(next); it != position.end()) {
        std::ostringstream text;
        text << "causality cycle: ";
        for (std::size_t i = it->second; i < path.size(); ++i) {
          reaction* to = i + 1 < path.size() ? path[i + 1] : next;
          text << fqn(*path[i]) << " -[" << edge_reason[{path[i], to}] << "]-> ";
        }
        text << fqn(*next)
             << " (break it with a delay: connect(...).after(...) or a logical action)";
        fail(text.str());
      }
      position[next] = path.size();
      path.push_back(next);
    }
  }
  prog.level_count = reactions.empty() ? 0 : max_level + 1;

  // Index: level first, then tree order (stable), so equal-level reactions keep the
  // declaration order of their reactors.
  std::stable_sort(reactions.begin(), reactions.end(),
                   [](reaction* a, reaction* b) { return a->level_ < b->level_; });
  for (std::size_t i = 0; i < reactions.size(); ++i) {
    reactions[i]->index_ = i;
    prog.reaction_names.push_back(fqn(*reactions[i]));
  }
  // Successor lists in index order, so hand-out order does not depend on declaration order
  // of connections.
  for (reaction* x : reactions)
    std::sort(x->successors_.begin(), x->successors_.end(),
              [](reaction* a, reaction* b) { return a->index_ < b->index_; });
  for (reactor* r : reactors)
    for (port_base* p : r->ports_) {
      auto& t = p->triggered_;
      std::sort(t.begin(), t.end(), [](reaction* a, reaction* b) { return a->index_ < b->index_; });
    }
  prog.reactions = std::move(reactions);
  return prog;
}

}  // namespace spate::reactor::detail
