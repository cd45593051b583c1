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
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;

// Work whose result is kept, so the compiler cannot drop it.
std::uint64_t busy_work(std::uint64_t state, int steps) {
  for (int i = 0; i < steps; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
  }
  return state;
}

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
// removes; here a node does `size` steps of a xorshift whose result it keeps.

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
            work = busy_work(work + std::uint64_t(this->id) + 1, 100);
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
          work = busy_work(work + std::uint64_t(this->comp_size), this->comp_size);
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
  std::size_t count(bool& each_traversed_once) const {
    each_traversed_once = each_traversed_once && traversals == 1;
    std::size_t n = 1;
    for (const uct_node* c : children) n += c->count(each_traversed_once);
    return n;
  }
};

struct uct_root : reactor {
  multiport_input<uct_requests> from_children;
  output<uct_grants> grants_out{this, "grants_out"};
  output<void> traverse_out{this, "traverse_out"};
  logical_action<void> start_traversal{this, "start_traversal"};
  std::mt19937 random{2};
  int size = 1, height = 1;
  bool full = false, traversal_started = false;
  std::vector<uct_node*> children;
  struct parameters {
    int max_nodes, avg_comp, stdev_comp, binomial, urgent_percent;
  } params;

  int next_normal() {
    std::normal_distribution<double> normal(params.avg_comp, params.stdev_comp);
    int result = 0;
    while (result <= 0) result = int(std::lround(normal(random)));
    return result;
  }
  int next_int(int bound) { return std::uniform_int_distribution<int>(0, bound - 1)(random); }

