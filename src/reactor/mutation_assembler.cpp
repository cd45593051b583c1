// Assembly for mutations (mutation.hpp): the part of a program a mutation adds, checked and
// wired in incrementally (new edges, one topological sort of the region a cycle could use,
// levels raised where a new edge demands it), and the subtree a mutation removes, unwired.
// The static assembly of a whole program, whose checks these reuse, is in assembler.cpp.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "spate/reactor/detail/assembler.hpp"
#include "spate/reactor/environment.hpp"

namespace spate::reactor::detail {

assembler::mutation_result assembler::add(program& prog, reactor& owner,
                                          const std::vector<reactor*>& created_roots,
                                          const std::vector<connection*>& connections) {
  // Everything new: the created subtrees with their reactions and connections.
  std::vector<reactor*> reactors;
  for (reactor* root : created_roots)
    for (reactor* r : collect(root)) reactors.push_back(r);
  std::vector<reaction*> reactions = reactions_of(reactors);
  std::vector<std::pair<reactor*, connection*>> all_connections;
  for (reactor* r : reactors)
    for (connection* c : r->connections_) all_connections.emplace_back(r, c);
  for (connection* c : connections) all_connections.emplace_back(&owner, c);
  bool physical = false;
  std::set<connection*> mutator_connections(connections.begin(), connections.end());
  for (auto& [r, c] : all_connections)
    check_connection(r, *c, physical, mutator_connections.count(c) != 0);
  if (physical && !prog.has_physical_inputs)
    fail("a mutation cannot add a physical connection to a program that was not kept alive");

  // Two writers, among the new connections and against the existing ones.
  std::map<port_base*, port_base*> new_inward;
  for (auto& [r, c] : all_connections)
    for (std::size_t i = 0; i < c->to_.size(); ++i) {
      port_base* from = c->from_[i % c->from_.size()];
      port_base* to = c->to_[i];
      port_base* existing = to->inward_ != nullptr ? to->inward_ : nullptr;
      if (existing == nullptr)
        if (auto it = new_inward.find(to); it != new_inward.end()) existing = it->second;
      if (existing != nullptr)
        fail("port " + fqn(*to) + " has two writers: the connections from " + fqn(*existing) +
             " and from " + fqn(*from));
      if (!to->writers_.empty())
        fail("port " + fqn(*to) + " has two writers: reaction " + fqn(*to->writers_.front()) +
             " and the connection from " + fqn(*from));
      new_inward[to] = from;
    }
  for (reaction* w : reactions)
    for (port_base* p : w->effect_ports_)
      if (new_inward.count(p) != 0)
        fail("port " + fqn(*p) + " has two writers: reaction " + fqn(*w) +
             " and the connection from " + fqn(*new_inward[p]));

  // The new edges, computed over the graph as it would be, without changing it yet.
  std::map<port_base*, std::vector<port_base*>> extra_outward;
  for (auto& [r, c] : all_connections)
    if (!c->delay_.has_value())
      for (std::size_t i = 0; i < c->to_.size(); ++i)
        extra_outward[c->from_[i % c->from_.size()]].push_back(c->to_[i]);
  // A mutation that fails any check leaves the program as it was: the declarations are
  // checked before any edge is added (their ports are recorded only once everything passed),
  // and a self-loop is refused before the first edge goes in.
  check_declarations(reactions);
  // Readers of the new reactions are known only after declare(); gather them tentatively.
  std::map<port_base*, std::vector<reaction*>> extra_readers;
  for (reaction* x : reactions) {
    for (port_base* p : x->trigger_ports_) extra_readers[p].push_back(x);
    for (port_base* p : x->source_ports_) extra_readers[p].push_back(x);
  }
  auto readers_of_closure = [&](port_base* start) {
    std::vector<reaction*> readers;
    std::vector<port_base*> stack{start};
    std::set<port_base*> seen;
    while (!stack.empty()) {
      port_base* p = stack.back();
      stack.pop_back();
      if (!seen.insert(p).second) continue;
      readers.insert(readers.end(), p->readers_.begin(), p->readers_.end());
      if (auto it = extra_readers.find(p); it != extra_readers.end())
        readers.insert(readers.end(), it->second.begin(), it->second.end());
      for (port_base* q : p->outward_) stack.push_back(q);
      if (auto it = extra_outward.find(p); it != extra_outward.end())
        for (port_base* q : it->second) stack.push_back(q);
    }
    return readers;
  };
  auto upstream_root = [&](port_base* p) {
    for (;;) {
      if (p->inward_ != nullptr && !p->inward_is_delayed) {
        p = p->inward_;
        continue;
      }
      auto it = new_inward.find(p);
      if (it != new_inward.end() && extra_outward.count(it->second) != 0 &&
          std::find(extra_outward[it->second].begin(), extra_outward[it->second].end(), p) !=
              extra_outward[it->second].end()) {
        p = it->second;
        continue;
      }
      return p;
    }
  };
  edge_list edges;
  std::set<std::pair<reaction*, reaction*>> edge_seen;
  auto candidate = [&](reaction* from, reaction* to) {
    if (edge_seen.insert({from, to}).second) edges.emplace_back(from, to);
  };
  std::map<port_base*, std::vector<reaction*>> new_writers;
  for (reaction* w : reactions)
    for (port_base* p : w->effect_ports_) new_writers[p].push_back(w);
  for (auto& [r, c] : all_connections)
    if (!c->delay_.has_value())
      for (std::size_t i = 0; i < c->to_.size(); ++i) {
        port_base* root = upstream_root(c->from_[i % c->from_.size()]);
        std::vector<reaction*> writers(root->writers_.begin(), root->writers_.end());
        if (auto it = new_writers.find(root); it != new_writers.end())
          writers.insert(writers.end(), it->second.begin(), it->second.end());
        for (reaction* reader : readers_of_closure(c->to_[i]))
          for (reaction* w : writers) candidate(w, reader);
      }
  for (reaction* w : reactions)
    for (port_base* written : w->effect_ports_)
      for (reaction* reader : readers_of_closure(written)) candidate(w, reader);
  for (reactor* r : reactors)
    for (std::size_t i = 1; i < r->reactions_.size(); ++i)
      candidate(r->reactions_[i - 1], r->reactions_[i]);

  // Cycle check, one pass for the whole mutation. The graph before it is acyclic, so a cycle
  // uses a new edge. Add the new edges, sort a region that holds every possible cycle
  // topologically (Kahn), and undo the edges if it does not sort:
  // - Commonly the new edges leave old reactions only into new ones (old -> new) and enter
  //   old reactions only from new ones (new -> old). A cycle through old reactions would
  //   then have to go from an old -> new edge's target, through new reactions, to a
  //   new -> old edge's source. When no such path exists, the region is the new reactions.
  // - Otherwise, the region is everything reachable from the new edges' targets.
  // The same order then sets the levels in one sweep, and levels are raised past the
  // region's edge only where an edge now demands it.
  for (auto& [u, v] : edges)
    if (u == v) fail("mutation rejected: " + describe_cycle({u}, u));
  std::vector<std::pair<reaction*, reaction*>> added;
  for (auto& [u, v] : edges) {
    if (std::find(u->successors_.begin(), u->successors_.end(), v) != u->successors_.end())
      continue;
    u->successors_.push_back(v);
    v->predecessors_.push_back(u);
    added.emplace_back(u, v);
  }
  const std::set<reaction*> is_new(reactions.begin(), reactions.end());
  auto fresh = [&](reaction* x) { return is_new.count(x) != 0; };
  bool region_is_new_reactions = true;
  {
    std::set<reaction*> leaves_new;  // sources of new -> old edges
    std::vector<reaction*> stack;    // targets of old -> new edges, then what they reach
    for (auto& [u, v] : added) {
      if (!fresh(u) && !fresh(v)) region_is_new_reactions = false;
      if (fresh(u) && !fresh(v)) leaves_new.insert(u);
      if (!fresh(u) && fresh(v)) stack.push_back(v);
    }
    std::set<reaction*> seen(stack.begin(), stack.end());
    while (region_is_new_reactions && !stack.empty()) {
      reaction* x = stack.back();
      stack.pop_back();
      if (leaves_new.count(x) != 0) region_is_new_reactions = false;
      for (reaction* s : x->successors_)
        if (fresh(s) && seen.insert(s).second) stack.push_back(s);
    }
  }
  std::unordered_map<reaction*, std::size_t> in_region_degree;  // in-edges from the region
  for (reaction* x : reactions) in_region_degree.emplace(x, 0);
  if (!region_is_new_reactions) {
    std::vector<reaction*> stack(reactions.begin(), reactions.end());
    for (auto& [u, v] : added)
      if (in_region_degree.emplace(v, 0).second) stack.push_back(v);
    while (!stack.empty()) {
      reaction* x = stack.back();
      stack.pop_back();
      for (reaction* s : x->successors_)
        if (in_region_degree.emplace(s, 0).second) stack.push_back(s);
    }
  }
  auto in_region = [&](reaction* x) { return in_region_degree.count(x) != 0; };
  for (auto& [x, degree] : in_region_degree)
    for (reaction* s : x->successors_)
      if (in_region(s)) ++in_region_degree[s];
  std::vector<reaction*> order, ready;
  for (auto& [x, degree] : in_region_degree)
    if (degree == 0) ready.push_back(x);
  while (!ready.empty()) {
    reaction* x = ready.back();
    ready.pop_back();
    order.push_back(x);
    for (reaction* s : x->successors_)
      if (in_region(s) && --in_region_degree[s] == 0) ready.push_back(s);
  }
  if (order.size() != in_region_degree.size()) {
    // Walk unsorted successors until one repeats: that is a cycle. Then restore the graph.
    // Start from a new edge's target, in mutation order, so the message does not depend on
    // hashing.
    reaction* start = nullptr;
    for (auto& [u, v] : added)
      if (in_region(v) && in_region_degree[v] != 0) {
        start = v;
        break;
      }
    for (auto& [x, degree] : in_region_degree)
      if (start == nullptr && degree != 0) start = x;
    std::vector<reaction*> path{start};
    std::map<reaction*, std::size_t> position{{start, 0}};
    std::string cycle;
    while (cycle.empty()) {
      reaction* next = nullptr;
      for (reaction* s : path.back()->successors_)
        if (in_region(s) && in_region_degree[s] != 0) {
          next = s;
          break;
        }
      if (auto it = position.find(next); it != position.end()) {
        cycle = describe_cycle(
            std::vector<reaction*>(path.begin() + std::ptrdiff_t(it->second), path.end()), next);
      } else {
        position[next] = path.size();
        path.push_back(next);
      }
    }
    for (auto it = added.rbegin(); it != added.rend(); ++it) {
      auto [u, v] = *it;
      u->successors_.pop_back();  // undone newest first: each is then its vector's last
      v->predecessors_.erase_value(u);
    }
    fail("mutation rejected: " + cycle);
  }

  // Checked: change the program.
  record_declarations(reactions);
  for (auto& [r, c] : all_connections) wire(*c, prog);
  mutation_result result;
  for (reaction* x : reactions) {
    x->index_ = prog.reactions.size();
    prog.reactions.push_back(x);
    result.added_reactions.push_back(x);
  }
  // Levels: in topological order every predecessor is final before its successors. A
  // predecessor outside the region kept its level, which the old edges already respect.
  std::vector<reaction*> raise;
  for (reaction* x : order) {
    for (reaction* p : x->predecessors_) x->level_ = std::max(x->level_, p->level_ + 1);
    prog.level_count = std::max<std::size_t>(prog.level_count, x->level_ + 1);
    for (reaction* s : x->successors_)
      if (!in_region(s) && s->level_ <= x->level_) raise.push_back(s);
  }
  while (!raise.empty()) {
    reaction* x = raise.back();
    raise.pop_back();
    for (reaction* p : x->predecessors_) x->level_ = std::max(x->level_, p->level_ + 1);
    prog.level_count = std::max<std::size_t>(prog.level_count, x->level_ + 1);
    for (reaction* s : x->successors_)
      if (s->level_ <= x->level_) raise.push_back(s);
  }
  std::set<reaction*> widened;
  for (auto& [u, v] : added)
    if (widened.insert(u).second) std::sort(u->successors_.begin(), u->successors_.end(), by_index);
  // Roots: every new port, and the roots upstream of each new connection.
  std::set<port_base*> roots;
  for (reactor* r : reactors)
    for (port_base* p : r->ports_)
      if (p->inward_ == nullptr || p->inward_is_delayed) roots.insert(p);
  for (auto& [r, c] : all_connections)
    for (std::size_t i = 0; i < c->to_.size(); ++i) {
      port_base* from = c->from_[i % c->from_.size()];
      while (from->inward_ != nullptr && !from->inward_is_delayed) from = from->inward_;
      roots.insert(from);
      if (c->delay_.has_value()) roots.insert(c->to_[i]);
    }
  for (port_base* root : roots) close_root(root);
  for (reactor* r : reactors)
    for (action_base* a : r->actions_) {
      if (a->action_kind() == action_base::kind::startup) result.added_startup.push_back(a);
      if (a->action_kind() == action_base::kind::shutdown) result.added_shutdown.push_back(a);
      if (a->action_kind() == action_base::kind::timer)
        result.added_timers.push_back(static_cast<timer*>(a));
    }
  return result;
}

std::vector<event_target*> assembler::remove(program& prog, reactor& subtree_root) {
  std::vector<reactor*> reactors = collect(&subtree_root);
  std::set<reactor*> inside(reactors.begin(), reactors.end());
  std::set<port_base*> ports;
  std::vector<event_target*> targets;
  for (reactor* r : reactors) {
    for (port_base* p : r->ports_) {
      ports.insert(p);
      targets.push_back(p);
    }
    for (action_base* a : r->actions_) targets.push_back(a);
  }
  // Unwire every channel with an end inside; remember the outside roots that change.
  std::set<port_base*> outside_roots;
  for (port_base* p : ports) {
    if (p->inward_ != nullptr && ports.count(p->inward_) == 0) {
      port_base* from = p->inward_;
      auto& out = from->outward_;
      out.erase(std::remove(out.begin(), out.end(), p), out.end());
      if (from->delayed_ != nullptr) {
        auto& delayed = from->delayed_->leaving;
        delayed.erase(std::remove_if(delayed.begin(), delayed.end(),
                                     [&](delayed_connection* d) { return d->to == p; }),
                      delayed.end());
      }
      while (from->inward_ != nullptr && !from->inward_is_delayed) from = from->inward_;
      outside_roots.insert(from);
    }
    for (port_base* q : p->outward_)
      if (ports.count(q) == 0) {
        q->inward_ = nullptr;
        outside_roots.insert(q);
      }
    for (delayed_connection* d : p->delayed_leaving())
      if (ports.count(d->to) == 0) {
        d->to->inward_ = nullptr;
        d->to->inward_is_delayed = false;
        outside_roots.insert(d->to);
      }
  }
  auto& dc = prog.delayed_connections;
  dc.erase(std::remove_if(dc.begin(), dc.end(),
                          [&](const std::unique_ptr<delayed_connection>& d) {
                            return ports.count(d->from) != 0 || ports.count(d->to) != 0;
                          }),
           dc.end());
  // Edges and registries.
  std::set<reaction*> gone;
  for (reactor* r : reactors)
    for (reaction* x : r->reactions_) gone.insert(x);
  for (reaction* x : gone) {
    for (reaction* s : x->successors_) {
      auto& preds = s->predecessors_;
      preds.erase(std::remove(preds.begin(), preds.end(), x), preds.end());
    }
    for (reaction* p : x->predecessors_) {
      auto& succ = p->successors_;
      succ.erase(std::remove(succ.begin(), succ.end(), x), succ.end());
    }
    prog.reactions[x->index_] = nullptr;  // closed up after the tag's mutations
  }
  // A walk up from an outside port may have stopped at a port inside the subtree (an outside
  // port fed from inside, not yet unwired when the walk passed it); that one is about to be
  // freed and must not become anyone's root. The outside port it fed is in the set itself.
  for (port_base* root : outside_roots)
    if (ports.count(root) == 0) close_root(root);
  // (The startup, shutdown and timer lists are the start's; the shutdown tag collects the
  // shutdown triggers of the reactors alive then, so nothing here scans the whole program.)
  auto& siblings = subtree_root.container()->children_;
  siblings.erase(std::remove(siblings.begin(), siblings.end(), &subtree_root), siblings.end());
  return targets;
}

}  // namespace spate::reactor::detail
