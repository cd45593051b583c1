// Savina's dynamic-creation benchmarks that grow a tree on demand, as spate reactors (impl
// `spate-reactor`): uct (a tree grown on a root's decisions, then traversed) and facloc (a
// quadtree whose quadrants split as customers arrive). Every reactor is created by a
// mutation; each run checks its result and fails when it is wrong.
//
// Savina's actors race: the order in which a root hears its nodes, or the order of values
// in a sum, depends on the schedule. As reactors the same programs are deterministic —
// messages that arrive at one tag are taken in channel order — so a run's result is a
// function of the parameters alone.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../savina/savina_checks.hpp"
#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;
// Parameters, inputs, references and checks are shared with the actor versions.
using savina::busy_wait;

// ---------------------------------------------------------------- uct
// Savina's Unbalanced Cobwebbed Tree. A node, once created, asks the root whether it may
// have children; the root, holding the one random generator and the node count, grants
// `binomial` children (with a computation size and, for some, an urgent child) or not, until
// the tree would exceed `max_nodes`; then every node is traversed, each doing its
// computation. Requests travel up the tree (each node merges its children's requests, in
// channel order, behind its own), grants travel down (a node forwards the grants for its
// subtree), all within one tag; a granted node's children ask at the next tag. The root
// also starts the traversal when a tag grants nothing (Savina's root would wait forever).
// Savina's loop(size, 40000) counts to size × 40,000 and discards the count, which the JIT
// removes; here a node makes `size` draws (busy_wait) whose result it keeps. The root's
// decisions are savina::uct_root_rules, the size is checked against their replay (uct_case).

struct uct_request {
  std::vector<std::uint8_t> path;  // child indices from the root
  int height;
};
struct uct_grant {
  std::vector<std::uint8_t> path;
  int first_id, comp_size, urgent_child;  // urgent_child -1: none
};
using uct_requests = std::vector<uct_request>;
using uct_grants = std::vector<uct_grant>;

struct uct_node : reactor {
  output<uct_requests> up{this, "up"};
  multiport_input<uct_requests> from_children;
  input<uct_grants> grants_in{this, "grants_in"};
  output<uct_grants> grants_out{this, "grants_out"};
  input<void> traverse_in{this, "traverse_in"};
  output<void> traverse_out{this, "traverse_out"};
  std::vector<std::uint8_t> path;
  int height, id, comp_size;
  bool urgent;
  int traversals = 0;
  std::uint64_t work = 0;
  std::vector<uct_node*> children;

  uct_node(context ctx, std::vector<std::uint8_t> node_path, int height, int id, int comp_size,
           bool urgent, std::size_t binomial)
      : reactor(ctx),
        from_children{this, "from_children", binomial},
        path(std::move(node_path)),
        height(height),
        id(id),
        comp_size(comp_size),
        urgent(urgent) {
    reaction("ask")
        .triggers(startup, from_children)
        .effects(up)
        .body([this](port_writer<uct_requests>& up) {
          uct_requests requests;
          if (startup.is_present()) {
            work = busy_wait(100, work + std::uint64_t(this->id) + 1);
            requests.push_back({path, this->height});
          }
          for (auto& channel : from_children)
            if (channel.is_present())
              requests.insert(requests.end(), channel.get().begin(), channel.get().end());
          if (!requests.empty()) up.set(std::move(requests));
        });
    reaction("grant")
        .triggers(grants_in)
        .effects(grants_out, mutations)
        .body([this, binomial](port_writer<uct_grants>& down, mutator& m) {
          uct_grants below;
          for (const uct_grant& g : grants_in.get()) {
            // The parent forwards its whole subtree's grants to every child.
            if (g.path[path.size() - 1] != path.back()) continue;
            if (g.path.size() == path.size())
              grow(m, g, binomial);
            else
              below.push_back(g);
          }
          if (!below.empty()) down.set(std::move(below));
        });
    reaction("traverse")
        .triggers(traverse_in)
        .effects(traverse_out)
        .body([this](port_writer<void>& down) {
          ++traversals;
          work = busy_wait(this->comp_size, work + std::uint64_t(this->comp_size));
          if (!children.empty()) down.set();
        });
  }

  void grow(mutator& m, const uct_grant& g, std::size_t binomial) {
    for (std::size_t i = 0; i < binomial; ++i) {
      auto child_path = path;
      child_path.push_back(std::uint8_t(i));
      auto& child =
          m.create<uct_node>(numbered("n", i), std::move(child_path), height + 1,
                             g.first_id + int(i), g.comp_size, int(i) == g.urgent_child, binomial);
      m.connect(child.up, from_children[i]);
      m.connect(grants_out, child.grants_in);
      m.connect(traverse_out, child.traverse_in);
      children.push_back(&child);
    }
  }
  /// The nodes of this subtree; adds those traversed exactly once to `traversed_once`.
  std::int64_t count(std::int64_t& traversed_once) const {
    if (traversals == 1) ++traversed_once;
    std::int64_t n = 1;
    for (const uct_node* c : children) n += c->count(traversed_once);
    return n;
  }
};

