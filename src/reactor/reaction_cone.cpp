// A tag's cone (reaction_scheduler.hpp, "One tag"): from the reactions the tag's events
// trigger (the seeds, in cone_), every reaction reachable in the dependency graph, with each
// one's count of predecessors in the cone, and those that are ready at once.
#include <vector>

#include "spate/reactor/detail/reaction_scheduler.hpp"

namespace spate::reactor::detail {

// By the advancer, before the tag's first reaction is handed out. Returns the reactions with
// no predecessor in the cone; cone_view_ is the cone.
const std::vector<reaction*>* reaction_scheduler::settle_cone() {
  // The cone: everything reachable from the seeds. A tag with one seed (the common case: one
  // action, one timer, one delayed input) reuses that seed's cone and counters, computed the
  // first time.
  const std::vector<reaction*>* ready = nullptr;
  if (cone_.size() == 1 && cone_.front()->index_ < solo_cones_.size()) {
    cone_cache& cache = solo_cones_[cone_.front()->index_];
    if (cache.graph_generation != graph_generation_) {
      cache.members.clear();
      cache.pending.clear();
      cache.ready.clear();
      cache.graph_generation = graph_generation_;
      compute_cone();
      cache.members = cone_;
      cache.edges = cone_edges_;
      for (reaction* r : cone_)
        cache.pending.push_back(r->pending_.load(std::memory_order_relaxed));
      for (reaction* r : cone_)
        if (r->pending_.load(std::memory_order_relaxed) == 0) cache.ready.push_back(r);
    } else {
      for (std::size_t i = 0; i < cache.members.size(); ++i) {
        reaction* r = cache.members[i];
        r->cone_generation_ = generation_;
        r->pending_.store(cache.pending[i], std::memory_order_relaxed);
      }
    }
    cone_view_ = &cache.members;
    cone_edges_ = cache.edges;
    ready = &cache.ready;
  } else {
    compute_cone();
    cone_view_ = &cone_;
    // Collect before handing out: a handed-out reaction may complete at once and bring
    // other counters to zero, and those are handed out by whoever completes it.
    ready_.clear();
    for (reaction* r : cone_)
      if (r->pending_.load(std::memory_order_relaxed) == 0) ready_.push_back(r);
    ready = &ready_;
  }
  return ready;
}

void reaction_scheduler::compute_cone() {
  cone_edges_ = 0;
  for (std::size_t i = 0; i < cone_.size(); ++i) {
    cone_edges_ += cone_[i]->successors_.size();
    for (reaction* s : cone_[i]->successors_)
      if (s->cone_generation_ != generation_) {
        s->cone_generation_ = generation_;
        cone_.push_back(s);
      }
  }
  for (reaction* r : cone_) {
    std::uint32_t pending = 0;
    for (reaction* p : r->predecessors_)
      if (p->cone_generation_ == generation_) ++pending;
    r->pending_.store(pending, std::memory_order_relaxed);
  }
}

}  // namespace spate::reactor::detail
