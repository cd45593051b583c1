// Savina's numeric benchmarks with spate's typed actors: filterbank (a pipeline of FIR
// filters per channel), piprecise (π by BBP terms farmed out to workers, in GMP's arbitrary
// precision) and sor (red-black successive over-relaxation on a grid of actors, which the
// actors create when the iteration runs). As in the other Savina files, the protocol is
// Savina's Akka one, set-up and clean-up are untimed, and every iteration's result is
// checked by the same `*_case` as the other implementations' (savina_checks.hpp).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
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

// ---------------------------------------------------------------- filterbank
// The producer and the source take turns: the producer sends "boot" (or, after the last
// simulation, "exit"), the source sends its next value down the pipeline and asks the
// producer for more with "next". Branches copies each value to every channel's bank; a bank
// runs delay → FIR h → sample → delay → FIR f → tagger, one actor per stage. The integrator
// groups the k-th value of every channel, Combine adds a group in channel order, the sink
// keeps the sums. The exit follows the values down every path (FIFO per sender), so the
// sink's exit ends the timed part. Only the source paces the producer: as in Savina, the
// slow FIR stages' mailboxes fill up.
struct fb_source;
struct fb_next {
  actor_ref<fb_source> source;
};
struct fb_boot {};
struct fb_value {
  double value;
};
struct fb_exit {};
struct fb_tagged {
  std::int32_t channel;
  double value;
};
struct fb_group {
  std::vector<double> values;  ///< one per channel, in channel order
};
/// Where a stage sends its values: the next stage, whichever its kind.
using fb_port = spate::typed_handle<spate::actor_interface<void(fb_value), void(fb_exit)>>;

struct fb_producer : spate::typed_actor<fb_producer, fb_next> {
  explicit fb_producer(std::int64_t simulations) : simulations(simulations) {}
  void on(fb_next& n) {
    if (sent == simulations) {
      send(n.source, fb_exit{});
      quit();
    } else {
      send(n.source, fb_boot{});
      ++sent;
    }
  }
  std::int64_t simulations, sent = 0;
};

struct fb_source : spate::typed_actor<fb_source, fb_boot, fb_exit> {
  fb_source(actor_ref<fb_producer> producer, fb_port next)
      : producer(std::move(producer)), next(std::move(next)) {}
  void on(fb_boot&) {
    send(next, fb_value{filterbank_source(current)});
    current = (current + 1) % 1000;
    send(producer, fb_next{typed_self()});
  }
  void on(fb_exit& e) {
    send(next, e);
    next = nullptr;
    producer = nullptr;
    quit();
  }
  actor_ref<fb_producer> producer;
  fb_port next;
  std::int64_t current = 0;
};

struct fb_branches : spate::typed_actor<fb_branches, fb_value, fb_exit> {
  explicit fb_branches(std::vector<fb_port> banks) : banks(std::move(banks)) {}
  void on(fb_value& v) {
    for (const auto& bank : banks) send(bank, v);
  }
  void on(fb_exit& e) {
    for (const auto& bank : banks) send(bank, e);
    banks.clear();
    quit();
  }
  std::vector<fb_port> banks;
};

/// Savina's bank actor: it hands every value to its channel's first stage.
struct fb_pass {
  bool push(double in, double& out) {
    out = in;
    return true;
  }
};

/// One stage of a channel: `Filter` (fb_delay, fb_fir, fb_sampler, fb_pass) says what it
/// passes on.
template <class Filter>
struct fb_stage : spate::typed_actor<fb_stage<Filter>, fb_value, fb_exit> {
  fb_stage(Filter filter, fb_port next) : filter(std::move(filter)), next(std::move(next)) {}
  void on(fb_value& v) {
    double out = 0;
    if (filter.push(v.value, out)) send(next, fb_value{out});
  }
  void on(fb_exit& e) {
    send(next, e);
    next = nullptr;
    this->quit();
  }
  Filter filter;
  fb_port next;
};

struct fb_combine;
struct fb_integrator : spate::typed_actor<fb_integrator, fb_tagged, fb_exit> {
  fb_integrator(std::size_t channels, actor_ref<fb_combine> next)
      : received(channels), next(std::move(next)) {}
  void on(fb_tagged& t);
  void on(fb_exit&);
  /// Savina files a value in the first group that lacks its channel: the k-th value of a
  /// channel always lands in group k, which is where the per-channel count puts it.
  struct group {
    std::vector<double> values;
    std::size_t filled = 0;
  };
  std::vector<std::int64_t> received;  ///< values per channel
  std::int64_t groups_sent = 0;
  std::deque<group> pending;  ///< groups groups_sent, groups_sent + 1, …
  std::size_t exits = 0;
  actor_ref<fb_combine> next;
};

