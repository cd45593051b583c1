// Savina's barber (sleeping barber) and cigsmok (cigarette smokers) as spate reactors (impl
// `spate-reactor`), structured as Lingua Franca's benchmark suite writes them
// (lf-lang/benchmarks-lingua-franca, Cpp/Savina/src/concurrency: SleepingBarber.lf,
// CigaretteSmoker.lf): a factory, a waiting room and a barber with a bank of customers; an
// arbiter with a bank of smokers. Inputs, busy waits and checks are the actor versions'
// (bench/savina/savina_checks.hpp). Every run is deterministic, the same `result` on any
// worker count and in either mode: where LF's barber lets the physical clock decide when
// things happen, this one takes logical time instead (see there).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "../savina/savina_checks.hpp"
#include "../savina/savina_support.hpp"
#include "../savina/savina_workloads.hpp"
#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;
using namespace savina;

// ---------------------------------------------------------------- barber
// LF's version schedules the next arrival, the end of a haircut and a turned-away customer's
// return as *physical* actions, after its busy waits: when they happen depends on how long
// the busy waits took. Here they are logical actions delayed by the busy waits' units (one
// unit = 1 ns of logical time), so the room fills and empties the same way on every run. A
// customer turned away comes back `production_rate` units later (LF: as soon as the clock
// has moved; Savina: once the factory has sent every customer). Customers arriving in one
// tag (a new one and those coming back) travel together, in order, so none is lost.

struct bs_customer : reactor {
  input<void> room_full{this, "room_full"};
  input<void> wait{this, "wait"};
  input<void> start_cutting{this, "start_cutting"};
  input<void> done_cutting{this, "done_cutting"};
  output<void> returned{this, "returned"};
  output<std::int64_t> done{this, "done"};  ///< with how often this customer was turned away
  std::int64_t returns = 0, waits = 0, cuts_started = 0, cuts_done = 0;

  explicit bs_customer(context ctx) : reactor(ctx) {
    reaction("full").triggers(room_full).effects(returned).body([this](port_writer<void>& out) {
      ++returns;
      out.set();
    });
    reaction("wait").triggers(wait).body([this] { ++waits; });
    reaction("start").triggers(start_cutting).body([this] { ++cuts_started; });
    reaction("done")
        .triggers(done_cutting)
        .effects(done)
        .body([this](port_writer<std::int64_t>& out) {
          ++cuts_done;
          out.set(returns);
        });
  }
};

struct bs_factory : reactor {
  logical_action<void> create_next{this, "create_next"};
  logical_action<void> send_again{this, "send_again"};
  output<std::vector<std::int64_t>> send_customers{this, "send_customers"};
  multiport_input<void> customer_returned;
  multiport_input<std::int64_t> customer_done;
  std::int64_t haircuts, rate, created = 0, returned = 0, served = 0, returns_reported = 0;
  std::int64_t busy_units = 0;
  std::uint64_t sink = 0;
  random64 random = barber_factory_random();
  std::deque<std::pair<time_point, std::int64_t>> coming_back;  ///< (when, customer), by time

  bs_factory(context ctx, std::int64_t haircuts, std::int64_t rate)
      : reactor(ctx),
        customer_returned{this, "customer_returned", std::size_t(haircuts)},
        customer_done{this, "customer_done", std::size_t(haircuts)},
        haircuts(haircuts),
        rate(rate) {
    reaction("start").triggers(startup).effects(create_next).body([](action_scheduler<void>& next) {
      next.schedule();
    });
    // One reaction for both kinds of arrival: two writes of one port in a tag would lose one.
    reaction("send")
        .triggers(create_next, send_again)
        .effects(send_customers, create_next)
        .body([this](port_writer<std::vector<std::int64_t>>& out, action_scheduler<void>& next) {
          std::vector<std::int64_t> arriving;
          if (create_next.is_present()) {
            arriving.push_back(created++);
            // Savina: send the customer, then busy-wait before the next one.
            const std::int64_t units = barber_busy_units(random, this->rate);
            sink ^= busy_wait(units, std::uint64_t(units));
            busy_units += units;
            if (created < this->haircuts) next.schedule(duration(units));
          }
          while (!coming_back.empty() && coming_back.front().first <= logical_time()) {
            arriving.push_back(coming_back.front().second);
            coming_back.pop_front();
          }
          if (!arriving.empty()) out.set(std::move(arriving));
        });
    reaction("returned")
        .triggers(customer_returned)
        .effects(send_again)
        .body([this](action_scheduler<void>& again) {
          const duration later(this->rate);
          for (const std::size_t i : customer_returned.present_indices()) {
            ++returned;
            coming_back.emplace_back(logical_time() + later, std::int64_t(i));
          }
          again.schedule(later);
        });
    reaction("done").triggers(customer_done).body([this] {
      for (const std::size_t i : customer_done.present_indices()) {
        ++served;
        returns_reported += customer_done[i].get();
      }
    });
  }
};