struct uct_root : reactor {
  multiport_input<uct_requests> from_children;
  output<uct_grants> grants_out{this, "grants_out"};
  output<void> traverse_out{this, "traverse_out"};
  logical_action<void> start_traversal{this, "start_traversal"};
  savina::uct_root_rules rules;  // the generator and the size
  int height = 1;
  bool full = false, traversal_started = false;
  std::vector<uct_node*> children;
  savina::uct_params params;

  uct_root(context ctx, const savina::uct_params& p)
      : reactor(ctx),
        from_children{this, "from_children", std::size_t(p.binomial)},
        rules(p),
        params(p) {
    reaction("generate").triggers(startup).effects(mutations).body([this](mutator& m) {
      ++height;
      const int comp = rules.start();  // ids 1..binomial
      for (int i = 0; i < params.binomial; ++i) {
        auto& child = m.create<uct_node>(numbered("n", std::size_t(i)),
                                         std::vector<std::uint8_t>{std::uint8_t(i)}, height, 1 + i,
                                         comp, false, std::size_t(params.binomial));
        m.connect(child.up, from_children[std::size_t(i)]);
        m.connect(grants_out, child.grants_in);
        m.connect(traverse_out, child.traverse_in);
        children.push_back(&child);
      }
    });
    reaction("decide")
        .triggers(from_children)
        .effects(grants_out, start_traversal)
        .body([this](port_writer<uct_grants>& down, action_scheduler<void>& traverse) {
          uct_grants grants;
          for (auto& channel : from_children) {
            if (!channel.is_present()) continue;
            for (const uct_request& r : channel.get()) decide(r, grants);
          }
          // Full, or nothing granted (no node will ask again): the tree is complete once
          // this tag's grants are applied, so the traversal starts at the next microstep.
          if (!traversal_started && (full || grants.empty())) {
            traversal_started = true;
            traverse.schedule();
          }
          if (!grants.empty()) down.set(std::move(grants));
        });
    reaction("traverse")
        .triggers(start_traversal)
        .effects(traverse_out)
        .body([](port_writer<void>& down) { down.set(); });
  }

  void decide(const uct_request& r, uct_grants& grants) {
    if (full || traversal_started) return;
    const savina::uct_grant_draw g = rules.decide();
    full = rules.full();
    if (g.first_id != 0) {
      grants.push_back({r.path, g.first_id, g.comp_size, g.urgent_child});
      height = std::max(height, r.height + 1);
    } else if (!full) {
      height = std::max(height, r.height);
    }
  }
};

struct uct_program : reactor {
  uct_root root;
  uct_program(context ctx, const savina::uct_params& p) : reactor(ctx), root{{this, "root"}, p} {}
};

json uct(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const savina::uct_case c(p);
  std::int64_t tree_nodes = 0;
  auto m = savina_iterations(p, [&] {
    return reactor_iteration<uct_program>(
        rt, p,
        [&](uct_program& program) {
          std::int64_t nodes = 1, traversed = 1;  // the root starts the traversal
          for (const uct_node* n : program.root.children) nodes += n->count(traversed);
          c.check(nodes, traversed);
          tree_nodes = nodes;
        },
        c.params);
  });
  m["nodes"] = tree_nodes;  // deterministic: the same for every worker count and mode
  m["result"] = tree_nodes;
  return m;
}

// ---------------------------------------------------------------- facloc
// Savina's online Facility Location: customers (points in a square) arrive one per tag at
// the root of a quadtree. A quadrant without children keeps its customers and their cost
// (distance to the nearest known facility); when the cost passes alpha · f it opens a
// facility at its centre and splits into four children that share its customers. A new
// facility is reported up the tree; each ancestor tells the sibling opposite the reporting
// child, which tells its whole subtree. Savina copies every customer to all four children,
// which each keep those inside their box; here each customer goes to the first child whose
// box holds it, as Savina routes the customers that come later, so none is counted twice.

// The geometry, the customers and the sequential reference are savina::facloc_* (shared with
// the actor version): with every facility notice delivered within the customer's tag, the
// facilities opened must be the sequential run's (facloc_case::check_settled).
using point = savina::facloc_point;
using box = savina::facloc_box;
struct routed_point {
  point where;
  int child;  // the child it is for; -1: every child
};

struct quadrant : reactor {
  input<routed_point> customer_in{this, "customer_in"};
  output<routed_point> customer_out{this, "customer_out"};
  output<routed_point> facility_up{this, "facility_up"};  // child: this quadrant's position
  multiport_input<routed_point> from_children{this, "from_children", 4};
  input<routed_point> facility_in{this, "facility_in"};
  output<routed_point> facility_down{this, "facility_down"};

  int position;  // in the parent: 0 top left, 1 top right, 2 bottom left, 3 bottom right
  box boundary;
  double threshold;
  std::vector<point> facilities, customers;
  double cost = 0;
  std::vector<quadrant*> children;
  std::array<box, 4> child_boxes{};