struct fb_sink;
struct fb_combine : spate::typed_actor<fb_combine, fb_group, fb_exit> {
  explicit fb_combine(actor_ref<fb_sink> next) : next(std::move(next)) {}
  void on(fb_group& g);
  void on(fb_exit&);
  actor_ref<fb_sink> next;
};

struct fb_sink : spate::typed_actor<fb_sink, fb_value, fb_exit> {
  fb_sink(std::vector<double>* values, std::promise<void>* done) : values(values), done(done) {}
  void on(fb_value& v) { values->push_back(v.value); }
  void on(fb_exit&) {
    done->set_value();
    quit();
  }
  std::vector<double>* values;
  std::promise<void>* done;
};

void fb_integrator::on(fb_tagged& t) {
  const auto k = std::size_t(received[std::size_t(t.channel)]++ - groups_sent);
  while (pending.size() <= k) pending.push_back({std::vector<double>(received.size()), 0});
  pending[k].values[std::size_t(t.channel)] = t.value;
  ++pending[k].filled;
  while (!pending.empty() && pending.front().filled == received.size()) {
    send(next, fb_group{std::move(pending.front().values)});
    pending.pop_front();
    ++groups_sent;
  }
}
void fb_integrator::on(fb_exit& e) {
  if (++exits < received.size()) return;
  send(next, e);
  next = nullptr;
  quit();
}
void fb_combine::on(fb_group& g) {
  double sum = 0;
  for (const double v : g.values) sum += v;
  send(next, fb_value{sum});
}
void fb_combine::on(fb_exit& e) {
  send(next, e);
  next = nullptr;
  quit();
}

/// The last stage of a channel: its values go to the integrator tagged with the channel.
struct fb_tagger : spate::typed_actor<fb_tagger, fb_value, fb_exit> {
  fb_tagger(std::int32_t channel, actor_ref<fb_integrator> next)
      : channel(channel), next(std::move(next)) {}
  void on(fb_value& v) { send(next, fb_tagged{channel, v.value}); }
  void on(fb_exit& e) {
    send(next, e);
    next = nullptr;
    quit();
  }
  std::int32_t channel;
  actor_ref<fb_integrator> next;
};