struct bs_room : reactor {
  input<std::vector<std::int64_t>> arriving{this, "arriving"};
  input<void> barber_next{this, "barber_next"};
  multiport_output<void> full, wait;
  output<std::int64_t> barber_enter{this, "barber_enter"};
  output<void> barber_wait{this, "barber_wait"};
  std::size_t capacity;
  std::deque<std::int64_t> queue;
  bool barber_asleep = true;
  std::int64_t entries = 0, turned_away = 0, max_waiting = 0;

  bs_room(context ctx, std::size_t customers, std::size_t capacity)
      : reactor(ctx),
        full{this, "full", customers},
        wait{this, "wait", customers},
        capacity(capacity) {
    // LF's room: a customer who finds the barber asleep goes straight in (Savina's room
    // queues them and sends itself a Next); otherwise they wait, or leave when it is full.
    reaction("enter")
        .triggers(arriving)
        .effects(full, wait, barber_enter)
        .body([this](multiport_writer<void>& full_out, multiport_writer<void>& wait_out,
                     port_writer<std::int64_t>& enter) {
          for (const std::int64_t id : arriving.get()) {
            ++entries;
            if (queue.size() == this->capacity) {
              ++turned_away;
              full_out[std::size_t(id)].set();
            } else if (barber_asleep) {
              barber_asleep = false;
              enter.set(id);
            } else {
              queue.push_back(id);
              max_waiting = std::max(max_waiting, std::int64_t(queue.size()));
              wait_out[std::size_t(id)].set();
            }
          }
        });
    reaction("next")
        .triggers(barber_next)
        .effects(barber_enter, barber_wait)
        .body([this](port_writer<std::int64_t>& enter, port_writer<void>& sleep) {
          if (queue.empty()) {
            barber_asleep = true;
            sleep.set();
          } else {
            enter.set(queue.front());
            queue.pop_front();
          }
        });
  }
};

struct bs_barber : reactor {
  logical_action<std::int64_t> done{this, "done"};  ///< the haircut's end, its units later
  input<std::int64_t> enter{this, "enter"};
  input<void> wait{this, "wait"};
  multiport_output<void> start_cutting, done_cutting;
  output<void> next{this, "next"};
  std::int64_t rate, busy_units = 0, overlaps = 0, sleeps = 0;
  bool cutting = false;
  std::vector<std::int64_t> haircuts;  ///< [customer]
  std::uint64_t sink = 0;
  random64 random = barber_barber_random();

  bs_barber(context ctx, std::size_t customers, std::int64_t rate)
      : reactor(ctx),
        start_cutting{this, "start_cutting", customers},
        done_cutting{this, "done_cutting", customers},
        rate(rate),
        haircuts(customers, 0) {
    reaction("done")
        .triggers(done)
        .effects(done_cutting, next)
        .body([this](multiport_writer<void>& customer, port_writer<void>& next_please) {
          cutting = false;
          customer[std::size_t(done.get())].set();
          next_please.set();
        });
    reaction("enter")
        .triggers(enter)
        .effects(start_cutting, done)
        .body([this](multiport_writer<void>& customer, action_scheduler<std::int64_t>& finish) {
          const std::int64_t id = enter.get();
          if (cutting) ++overlaps;
          cutting = true;
          customer[std::size_t(id)].set();
          const std::int64_t units = barber_busy_units(random, this->rate);
          sink ^= busy_wait(units, std::uint64_t(units));
          busy_units += units;
          ++haircuts[std::size_t(id)];
          finish.schedule(id, duration(units));
        });
    reaction("sleep").triggers(wait).body([this] { ++sleeps; });
  }
};

struct bs_program : reactor {
  bs_factory factory;
  bs_room room;
  bs_barber barber;
  bank<bs_customer> customers;

  explicit bs_program(context ctx, const barber_case& c)
      : reactor(ctx),
        factory{{this, "factory"}, c.haircuts, c.production_rate},
        room{{this, "room"}, std::size_t(c.haircuts), std::size_t(c.waiting_room)},
        barber{{this, "barber"}, std::size_t(c.haircuts), c.haircut_rate},
        customers{this, "customers", std::size_t(c.haircuts)} {
    connect(factory.send_customers, room.arriving);
    connect(room.full, customers.ports(&bs_customer::room_full));
    connect(room.wait, customers.ports(&bs_customer::wait));
    connect(room.barber_enter, barber.enter);
    connect(room.barber_wait, barber.wait);
    connect(barber.next, room.barber_next);
    connect(barber.start_cutting, customers.ports(&bs_customer::start_cutting));
    connect(barber.done_cutting, customers.ports(&bs_customer::done_cutting));
    connect(customers.ports(&bs_customer::returned), factory.customer_returned);
    connect(customers.ports(&bs_customer::done), factory.customer_done);
  }
};

