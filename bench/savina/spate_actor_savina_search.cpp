// Savina's search benchmarks with spate's typed actors: astar (a guided search on a grid whose
// frontiers a master farms out to workers), uct (an unbalanced tree grown on a root's
// decisions, then traversed) and facloc (online facility location on a quadtree whose
// quadrants split). uct and facloc create actors as they run: a node or a quadrant spawns its
// children from its handler (system().spawn). The protocol is Savina's Akka one, set-up and
// clean-up are untimed, and every iteration's result is checked by the same `*_case` as the
// reactor versions' (savina_checks.hpp); every actor has ended before the next iteration.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#include "savina_checks.hpp"
#include "savina_support.hpp"
#include "savina_workloads.hpp"
#include "spate/actor.hpp"

namespace spate_bench {
namespace {

using spate::actor_ref;
using spate::send;
using namespace savina;

// ---------------------------------------------------------------- astar
// Savina's guided search. The master hands work items (a node to search from) round-robin to
// W workers, the origin first. A worker searches breadth-first from its node: for each node it
// takes (after Savina's busy wait) it claims every unclaimed neighbour — a compare-and-swap of
// the neighbour's parent — and queues it, until it claims the target (Done to the master) or
// has taken `threshold` nodes; what is left in its queue goes back to the master as new work
// items, then it tells the master the item is finished. The master stops the workers at Done,
// or when every item sent is finished (no path), and the iteration ends when all have stopped.
//
// The parents are the one state the workers share: in Savina the grid is shared by design, and
// the compare-and-swap decides which worker claims a node. So the path found depends on the
// interleaving, and the check validates it (astar_case) rather than comparing it with one.
struct as_master;
struct as_work {
  std::int32_t node;
};
struct as_received {};
struct as_done {};
struct as_stop {};

struct as_worker : spate::typed_actor<as_worker, as_work, as_stop> {
  as_worker(actor_ref<as_master> master, const search_grid* grid, std::atomic<std::int32_t>* parent,
            std::int64_t threshold)
      : master(std::move(master)), grid(grid), parent(parent), threshold(threshold) {}
  void on(as_work& w) {
    search(w.node);
    send(master, as_received{});
  }
  void on(as_stop&) {
    send(master, as_stop{});
    quit();
  }
  void on_stop() { master = nullptr; }
  void search(std::int32_t from) {
    queue.clear();
    queue.push_back(from);
    const std::int32_t target = grid->target();
    for (std::int64_t taken = 0; !queue.empty() && taken < threshold; ++taken) {
      work = busy_wait(100, work + std::uint64_t(queue.front()));  // Savina: 100 draws
      const std::int32_t node = queue.front();
      queue.pop_front();
      for (std::int32_t e = grid->first[std::size_t(node)]; e < grid->first[std::size_t(node) + 1];
           ++e) {
        const std::int32_t next = grid->neighbour[std::size_t(e)];
        std::int32_t unclaimed = -1;
        // Relaxed: the claim needs only atomicity; the parents are read after every actor ended.
        if (!parent[next].compare_exchange_strong(unclaimed, node, std::memory_order_relaxed)) {
          continue;
        }
        if (next == target) {
          send(master, as_done{});
          return;  // as Savina's: the rest of the queue is dropped
        }
        queue.push_back(next);
      }
    }
    for (const std::int32_t node : queue) send(master, as_work{node});
  }
  actor_ref<as_master> master;
  const search_grid* grid;
  std::atomic<std::int32_t>* parent;
  std::int64_t threshold;
  std::deque<std::int32_t> queue;
  std::uint64_t work = 0;  // the busy waits' result, kept so that they are not dropped
};

struct as_master : spate::typed_actor<as_master, std::vector<actor_ref<as_worker>>, as_work,
                                      as_received, as_done, as_stop> {
  as_master(bool* found, std::promise<void>* done) : found(found), done(done) {}
  void on(std::vector<actor_ref<as_worker>>& w) {
    workers = std::move(w);
    send_work(as_work{search_grid::origin});
  }
  void on(as_work& w) {
    if (!stopping) send_work(w);  // Savina forwards these to stopped workers as dead letters
  }
  void on(as_received&) {
    if (++completed == sent) stop_workers();
  }
  void on(as_done&) {
    *found = true;
    stop_workers();
  }
  void on(as_stop&) {
    if (++stopped < workers.size()) return;
    workers.clear();
    done->set_value();
    quit();
  }
  void send_work(const as_work& w) {
    send(workers[std::size_t(sent % std::int64_t(workers.size()))], w);
    ++sent;
  }
  void stop_workers() {
    if (stopping) return;
    stopping = true;
    for (auto& worker : workers) send(worker, as_stop{});
  }
  void on_stop() { workers.clear(); }
  std::vector<actor_ref<as_worker>> workers;
  std::int64_t sent = 0, completed = 0;
  std::size_t stopped = 0;
  bool stopping = false;
  bool* found;
  std::promise<void>* done;
};

json astar(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const astar_case c(p);
  // Who claimed each node (-1: nobody): reset before every iteration, untimed.
  std::vector<std::atomic<std::int32_t>> parent(std::size_t(c.grid.nodes()));
  std::int64_t hops = 0, claimed = 0;
  auto m = savina_iterations(p, [&] {
    for (auto& slot : parent) slot.store(-1, std::memory_order_relaxed);
    // The origin is claimed from the start (by itself), so no worker claims it again.
    parent[search_grid::origin].store(search_grid::origin, std::memory_order_relaxed);
    bool found = false;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn<as_master>(&found, done);
          std::vector<actor_ref<as_worker>> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(system.spawn<as_worker>(master, &c.grid, parent.data(), c.threshold));
          }
          return [master, pool] { send(master, pool); };
        },
        [&] { system.await_all_actors_done(); });
    const auto parent_of = [&](std::int32_t v) {
      return parent[std::size_t(v)].load(std::memory_order_relaxed);
    };
    hops = c.check(found, parent_of);
    // Savina's "nodes processed": the nodes claimed, the origin included.
    claimed = std::count_if(parent.begin(), parent.end(), [](const auto& s) { return s >= 0; });
    return seconds;
  });
  // Both depend on the interleaving; the last iteration's, for information.
  m["path_hops"] = hops;
  m["nodes_claimed"] = claimed;
  m["shortest_hops"] = c.shortest();
  return m;
}