json filterbank(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const filterbank_case c(p);
  return savina_iterations(p, [&] {
    std::vector<double> sink_values;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          // Built from the end, as Savina's constructors build it.
          auto sink = system.spawn<fb_sink>(&sink_values, done);
          auto combine = system.spawn<fb_combine>(sink);
          auto integrator = system.spawn<fb_integrator>(std::size_t(c.channels), combine);
          std::vector<fb_port> banks;
          for (std::int64_t j = 0; j < c.channels; ++j) {
            const auto& h = c.coefficients.h[std::size_t(j)];
            const auto& f = c.coefficients.f[std::size_t(j)];
            fb_port next = system.spawn<fb_tagger>(std::int32_t(j), integrator);
            next = system.spawn<fb_stage<fb_fir>>(fb_fir(f), next);
            next = system.spawn<fb_stage<fb_delay>>(fb_delay(c.columns - 1), next);
            next = system.spawn<fb_stage<fb_sampler>>(fb_sampler(c.columns), next);
            next = system.spawn<fb_stage<fb_fir>>(fb_fir(h), next);
            next = system.spawn<fb_stage<fb_delay>>(fb_delay(c.columns - 1), next);
            banks.push_back(system.spawn<fb_stage<fb_pass>>(fb_pass{}, next));
          }
          auto branches = system.spawn<fb_branches>(std::move(banks));
          auto producer = system.spawn<fb_producer>(c.simulations);
          auto source = system.spawn<fb_source>(producer, branches);
          return [producer, source] { send(producer, fb_next{source}); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(sink_values);
    return seconds;
  });
}

// ---------------------------------------------------------------- piprecise
// The master hands out term indices, min(precision, 10·workers) at first, round-robin; a
// worker answers each with its BBP term. For every term it receives, the master adds it and,
// until a term of at most 10^-precision has come, sends the next index to the worker that
// answered. When every term asked for has come, it stops the workers, which echo the stop;
// the last echo ends the timed part. The sum is exact integer arithmetic (units of
// 10^-precision), so the order the terms arrive in does not change it.
struct pi_master;
struct pi_work {
  std::int64_t term;
};
struct pi_term {
  mpz_class value;
  std::int32_t worker;
};
struct pi_stop {};

struct pi_worker : spate::typed_actor<pi_worker, pi_work, pi_stop> {
  pi_worker(std::int32_t id, const mpz_class* unit, actor_ref<pi_master> master)
      : id(id), unit(unit), master(std::move(master)) {}
  void on(pi_work& w) { send(master, pi_term{bbp_term(*unit, w.term), id}); }
  void on(pi_stop& s) {
    send(master, s);
    master = nullptr;
    quit();
  }
  std::int32_t id;
  const mpz_class* unit;  ///< 10^precision, read only (shared by the workers)
  actor_ref<pi_master> master;
};

struct pi_master
    : spate::typed_actor<pi_master, std::vector<actor_ref<pi_worker>>, pi_term, pi_stop> {
  pi_master(std::int64_t first_terms, pi_sum* result, std::promise<void>* done)
      : first_terms(first_terms), result(result), done(done) {}
  void on(std::vector<actor_ref<pi_worker>>& w) {
    workers = std::move(w);
    for (std::int64_t t = 0; t < first_terms; ++t) generate_work(std::size_t(t) % workers.size());
  }
  void on(pi_term& t) {
    ++received;
    result->sum += t.value;
    if (t.value <= 1) stop_requests = true;  // the tolerance: one unit
    if (!stop_requests) generate_work(std::size_t(t.worker));
    if (received == requested) {
      for (const auto& w : workers) send(w, pi_stop{});
    }
  }
  void on(pi_stop&) {
    if (++stopped < workers.size()) return;
    result->terms = received;
    workers.clear();
    done->set_value();
    quit();
  }
  void generate_work(std::size_t worker) { send(workers[worker], pi_work{requested++}); }
  std::int64_t first_terms;
  std::vector<actor_ref<pi_worker>> workers;
  std::int64_t requested = 0, received = 0;
  std::size_t stopped = 0;
  bool stop_requests = false;
  pi_sum* result;
  std::promise<void>* done;
};

json piprecise(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const piprecise_case c(p);
  return savina_iterations(p, [&] {
    pi_sum result;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn<pi_master>(c.first_terms(), &result, done);
          std::vector<actor_ref<pi_worker>> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(system.spawn<pi_worker>(std::int32_t(i), &c.unit, master));
          }
          return [master, pool] { send(master, pool); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

// ---------------------------------------------------------------- sor
// Savina's successive over-relaxation: a runner creates the cells of the grid's left half
// and a peer, which creates the right half; the two exchange the cells on their border, then
// start their cells. A cell that sends first (Savina's colour 1) sends its value to its
// neighbours; a cell that has all its neighbours' values relaxes and sends its new value, 100
// times (the first senders 99). Each cell reports its last value to its half's creator; the
// peer reports its half's sum to the runner, whose total ends the timed part. A value carries
// the sender's place among the receiver's neighbours, so a cell adds them in sor_neighbours'
// order, where Savina adds them as they come: every cell's value is then the sequential
// reference's, bit for bit, and only the grid's sum depends on the order of the reports.
struct sor_cell;
using sor_cells = std::vector<actor_ref<sor_cell>>;  ///< by position, row-major
struct sor_start {
  std::shared_ptr<const sor_cells> cells;  ///< a half's own cells and the other's border
};
struct sor_value {
  double value;
  std::uint8_t slot;  ///< the sender's place in the receiver's sor_neighbours
};
struct sor_result {
  double value;
};
struct sor_boot {};
struct sor_border {
  sor_cells cells;  ///< a half's cells next to the other half, by row
};
using sor_collector = spate::typed_handle<spate::actor_interface<void(sor_result)>>;

struct sor_cell : spate::typed_actor<sor_cell, sor_start, sor_value> {
  sor_cell(std::size_t x, std::size_t y, std::size_t size, double value, sor_collector collector)
      : position(x * size + y),
        size(size),
        around(sor_neighbours(x, y, size)),
        sends_first(sor_sends_first(x, y)),
        value(value),
        received_values(around.size()),
        collector(std::move(collector)) {}
  void on(sor_start& s) {
    for (const std::size_t n : around) {
      const auto theirs = sor_neighbours(n / size, n % size, size);
      const auto slot = std::find(theirs.begin(), theirs.end(), position) - theirs.begin();
      links.push_back({(*s.cells)[n], std::uint8_t(slot)});
    }
    started = true;
    if (sends_first) {
      send_value();
      ++iteration;
    }
    relax_if_ready();  // the values may all have come before the start
  }
  void on(sor_value& v) {
    received_values[v.slot] = v.value;
    ++received;
    if (started) relax_if_ready();
  }
  void relax_if_ready() {
    if (iteration >= sor_iterations || received < around.size()) return;
    double sum = 0;
    for (const double v : received_values) sum += v;
    value = sor_relax(sum, value);
    received = 0;
    send_value();
    if (++iteration < sor_iterations) return;
    send(collector, sor_result{value});
    quit();
  }
  void send_value() {
    for (const auto& [cell, slot] : links) send(cell, sor_value{value, slot});
  }
  void on_stop() {  // neighbours hold each other's handles
    links.clear();
    collector = nullptr;
  }
  struct link {
    actor_ref<sor_cell> cell;
    std::uint8_t slot;
  };
  std::size_t position, size;
  std::vector<std::size_t> around;
  bool sends_first;
  double value;
  std::vector<double> received_values;  ///< by neighbour, in sor_neighbours' order
  std::size_t received = 0;
  int iteration = 0;
  bool started = false;
  std::vector<link> links;
  sor_collector collector;
};

using sor_runner_port =
    spate::typed_handle<spate::actor_interface<void(sor_border), void(sor_result)>>;

/// Spawns its half's cells (columns [from, to)) into `cells`; returns the column `border`.
sor_cells spawn_half(spate::actor_system& system, const sor_case& c, sor_cells& cells,
                     std::size_t from, std::size_t to, std::size_t border,
                     const sor_collector& collector) {
  const auto size = std::size_t(c.size);
  sor_cells border_cells(size);
  for (std::size_t x = 0; x < size; ++x) {
    for (std::size_t y = from; y < to; ++y) {
      cells[x * size + y] = system.spawn<sor_cell>(x, y, size, c.initial[x * size + y], collector);
    }
    border_cells[x] = cells[x * size + border];
  }
  return border_cells;
}
void start_half(const sor_cells& cells, std::size_t size, std::size_t from, std::size_t to) {
  const auto shared = std::make_shared<const sor_cells>(cells);
  for (std::size_t x = 0; x < size; ++x) {
    for (std::size_t y = from; y < to; ++y) send(cells[x * size + y], sor_start{shared});
  }
}

struct sor_peer : spate::typed_actor<sor_peer, sor_boot, sor_result> {
  sor_peer(const sor_case* c, sor_cells runner_border, sor_runner_port runner)
      : c(c), runner_border(std::move(runner_border)), runner(std::move(runner)) {}
  void on(sor_boot&) {
    const auto size = std::size_t(c->size), part = size / 2;
    sor_cells cells(size * size);
    for (std::size_t x = 0; x < size; ++x) cells[x * size + part - 1] = runner_border[x];
    runner_border.clear();
    send(runner, sor_border{spawn_half(system(), *c, cells, part, size, part, typed_self())});
    start_half(cells, size, part, size);
  }
  void on(sor_result& r) {
    partial += r.value;
    const auto size = c->size;
    if (++returned < size * (size - size / 2)) return;
    send(runner, sor_result{partial});
    runner = nullptr;
    quit();
  }
  const sor_case* c;
  sor_cells runner_border;
  sor_runner_port runner;
  double partial = 0;
  std::int64_t returned = 0;
};

struct sor_runner : spate::typed_actor<sor_runner, sor_boot, sor_border, sor_result> {
  sor_runner(const sor_case* c, double* total, std::promise<void>* done)
      : c(c), total(total), done(done) {}
  void on(sor_boot&) {
    const auto size = std::size_t(c->size), part = size / 2;
    cells.assign(size * size, nullptr);
    auto border = spawn_half(system(), *c, cells, 0, part, part - 1, typed_self());
    send(system().spawn<sor_peer>(c, std::move(border), typed_self()), sor_boot{});
  }
  void on(sor_border& b) {
    const auto size = std::size_t(c->size), part = size / 2;
    for (std::size_t x = 0; x < size; ++x) cells[x * size + part] = std::move(b.cells[x]);
    start_half(cells, size, 0, part);
    cells.clear();
  }
  void on(sor_result& r) {
    sum += r.value;
    if (++returned < c->size * (c->size / 2) + 1) return;  // its cells and the peer
    *total = sum;
    done->set_value();
    quit();
  }
  const sor_case* c;
  sor_cells cells;
  double sum = 0;
  std::int64_t returned = 0;
  double* total;
  std::promise<void>* done;
};

json sor(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const sor_case c(p);
  return savina_iterations(p, [&] {
    double total = 0;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto runner = system.spawn<sor_runner>(&c, &total, done);
          return [runner] { send(runner, sor_boot{}); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(total);
    return seconds;
  });
}

}  // namespace

void register_spate_actor_savina_numeric(bench_registry& r) {
  r.implement("filterbank", "spate-actor", filterbank);
  r.implement("piprecise", "spate-actor", piprecise);
  r.implement("sor", "spate-actor", sor);
}

}  // namespace spate_bench
