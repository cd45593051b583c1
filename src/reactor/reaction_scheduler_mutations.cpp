// The reaction scheduler's side of mutations (mutation.hpp): when a tag ends, with no
// reaction running, the tag's mutations join the program in reaction order (checked and wired
// by assembler::add, mutation_assembler.cpp) or are rejected whole and reported; removals
// unwire subtrees and drop their pending events. A failed reaction's mutation is dropped.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "spate/exec/runtime.hpp"
#include "spate/reactor/detail/assembler.hpp"
#include "spate/reactor/detail/reaction_scheduler.hpp"

namespace spate::reactor::detail {

// At the end of a tag, under the lock: the tag's mutations in reaction order.
void reaction_scheduler::apply_mutations_locked() {
  std::sort(mutated_by_.begin(), mutated_by_.end(),
            [](reaction* a, reaction* b) { return a->index_ < b->index_; });
  // Taken out first: a mutation may remove a reactor whose own reaction also mutated.
  std::vector<std::unique_ptr<pending_mutation>> batch;
  for (reaction* r : mutated_by_) batch.push_back(std::move(r->mutation_));
  mutated_by_.clear();
  for (auto& m : batch)
    if (removed_this_tag_.count(m->owner) == 0) apply_mutation_locked(*m);  // else dropped
  if (first_removed_slot_ != SIZE_MAX) close_removed_slots_locked();
  publish_counts();
  removed_this_tag_.clear();
  graveyard_.clear();  // frees what was removed, now that no mutation refers to it
}

// A removal leaves null slots in the reaction table (assembler::remove). Closing them up
// keeps the table, and everything this scheduler keeps by reaction index, proportional to the
// live program however many reactors come and go. The survivors keep their relative order, so
// the total order the indices define (staged events, mutations and failures within a tag) is
// the same as before the removal; only the numbers change, and each per-index entry moves with
// its reaction. The walk starts at the first slot removed, so removing recently created
// reactors (the usual case: they are at the end) costs in proportion to them, not the program.
void reaction_scheduler::close_removed_slots_locked() {
  std::vector<reaction*>& all = program_.reactions;
  const auto move_entry = [](auto& by_index, std::size_t from, std::size_t to) {
    // An entry beyond the end (never filled: seed_stats_ grows lazily) still overwrites the
    // one at `to`, which belonged to another reaction.
    if (from < by_index.size()) {
      by_index[to] = std::move(by_index[from]);
    } else if (to < by_index.size()) {
      by_index[to] = {};
    }
  };
  std::size_t kept = first_removed_slot_;  // every slot before it is still filled
  first_removed_slot_ = SIZE_MAX;
  for (std::size_t i = kept; i < all.size(); ++i) {
    reaction* r = all[i];
    if (r == nullptr) continue;
    if (i != kept) {
      all[kept] = r;
      r->index_ = static_cast<std::uint32_t>(kept);
      move_entry(solo_cones_, i, kept);
      move_entry(seed_stats_, i, kept);
      move_entry(trace_name_of_, i, kept);
    }
    ++kept;
  }
  all.resize(kept);
  const auto truncate = [kept](auto& by_index) {
    if (by_index.size() > kept) by_index.resize(kept);
  };
  truncate(seed_stats_);
  truncate(trace_name_of_);
  fit_cone_caches();
}

// The created reactors registered themselves in their owner when constructed; a mutation that
// does not happen takes them out again before they are destroyed.
void reaction_scheduler::forget_created(pending_mutation& m) {
  auto& children = m.owner->children_;
  for (auto& r : m.created)
    children.erase(std::remove(children.begin(), children.end(), r.get()), children.end());
  m.created.clear();  // destroyed: the program never saw them
}

// The mutation of a reaction that threw is dropped whole: applying the part it had asked for
// before the exception would run a program nobody wrote (a created reactor without the
// connections that were to follow).
void reaction_scheduler::drop_mutation(reaction* r) {
  std::unique_ptr<pending_mutation> m = std::move(r->mutation_);
  forget_created(*m);
}

void reaction_scheduler::apply_mutation_locked(pending_mutation& m) {
  reactor& owner = *m.owner;
  if (!m.created.empty() || !m.connections.empty()) {
    std::vector<reactor*> roots;
    for (auto& r : m.created) roots.push_back(r.get());
    std::vector<connection*> connections;
    for (auto& c : m.connections) connections.push_back(c.get());
    try {
      auto added = assembler::add(program_, owner, roots, connections);
      for (reaction* r : added.added_reactions) r->reaction_scheduler_ = this;
      name_new_reactions_for_trace();
      fit_cone_caches();
      ++graph_generation_;
      if (by_level_.size() < program_.level_count) by_level_.resize(program_.level_count);
      const tag next = current_.delayed_by(duration::zero());
      for (action_base* s : added.added_startup)
        place_locked(s, nullptr, next, erased_value::empty_present());
      for (timer* t : added.added_timers) {
        place_locked(t, nullptr,
                     t->offset() == duration::zero() ? next : tag{current_.time + t->offset(), 0},
                     erased_value::empty_present());
      }
      for (auto& r : m.created) owner.created().reactors.push_back(std::move(r));
      for (auto& c : m.connections) owner.created().connections.push_back(std::move(c));
    } catch (const assembly_error& e) {
      rejected_mutations_.fetch_add(1, std::memory_order_relaxed);
      forget_created(m);
      runtime_->report_error(std::string("reactor ") + owner.fully_qualified_name() + ": " +
                             e.what());
    }
  }
  for (reactor* gone : m.removed) {
    auto& made = owner.created();
    auto it = std::find_if(made.reactors.begin(), made.reactors.end(),
                           [&](const std::unique_ptr<reactor>& r) { return r.get() == gone; });
    if (it == made.reactors.end()) {
      rejected_mutations_.fetch_add(1, std::memory_order_relaxed);
      // (Not named: it may be a reactor whose creation was rejected, already freed.)
      runtime_->report_error("reactor " + owner.fully_qualified_name() +
                             ": a mutation removes only reactors a mutation of it created (and "
                             "that were not rejected); this removal is ignored");
      continue;
    }
    if (removed_this_tag_.count(gone) != 0) continue;  // removed twice at one tag
    auto targets = assembler::remove(program_, *gone);
    std::set<event_target*> dropped(targets.begin(), targets.end());
    queue_.drop_targets(dropped);
    std::set<reactor*> inside;
    for (reactor* r : assembler::collect(gone)) {
      inside.insert(r);
      removed_this_tag_.insert(r);
      for (reaction* x : r->reactions_)
        first_removed_slot_ = std::min<std::size_t>(first_removed_slot_, x->index_);
    }
    auto& conns = made.connections;
    conns.erase(std::remove_if(conns.begin(), conns.end(),
                               [&](const std::unique_ptr<connection>& c) {
                                 return c->touches([&](const port_base* p) {
                                   return inside.count(p->container()) != 0;
                                 });
                               }),
                conns.end());
    graveyard_.push_back(std::move(*it));  // freed after the batch
    made.reactors.erase(it);
    ++graph_generation_;
  }
}

}  // namespace spate::reactor::detail