// ---------------------------------------------------------------- uct
// Savina's Unbalanced Cobwebbed Tree. The root creates B children; a node, once created, does
// a little work and asks the root whether it may have children. The root decides
// (uct_root_rules: a grant with the children's computation size and maybe an urgent child, or
// nothing) until the tree would exceed max_nodes. A granted node tells its parent and creates B
// children, which ask in turn. Then the tree is traversed: each node does its computation and
// passes the traversal on to its children. (Savina's urgent traversal is never started by its
// root: the urgent flag is kept and not used, as there.)
//
// Savina's end races, and two changes make it well defined. Its root starts the traversal at
// the first request it refuses for lack of room and terminates the tree at once, while grants
// it made may not have been acted on yet (those subtrees are then missed by the traversal),
// and it never starts when the tree stops growing before it is full. Here the root starts the
// traversal once every node it granted has asked (requests == size - 1): the tree is then
// complete, whichever way it stopped growing. And in place of Savina's Terminate, a node
// reports its subtree's node count up once all of it has been traversed, then ends; the root
// ends the iteration when its children's counts are in.
//
// The root's decisions depend only on how many requests it has answered, so the tree's node
// ids are deterministic: 0 (the root) to the replayed size - 1. Each node counts its own
// traversals in its id's slot of the iteration's result (read after every actor ended), and
// the check requires exactly those ids, each traversed once. The tree's shape and height
// depend on which requests reach the root first and are not checked.
struct uct_node;
struct uct_root;
struct uct_generate_tree {};
struct uct_try_generate_children {};
struct uct_should_generate_children {
  actor_ref<uct_node> node;
  std::int32_t height;
};
struct uct_generate_children {  // Savina's GenerateChildren and UrgentGenerateChildren
  uct_grant_draw grant;
};
struct uct_update_grant {
  std::int32_t child;
};
struct uct_traverse {};
struct uct_traversed {
  std::int64_t nodes;  // in the subtree, all traversed
  std::uint64_t work;  // the subtree's busy work, folded, so that it is not dropped
};
/// What a node's parent, the root or a node, hears from it.
using uct_parent =
    spate::typed_handle<spate::actor_interface<void(uct_update_grant), void(uct_traversed)>>;