  uct_root(context ctx, parameters p)
      : reactor(ctx), from_children{this, "from_children", std::size_t(p.binomial)}, params(p) {
    reaction("generate").triggers(startup).effects(mutations).body([this](mutator& m) {
      ++height;
      const int comp = next_normal();
      for (int i = 0; i < params.binomial; ++i) {
        auto& child = m.create<uct_node>(numbered("n", std::size_t(i)),
                                         std::vector<std::uint8_t>{std::uint8_t(i)}, height,
                                         size + i, comp, false, std::size_t(params.binomial));
        m.connect(child.up, from_children[std::size_t(i)]);
        m.connect(grants_out, child.grants_in);
        m.connect(traverse_out, child.traverse_in);
        children.push_back(&child);
      }
      size += params.binomial;
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
    if (full || traversal_started || size + params.binomial > params.max_nodes) {
      full = true;
      return;
    }
    if (std::bernoulli_distribution(0.5)(random)) {
      const int comp = next_normal();
      const int urgent = next_int(100) > params.urgent_percent ? -1 : next_int(params.binomial);
      grants.push_back({r.path, size, comp, urgent});
      size += params.binomial;
      height = std::max(height, r.height + 1);
    } else {
      height = std::max(height, r.height);
    }
  }
};

struct uct_program : reactor {
  uct_root root;
  uct_program(context ctx, uct_root::parameters p) : reactor(ctx), root{{this, "root"}, p} {}
};

json uct(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const uct_root::parameters params{int(p.integer("max_nodes")), int(p.integer("avg_comp")),
                                    int(p.integer("stdev_comp")), int(p.integer("binomial")),
                                    int(p.integer("urgent_percent"))};
  if (params.binomial < 1 || params.binomial > 255 || params.max_nodes < 1 + params.binomial)
    throw usage_error("uct needs 1 <= binomial <= 255 and max_nodes > binomial");
  std::size_t tree_nodes = 0;
  auto m = savina_iterations(p, [&] {
    return reactor_iteration<uct_program>(
        rt, p,
        [&](uct_program& program) {
          bool each_traversed_once = true;
          std::size_t nodes = 1;
          for (const uct_node* c : program.root.children) nodes += c->count(each_traversed_once);
          if (nodes != std::size_t(program.root.size) || nodes > std::size_t(params.max_nodes))
            throw std::runtime_error("uct: the tree does not have the nodes the root granted");
          if (!each_traversed_once)
            throw std::runtime_error("uct: a node was not traversed exactly once");
          tree_nodes = nodes;
        },
        params);
  });
  m["nodes"] = tree_nodes;  // deterministic: the same for every worker count and mode
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

struct point {
  double x, y;
  double distance(const point& p) const { return std::hypot(p.x - x, p.y - y); }
};
struct box {
  double x1, y1, x2, y2;
  bool contains(const point& p) const { return x1 <= p.x && y1 <= p.y && p.x <= x2 && p.y <= y2; }
  point middle() const { return {(x1 + x2) / 2, (y1 + y2) / 2}; }
};
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
  std::vector<box> child_boxes;

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
    double nearest = std::numeric_limits<double>::max();
    for (const point& f : facilities) nearest = std::min(nearest, f.distance(c));
    customers.push_back(c);
    cost += nearest;
  }
  int child_for(const point& p) const {
    for (std::size_t i = 0; i < child_boxes.size(); ++i)
      if (child_boxes[i].contains(p)) return int(i);
    return 0;  // unreachable: the four boxes cover this one
  }
  void split(mutator& m, port_writer<routed_point>& up) {
    const point f = boundary.middle();
    up.set(routed_point{f, position});
    child_boxes = {box{boundary.x1, f.y, f.x, boundary.y2}, box{f.x, f.y, boundary.x2, boundary.y2},
                   box{boundary.x1, boundary.y1, f.x, f.y},
                   box{f.x, boundary.y1, boundary.x2, f.y}};
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
  void totals(std::size_t& open_facilities, std::size_t& kept_customers) const {
    if (!children.empty()) ++open_facilities;
    kept_customers += customers.size();
    for (const quadrant* c : children) c->totals(open_facilities, kept_customers);
  }
};

struct facloc_program : reactor {
  logical_action<void> produce{this, "produce"};
  quadrant root;
  std::mt19937_64 random;
  std::int64_t remaining;

  facloc_program(context ctx, std::int64_t points, double grid, double alpha, std::uint64_t seed)
      : reactor(ctx),
        root{{this, "root"}, -1, box{0, 0, grid, grid}, alpha * std::sqrt(2.0) * grid, {}, {}},
        random(seed),
        remaining(points) {
    reaction("start").triggers(startup).effects(produce).body(
        [](action_scheduler<void>& produce) { produce.schedule(); });
    reaction("produce")
        .triggers(produce)
        .effects(root.customer_in, produce)
        .body([this, grid](port_writer<routed_point>& out, action_scheduler<void>& again) {
          if (remaining == 0) return;
          std::uniform_real_distribution<double> coordinate(0, grid);
          const double x = coordinate(random), y = coordinate(random);
          out.set(routed_point{{x, y}, -1});
          --remaining;
          again.schedule();
        });
  }
};

json facloc(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const auto points = p.integer("points");
  const double grid = p.number("grid"), alpha = p.number("alpha");
  if (points < 1 || grid <= 0 || alpha <= 0)
    throw usage_error("facloc needs points, grid, alpha > 0");
  std::size_t first_facilities = 0;
  auto m = savina_iterations(p, [&] {
    return reactor_iteration<facloc_program>(
        rt, p,
        [&](facloc_program& program) {
          std::size_t facilities = 1, customers = 0;  // the root's facility is always open
          program.root.totals(facilities, customers);
          if (customers != std::size_t(points))
            throw std::runtime_error("facloc: customers lost or counted twice");
          if (first_facilities == 0) first_facilities = facilities;
          if (facilities != first_facilities)
            throw std::runtime_error("facloc: a run opened a different number of facilities");
        },
        points, grid, alpha, std::uint64_t(p.integer("seed")));
  });
  m["facilities"] = first_facilities;
  return m;
}

}  // namespace

void register_spate_reactor_trees(bench_registry& r) {
  r.implement("uct", "spate-reactor", uct);
  r.implement("facloc", "spate-reactor", facloc);
}

}  // namespace spate_bench
