// Savina's service benchmarks with spate's typed actors: barber (the sleeping barber, a
// customer actor spawned per haircut) and cigsmok (cigarette smokers). As in
// spate_actor_savina_concurrency.cpp, the protocol is Savina's Akka one, set-up and clean-up
// are untimed, and every iteration's result is checked (savina_checks.hpp).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <future>
#include <string>
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

struct go {};

// ---------------------------------------------------------------- barber
// The factory sends every customer from one handler, busy-waiting between arrivals; each
// customer is an actor it spawns then. The room queues up to `waiting_room` customers and
// turns the others away (they go back to the factory, which sends them again); it wakes the
// barber with a Next to itself when the barber is asleep. The barber cuts one customer at a
// time (a busy wait) and asks the room for the next. A served customer tells the factory,
// which, after `haircuts` of them, stops the room, and the room the barber.
struct bb_customer;
struct bb_room;
struct bb_factory;

struct bb_enter {  // factory -> room
  actor_ref<bb_customer> customer;
  std::int64_t id;
};
struct bb_cut {  // room -> barber (Savina's Enter with the room)
  actor_ref<bb_customer> customer;
  std::int64_t id;
  actor_ref<bb_room> room;
};
struct bb_next {};    // barber -> room, and room -> itself to wake the barber
struct bb_sleep {};   // room -> barber: nobody waits (Savina's Wait)
struct bb_exit {};    // factory -> room -> barber
struct bb_full {};    // room -> customer
struct bb_wait {};    // room -> customer: the barber is busy
struct bb_start {};   // barber -> customer
struct bb_done {};    // barber -> customer
struct bb_returned {  // customer -> factory: turned away, send me again
  actor_ref<bb_customer> customer;
  std::int64_t id;
};
struct bb_served {};  // customer -> factory

struct bb_barber : spate::typed_actor<bb_barber, bb_cut, bb_sleep, bb_exit> {
  bb_barber(std::int64_t rate, barber_result* result) : rate(rate), result(result) {}
  void on(bb_cut& c) {
    send(c.customer, bb_start{});
    const std::int64_t units = barber_busy_units(random, rate);
    sink ^= busy_wait(units, std::uint64_t(units));
    busy_units += units;
    ++result->haircuts[std::size_t(c.id)];
    send(c.customer, bb_done{});
    send(c.room, bb_next{});
  }
  void on(bb_sleep&) {}
  void on(bb_exit&) {
    result->barber_units = busy_units;
    quit();
  }
  std::int64_t rate, busy_units = 0;
  random64 random = barber_barber_random();
  std::uint64_t sink = 0;
  barber_result* result;
};

struct bb_room : spate::typed_actor<bb_room, bb_enter, bb_next, bb_exit> {
  bb_room(std::int64_t capacity, actor_ref<bb_barber> barber, barber_result* result)
      : capacity(std::size_t(capacity)), barber(std::move(barber)), result(result) {}
  void on(bb_enter& e) {
    ++result->entries;
    if (waiting.size() == capacity) {
      ++result->turned_away;
      send(e.customer, bb_full{});
      return;
    }
    waiting.push_back(std::move(e));
    result->max_waiting = std::max(result->max_waiting, std::int64_t(waiting.size()));
    if (barber_asleep) {
      barber_asleep = false;
      send(typed_self(), bb_next{});
    } else {
      send(waiting.back().customer, bb_wait{});
    }
  }
  void on(bb_next&) {
    if (waiting.empty()) {
      send(barber, bb_sleep{});
      barber_asleep = true;
      return;
    }
    bb_enter& first = waiting.front();
    send(barber, bb_cut{std::move(first.customer), first.id, typed_self()});
    waiting.pop_front();
  }
  void on(bb_exit& e) {
    send(barber, e);
    barber = nullptr;
    quit();
  }
  std::size_t capacity;
  actor_ref<bb_barber> barber;
  std::deque<bb_enter> waiting;
  bool barber_asleep = true;
  barber_result* result;
};

// A customer records in its own slots of the result that it was cut and how often it was
// turned away: counts the check holds against the barber's, the room's and the factory's.
struct bb_customer : spate::typed_actor<bb_customer, bb_full, bb_wait, bb_start, bb_done> {
  bb_customer(std::int64_t id, actor_ref<bb_factory> factory, barber_result* result)
      : id(id), factory(std::move(factory)), result(result) {}
  void on(bb_full&);
  void on(bb_wait&) {}
  void on(bb_start&) {}
  void on(bb_done&);
  std::int64_t id, returns = 0;
  actor_ref<bb_factory> factory;
  barber_result* result;
};