struct uct_node : spate::typed_actor<uct_node, uct_try_generate_children, uct_generate_children,
                                     uct_update_grant, uct_traverse, uct_traversed> {
  uct_node(uct_parent parent, actor_ref<uct_root> root, std::int32_t height, std::int32_t id,
           std::int32_t comp_size, bool urgent, std::int32_t binomial, std::uint8_t* visits)
      : parent(std::move(parent)),
        root(std::move(root)),
        height(height),
        id(id),
        comp_size(comp_size),
        urgent(urgent),
        binomial(binomial),
        visits(visits) {}
  void on(uct_try_generate_children&);
  void on(uct_generate_children& g) {
    send(parent, uct_update_grant{id % binomial});
    const uct_parent self = typed_self();
    children.reserve(std::size_t(binomial));
    for (std::int32_t i = 0; i < binomial; ++i) {
      children.push_back(system().spawn<uct_node>(self, root, height + 1, g.grant.first_id + i,
                                                  g.grant.comp_size, i == g.grant.urgent_child,
                                                  binomial, visits));
    }
    for (auto& child : children) send(child, uct_try_generate_children{});
  }
  void on(uct_update_grant&) { ++granted_children; }  // Savina records it; nothing reads it
  void on(uct_traverse&) {
    ++visits[std::size_t(id)];  // this node's slot only: ids < max_nodes (uct_root_rules)
    work = busy_wait(comp_size, work + std::uint64_t(comp_size));  // Savina's loop(comp, ...)
    if (children.empty()) {
      report();
    } else {
      for (auto& child : children) send(child, uct_traverse{});
    }
  }
  void on(uct_traversed& t) {
    subtree += t.nodes;
    work ^= t.work;
    if (++reported == children.size()) report();
  }
  void report() {
    send(parent, uct_traversed{subtree + 1, work});
    quit();
  }
  void on_stop() {
    parent = nullptr;
    root = nullptr;
    children.clear();
  }
  uct_parent parent;
  actor_ref<uct_root> root;
  std::int32_t height, id, comp_size;
  bool urgent;
  std::int32_t binomial, granted_children = 0;
  std::uint8_t* visits;  ///< [node id]: traversals, the iteration's result
  std::vector<actor_ref<uct_node>> children;
  std::size_t reported = 0;
  std::int64_t subtree = 0;
  std::uint64_t work = 0;
};

struct uct_result {
  std::int64_t nodes = 0, traversed = 0, height = 0;
  std::uint64_t work = 0;
  std::vector<std::uint8_t> visits;  ///< [node id]: traversals, each node writing its own slot
};

struct uct_root : spate::typed_actor<uct_root, uct_generate_tree, uct_should_generate_children,
                                     uct_update_grant, uct_traversed> {
  uct_root(const uct_params& params, uct_result* result, std::promise<void>* done)
      : rules(params), binomial(params.binomial), result(result), done(done) {}
  void on(uct_generate_tree&) {
    ++height;
    const std::int32_t comp = rules.start();
    const uct_parent self = typed_self();
    for (std::int32_t i = 0; i < binomial; ++i) {
      children.push_back(system().spawn<uct_node>(self, typed_self(), height, 1 + i, comp, false,
                                                  binomial, result->visits.data()));
    }
    for (auto& child : children) send(child, uct_try_generate_children{});
  }
  void on(uct_should_generate_children& r) {
    ++requests;
    const uct_grant_draw grant = rules.decide();
    if (grant.first_id != 0) {
      send(r.node, uct_generate_children{grant});
      height = std::max(height, r.height + 1);
    } else if (!rules.full()) {
      height = std::max(height, r.height);
    }
    // Every node granted so far exists and has asked: no node will be added.
    if (requests == rules.size() - 1) {
      ++result->visits[0];  // the root's slot: it is traversed first
      for (auto& child : children) send(child, uct_traverse{});
    }
  }
  void on(uct_update_grant&) { ++granted_children; }
  void on(uct_traversed& t) {
    traversed += t.nodes;
    work ^= t.work;
    if (++reported < children.size()) return;
    result->nodes = rules.size();
    result->traversed = traversed + 1;
    result->height = height;
    result->work = work;
    children.clear();
    done->set_value();
    quit();
  }
  void on_stop() { children.clear(); }
  uct_root_rules rules;
  std::int32_t binomial, height = 1, granted_children = 0;
  std::int64_t requests = 0, traversed = 0;
  std::vector<actor_ref<uct_node>> children;
  std::size_t reported = 0;
  std::uint64_t work = 0;
  uct_result* result;
  std::promise<void>* done;
};