  quadrant(context ctx, int position, box boundary, double threshold,
           std::vector<point> known_facilities, const std::vector<point>& parent_customers)
      : reactor(ctx),
        position(position),
        boundary(boundary),
        threshold(threshold),
        facilities(std::move(known_facilities)) {
    facilities.push_back(boundary.middle());
    for (const point& c : parent_customers) add_customer(c);
    reaction("customer")
        .triggers(customer_in)
        .effects(customer_out, facility_up, mutations)
        .body([this](port_writer<routed_point>& down, port_writer<routed_point>& up, mutator& m) {
          const routed_point& c = customer_in.get();
          if (c.child != this->position) return;
          if (children.empty()) {
            add_customer(c.where);
            if (cost > this->threshold) split(m, up);
          } else {
            down.set(routed_point{c.where, child_for(c.where)});
          }
        });
    reaction("facility_from_child")
        .triggers(from_children)
        .effects(facility_up, facility_down)
        .body([this](port_writer<routed_point>& up, port_writer<routed_point>& down) {
          // One customer per tag opens at most one facility per tag.
          for (std::size_t i = 0; i < 4; ++i) {
            if (!from_children[i].is_present()) continue;
            const point f = from_children[i].get().where;
            facilities.push_back(f);
            up.set(routed_point{f, this->position});
            down.set(routed_point{f, 3 - int(i)});  // the opposite sibling
          }
        });
    reaction("facility_from_parent")
        .triggers(facility_in)
        .effects(facility_down)
        .body([this](port_writer<routed_point>& down) {
          const routed_point& f = facility_in.get();
          if (f.child != -1 && f.child != this->position) return;
          facilities.push_back(f.where);
          if (!children.empty()) down.set(routed_point{f.where, -1});
        });
  }

  void add_customer(const point& c) {
    cost += savina::facloc_cost(facilities, c);
    customers.push_back(c);
  }
  int child_for(const point& p) const { return int(savina::facloc_quadrant_of(child_boxes, p)); }
  void split(mutator& m, port_writer<routed_point>& up) {
    const point f = boundary.middle();
    up.set(routed_point{f, position});
    child_boxes = savina::facloc_quadrants(boundary);
    std::vector<std::vector<point>> shares(4);
    for (const point& c : customers) shares[std::size_t(child_for(c))].push_back(c);
    for (std::size_t i = 0; i < 4; ++i) {
      auto& child = m.create<quadrant>(numbered("q", i), int(i), child_boxes[i], threshold,
                                       facilities, shares[i]);
      m.connect(customer_out, child.customer_in);
      m.connect(child.facility_up, from_children[i]);
      m.connect(facility_down, child.facility_in);
      children.push_back(&child);
    }
    customers.clear();
  }
  /// Adds this subtree's split quadrants, kept customers and their fingerprint to `r`.
  void totals(savina::facloc_result& r) const {
    if (!children.empty()) ++r.facilities;
    r.customers += std::int64_t(customers.size());
    for (const point& c : customers) r.checksum += savina::facloc_point_hash(c);
    for (const quadrant* c : children) c->totals(r);
  }
};

struct facloc_program : reactor {
  logical_action<void> produce{this, "produce"};
  quadrant root;
  savina::random64 random;
  std::int64_t remaining;

  facloc_program(context ctx, std::int64_t points, double grid, double threshold,
                 std::uint64_t seed)
      : reactor(ctx),
        root{{this, "root"}, -1, box{0, 0, grid, grid}, threshold, {}, {}},
        random(seed),
        remaining(points) {
    reaction("start").triggers(startup).effects(produce).body(
        [](action_scheduler<void>& produce) { produce.schedule(); });
    reaction("produce")
        .triggers(produce)
        .effects(root.customer_in, produce)
        .body([this, grid](port_writer<routed_point>& out, action_scheduler<void>& again) {
          if (remaining == 0) return;
          out.set(routed_point{savina::facloc_customer(random, grid), -1});
          --remaining;
          again.schedule();
        });
  }
};

json facloc(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const savina::facloc_case c(p);
  std::int64_t facilities = 0;
  auto m = savina_iterations(p, [&] {
    return reactor_iteration<facloc_program>(
        rt, p,
        [&](facloc_program& program) {
          savina::facloc_result r;
          program.root.totals(r);
          r.facilities = savina::facloc_facilities(r.facilities);  // splits -> Savina's count
          c.check_settled(r);
          facilities = r.facilities;
        },
        c.points, c.grid, c.threshold, c.seed);
  });
  m["facilities"] = facilities;
  m["result"] = facilities;  // checked equal to the sequential run's
  return m;
}

}  // namespace

void register_spate_reactor_trees(bench_registry& r) {
  r.implement("uct", "spate-reactor", uct);
  r.implement("facloc", "spate-reactor", facloc);
}

}  // namespace spate_bench