struct bb_factory : spate::typed_actor<bb_factory, go, bb_returned, bb_served> {
  bb_factory(const barber_case& c, actor_ref<bb_room> room, barber_result* result,
             std::promise<void>* done)
      : haircuts(c.haircuts),
        rate(c.production_rate),
        room(std::move(room)),
        result(result),
        done(done) {}
  void on(go&) {
    random64 random = barber_factory_random();
    const auto self = typed_self();
    for (std::int64_t id = 0; id < haircuts; ++id) {
      send(room, bb_enter{system().spawn<bb_customer>(id, self, result), id});
      const std::int64_t units = barber_busy_units(random, rate);
      sink ^= busy_wait(units, std::uint64_t(units));
    }
  }
  void on(bb_returned& r) {
    ++returned;
    send(room, bb_enter{std::move(r.customer), r.id});
  }
  void on(bb_served&) {
    if (++served < haircuts) return;
    result->returned = returned;
    send(room, bb_exit{});
    room = nullptr;
    done->set_value();
    quit();
  }
  std::int64_t haircuts, rate;
  std::int64_t returned = 0, served = 0;
  std::uint64_t sink = 0;
  actor_ref<bb_room> room;
  barber_result* result;
  std::promise<void>* done;
};

void bb_customer::on(bb_full&) {
  ++returns;
  send(factory, bb_returned{typed_self(), id});
}
void bb_customer::on(bb_done&) {
  ++result->cut[std::size_t(id)];
  result->returns[std::size_t(id)] = returns;
  send(factory, bb_served{});
  factory = nullptr;
  quit();
}

json barber(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const barber_case c(p);
  std::int64_t attempts = 0;  // Savina tracks them: they depend on the interleaving
  json out = savina_iterations(p, [&] {
    barber_result result = c.new_result();
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto barber = system.spawn<bb_barber>(c.haircut_rate, &result);
          auto room = system.spawn<bb_room>(c.waiting_room, barber, &result);
          auto factory = system.spawn<bb_factory>(c, room, &result, done);
          return [factory] { send(factory, go{}); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    attempts = barber_case::attempts(result);
    return seconds;
  });
  out["attempts"] = attempts;  // the last iteration's
  return out;
}

// ---------------------------------------------------------------- cigsmok
// The arbiter wakes a random smoker each round; the smoker tells the arbiter it started,
// which begins the next round while it smokes (a busy wait). After `rounds` rounds the
// arbiter stops the smokers, each of which reports what it smoked in its own slot of the
// result: the rounds are counted there, not by the arbiter, whose count ends the run.
struct cs_smoker;
struct cs_start_smoking {
  std::int64_t units;
};
struct cs_started {};
struct cs_exit {};

struct cs_arbiter : spate::typed_actor<cs_arbiter, std::vector<actor_ref<cs_smoker>>, cs_started> {
  cs_arbiter(const cigsmok_case& c, std::promise<void>* done)
      : rounds(c.rounds), random(cigsmok_random(c.rounds, c.smokers)), done(done) {}
  void on(std::vector<actor_ref<cs_smoker>>& s) {
    smokers = std::move(s);
    notify_random_smoker();
  }
  void on(cs_started&);
  void notify_random_smoker();
  std::int64_t rounds, rounds_so_far = 0;
  random64 random;
  std::vector<actor_ref<cs_smoker>> smokers;
  std::promise<void>* done;
};

struct cs_smoker : spate::typed_actor<cs_smoker, cs_start_smoking, cs_exit> {
  cs_smoker(std::int32_t index, actor_ref<cs_arbiter> arbiter, cigsmok_result* result)
      : index(index), arbiter(std::move(arbiter)), result(result) {}
  void on(cs_start_smoking& s) {
    send(arbiter, cs_started{});  // before smoking: the next round overlaps this one
    sink ^= busy_wait(s.units, std::uint64_t(s.units));
    ++smoked;
    units += s.units;
  }
  void on(cs_exit&) {
    result->smoked[std::size_t(index)] = smoked;
    result->units[std::size_t(index)] = units;
    arbiter = nullptr;
    quit();
  }
  std::int32_t index;
  std::int64_t smoked = 0, units = 0;
  std::uint64_t sink = 0;
  actor_ref<cs_arbiter> arbiter;
  cigsmok_result* result;
};

void cs_arbiter::notify_random_smoker() {
  const smoke_choice c = next_smoke_choice(random, std::int64_t(smokers.size()));
  send(smokers[std::size_t(c.smoker)], cs_start_smoking{c.units});
}

void cs_arbiter::on(cs_started&) {
  if (++rounds_so_far < rounds) {
    notify_random_smoker();
    return;
  }
  for (auto& s : smokers) send(s, cs_exit{});
  smokers.clear();
  done->set_value();
  quit();
}

json cigsmok(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const cigsmok_case c(p);
  return savina_iterations(p, [&] {
    cigsmok_result result = c.new_result();
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto arbiter = system.spawn<cs_arbiter>(c, done);
          std::vector<actor_ref<cs_smoker>> smokers;
          for (std::int64_t i = 0; i < c.smokers; ++i) {
            smokers.push_back(system.spawn<cs_smoker>(std::int32_t(i), arbiter, &result));
          }
          return [arbiter, smokers] { send(arbiter, smokers); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

}  // namespace

void register_spate_actor_savina_services(bench_registry& r) {
  r.implement("barber", "spate-actor", barber);
  r.implement("cigsmok", "spate-actor", cigsmok);
}

}  // namespace spate_bench