void uct_node::on(uct_try_generate_children&) {
  work = busy_wait(100, work + std::uint64_t(id) + 1);  // Savina's loop(100, ...)
  send(root, uct_should_generate_children{typed_self(), height});
}

json uct(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const uct_case c(p);
  uct_result last;
  auto m = savina_iterations(p, [&] {
    uct_result r;
    r.visits.assign(std::size_t(c.params.max_nodes), 0);  // untimed; every id is below it
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto root = system.spawn<uct_root>(c.params, &r, done);
          return [root] { send(root, uct_generate_tree{}); };
        },
        [&] { system.await_all_actors_done(); });
    c.check_traversal(r.visits);
    last = std::move(r);
    return seconds;
  });
  m["nodes"] = last.nodes;    // the same in every run: the ids traversed are checked
  m["height"] = last.height;  // depends on the interleaving
  return m;
}

// ---------------------------------------------------------------- facloc
// Savina's online facility location. The producer sends customers (points in the square) to
// the root quadrant one at a time, the next when the root has passed the last one on. A
// quadrant without children keeps its customers and their cost (the distance to the nearest
// facility it knows); when the cost passes the threshold it opens a facility at its middle,
// tells its parent, and splits into four children that share its customers (each to the first
// child whose box holds it, as the reactor version does). A quadrant with children passes each
// customer on to the child whose box holds it. A new facility goes up the tree; each ancestor
// tells the child opposite the one it heard from, which tells its whole subtree. After the last
// customer an exit goes down the tree and the counts come back up: each quadrant its customers,
// each split quadrant (and the root) one facility.
//
// The facility notices race with the customers behind them: the producer does not wait for a
// customer's consequences, so which quadrants split, and how many facilities open, depends on
// the interleaving — in Savina's Akka version too. The check is what every run must end with
// (facloc_case::check): each customer sent kept by exactly one quadrant (their number and a
// fingerprint of the points), and between one facility and one per customer. The reactor
// version, where a customer settles within its tag, is held to the sequential count as well.
struct fl_quadrant;
struct fl_producer;
struct fl_start {};
struct fl_customer {
  actor_ref<fl_producer> producer;  // the root answers it; null below the root
  facloc_point point;
};
struct fl_next_customer {};
struct fl_facility {
  std::int32_t position;  // of the child it comes from (Savina's order)
  facloc_point point;
  bool from_child;
};
struct fl_request_exit {};
struct fl_confirm_exit {
  facloc_result counts;
};

struct fl_producer : spate::typed_actor<fl_producer, fl_start, fl_next_customer> {
  fl_producer(actor_ref<fl_quadrant> root, std::int64_t points, double grid, std::uint64_t seed)
      : root(std::move(root)), points(points), grid(grid), random(seed) {}
  void on(fl_start&) { produce(); }
  void on(fl_next_customer&) {
    if (produced < points) {
      produce();
      return;
    }
    send(root, fl_request_exit{});
    quit();
  }
  void produce() {
    send(root, fl_customer{typed_self(), facloc_customer(random, grid)});
    ++produced;
  }
  void on_stop() { root = nullptr; }
  actor_ref<fl_quadrant> root;
  std::int64_t points, produced = 0;
  double grid;
  random64 random;
};