json barber(const bench_params& p) {
  const barber_case c(p);
  spate::runtime rt{reactor_runtime_config(p)};
  json result;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<bs_program>(
        rt, p,
        [&](bs_program& program) {
          barber_result r = c.new_result();
          r.haircuts = program.barber.haircuts;
          for (std::size_t i = 0; i < std::size_t(c.haircuts); ++i) {
            r.cut[i] = program.customers[i].cuts_done;
            r.returns[i] = program.customers[i].returns;
          }
          r.returned = program.factory.returned;
          r.entries = program.room.entries;
          r.turned_away = program.room.turned_away;
          r.max_waiting = program.room.max_waiting;
          r.barber_units = program.barber.busy_units;
          c.check(r);
          require(program.barber.overlaps == 0, "barber",
                  "the barber started " + std::to_string(program.barber.overlaps) +
                      " haircuts before finishing the one before");
          std::int64_t cut = 0;
          for (std::size_t i = 0; i < std::size_t(c.haircuts); ++i) {
            cut += program.customers[i].cuts_started;
          }
          require(cut == c.haircuts, "barber",
                  "customers saw " + std::to_string(cut) + " haircuts start, expected " +
                      std::to_string(c.haircuts));
          result = {{"attempts", barber_case::attempts(r)},
                    {"max_waiting", r.max_waiting},
                    {"sleeps", program.barber.sleeps}};
        },
        c);
  });
  m["result"] = result;
  return m;
}

// ---------------------------------------------------------------- cigsmok
// Savina's protocol in lock-step: the arbiter wakes a smoker, the smoker says it started
// (in the same tag, before smoking), and the arbiter's logical action begins the next round
// one microstep later. LF's arbiter does not wait for the smoker, which gives the same tags;
// here the rounds counted are the smokers' answers. As in LF, a smoker's busy wait ends
// before the next tag: the tags' barrier serialises the smoking.

struct cs_smoker : reactor {
  input<std::int64_t> start_smoking{this, "start_smoking"};
  output<void> started{this, "started"};
  std::int64_t smoked = 0, units = 0;
  std::uint64_t sink = 0;

  explicit cs_smoker(context ctx) : reactor(ctx) {
    reaction("smoke").triggers(start_smoking).effects(started).body([this](port_writer<void>& out) {
      out.set();
      const std::int64_t u = start_smoking.get();
      sink ^= busy_wait(u, std::uint64_t(u));
      ++smoked;
      units += u;
    });
  }
};

struct cs_arbiter : reactor {
  logical_action<void> choose{this, "choose"};
  multiport_output<std::int64_t> start_smoking;
  multiport_input<void> started;
  std::int64_t rounds, rounds_so_far = 0;
  random64 random;

  cs_arbiter(context ctx, std::int64_t rounds, std::int64_t smokers)
      : reactor(ctx),
        start_smoking{this, "start_smoking", std::size_t(smokers)},
        started{this, "started", std::size_t(smokers)},
        rounds(rounds),
        random(cigsmok_random(rounds, smokers)) {
    reaction("start").triggers(startup).effects(choose).body(
        [](action_scheduler<void>& choose) { choose.schedule(); });
    reaction("choose")
        .triggers(choose)
        .effects(start_smoking)
        .body([this](multiport_writer<std::int64_t>& out) {
          const smoke_choice c = next_smoke_choice(random, std::int64_t(out.size()));
          out[std::size_t(c.smoker)].set(c.units);
        });
    reaction("started").triggers(started).effects(choose).body(
        [this](action_scheduler<void>& again) {
          rounds_so_far += std::int64_t(started.present_indices().size());
          if (rounds_so_far < this->rounds) again.schedule();
        });
  }
};

struct cs_program : reactor {
  cs_arbiter arbiter;
  bank<cs_smoker> smokers;
  cs_program(context ctx, std::int64_t rounds, std::int64_t count)
      : reactor(ctx),
        arbiter{{this, "arbiter"}, rounds, count},
        smokers{this, "smokers", std::size_t(count)} {
    connect(arbiter.start_smoking, smokers.ports(&cs_smoker::start_smoking));
    connect(smokers.ports(&cs_smoker::started), arbiter.started);
  }
};

json cigsmok(const bench_params& p) {
  const cigsmok_case c(p);
  spate::runtime rt{reactor_runtime_config(p)};
  std::uint64_t digest = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<cs_program>(
        rt, p,
        [&](cs_program& program) {
          cigsmok_result r = c.new_result();
          digest = 0;
          for (std::size_t i = 0; i < std::size_t(c.smokers); ++i) {
            r.smoked[i] = program.smokers[i].smoked;
            r.units[i] = program.smokers[i].units;
            digest += (i + 1) * std::uint64_t(r.smoked[i] * 1'000'003 + r.units[i]);
          }
          c.check(r);
        },
        c.rounds, c.smokers);
  });
  m["result"] = digest;
  return m;
}

}  // namespace

void register_reactor_savina_shop(bench_registry& r) {
  r.implement("barber", "spate-reactor", barber);
  r.implement("cigsmok", "spate-reactor", cigsmok);
}

}  // namespace spate_bench