struct fl_quadrant
    : spate::typed_actor<fl_quadrant, fl_customer, fl_facility, fl_request_exit, fl_confirm_exit> {
  // The root has no parent and writes the result; the others report to their parent.
  fl_quadrant(actor_ref<fl_quadrant> parent, std::int32_t position, facloc_box boundary,
              double threshold, std::vector<facloc_point> known, std::vector<facloc_point> initial,
              facloc_result* result, std::promise<void>* done)
      : parent(std::move(parent)),
        position(position),
        boundary(boundary),
        threshold(threshold),
        facilities(std::move(known)),
        result(result),
        done(done) {
    facilities.push_back(boundary.middle());
    for (const facloc_point& c : initial) add_customer(c);
  }
  void on(fl_customer& c) {
    if (children.empty()) {
      add_customer(c.point);
      if (cost > threshold) partition();
    } else {
      send(children[facloc_quadrant_of(quadrants, c.point)], fl_customer{nullptr, c.point});
    }
    if (!parent) send(c.producer, fl_next_customer{});
  }
  void on(fl_facility& f) {
    facilities.push_back(f.point);
    if (f.from_child) {
      if (parent) send(parent, fl_facility{position, f.point, true});
      send(children[std::size_t(3 - f.position)], fl_facility{-1, f.point, false});
    } else {
      for (auto& child : children) send(child, fl_facility{-1, f.point, false});
    }
  }
  void on(fl_request_exit&) {
    if (children.empty()) {
      exit_up();
    } else {
      for (auto& child : children) send(child, fl_request_exit{});
    }
  }
  void on(fl_confirm_exit& e) {
    below.facilities += e.counts.facilities;
    below.customers += e.counts.customers;
    below.checksum += e.counts.checksum;
    if (++confirmed == children.size()) exit_up();
  }
  void add_customer(const facloc_point& c) {
    customers.push_back(c);
    cost += facloc_cost(facilities, c);
  }
  void partition() {
    const facloc_point f = boundary.middle();
    if (parent) send(parent, fl_facility{position, f, true});
    quadrants = facloc_quadrants(boundary);
    std::array<std::vector<facloc_point>, 4> shares;
    for (const facloc_point& c : customers) shares[facloc_quadrant_of(quadrants, c)].push_back(c);
    const actor_ref<fl_quadrant> self = typed_self();
    for (std::size_t i = 0; i < shares.size(); ++i) {
      children.push_back(system().spawn<fl_quadrant>(self, std::int32_t(i), quadrants[i], threshold,
                                                     facilities, std::move(shares[i]), nullptr,
                                                     nullptr));
    }
    customers.clear();
  }
  // Savina's safelyExit: a split quadrant counts its facility, and the root its own, open
  // from the start.
  void exit_up() {
    facloc_result counts = below;
    if (!children.empty() || !parent) ++counts.facilities;
    counts.customers += std::int64_t(customers.size());
    for (const facloc_point& c : customers) counts.checksum += facloc_point_hash(c);
    if (parent) {
      send(parent, fl_confirm_exit{counts});
    } else {
      *result = counts;
      done->set_value();
    }
    quit();
  }
  void on_stop() {
    parent = nullptr;
    children.clear();
  }
  actor_ref<fl_quadrant> parent;
  std::int32_t position;  // in the parent; -1 for the root
  facloc_box boundary;
  double threshold;
  std::vector<facloc_point> facilities, customers;
  double cost = 0;
  std::vector<actor_ref<fl_quadrant>> children;
  std::array<facloc_box, 4> quadrants{};
  facloc_result below;
  std::size_t confirmed = 0;
  facloc_result* result;
  std::promise<void>* done;
};

json facloc(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const facloc_case c(p);
  facloc_result last;
  auto m = savina_iterations(p, [&] {
    facloc_result r;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto root = system.spawn<fl_quadrant>(
              actor_ref<fl_quadrant>(), -1, facloc_box{0, 0, c.grid, c.grid}, c.threshold,
              std::vector<facloc_point>{}, std::vector<facloc_point>{}, &r, done);
          auto producer = system.spawn<fl_producer>(root, c.points, c.grid, c.seed);
          return [producer] { send(producer, fl_start{}); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(r);
    last = r;
    return seconds;
  });
  m["facilities"] = last.facilities;  // depends on the interleaving
  m["settled_facilities"] = c.settled_facilities;
  return m;
}

}  // namespace

void register_spate_actor_savina_search(bench_registry& r) {
  r.implement("astar", "spate-actor", astar);
  r.implement("uct", "spate-actor", uct);
  r.implement("facloc", "spate-actor", facloc);
}

}  // namespace spate_bench
