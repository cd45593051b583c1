// Savina's concurrency benchmarks with spate's typed actors where actors wait on one another:
// philosopher (forks granted by an arbitrator), logmap and banking (one request outstanding,
// what arrives meanwhile stashed); protocols and sizes: docs/benchmarks.md. concdict, concsll
// and bndbuffer, clients of one shared actor, are in spate_actor_savina_concurrency.cpp. As
// there, each follows the message protocol of Savina's Akka version, which CAF's ports follow
// too; each iteration creates its actors untimed, is timed from the first message to the
// completion signal, and its result is checked against a sequential reference
// (savina_workloads.hpp).
#include <algorithm>
#include <deque>
#include <variant>
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
struct stop {};

// ---------------------------------------------------------------- philosopher
// N philosophers ask an arbitrator for their two forks, retrying at once when denied.
struct philosopher;
struct ph_hungry {
  actor_ref<philosopher> from;
  std::int32_t id;
};
struct ph_done {
  std::int32_t id;
};
struct ph_exit {
  std::int32_t id;
  std::int64_t meals, denials;
};
struct ph_start {};
struct ph_eat {};
struct ph_denied {};

struct arbitrator : spate::typed_actor<arbitrator, ph_hungry, ph_done, ph_exit> {
  arbitrator(std::size_t philosophers, ph_result* result, std::promise<void>* done)
      : fork_taken(philosophers, false), result(result), done(done) {}
  void on(ph_hungry& h) {
    const auto left = std::size_t(h.id), right = (left + 1) % fork_taken.size();
    if (fork_taken[left] || fork_taken[right]) {
      send(h.from, ph_denied{});
      return;
    }
    fork_taken[left] = fork_taken[right] = true;
    send(h.from, ph_eat{});
  }
  void on(ph_done& d) {
    const auto left = std::size_t(d.id), right = (left + 1) % fork_taken.size();
    if (!fork_taken[left] || !fork_taken[right]) ++result->conflicts;
    fork_taken[left] = fork_taken[right] = false;
  }
  void on(ph_exit& e) {
    result->meals[std::size_t(e.id)] = e.meals;
    result->denials += e.denials;
    if (++exited < fork_taken.size()) return;
    result->forks_free_at_end =
        std::none_of(fork_taken.begin(), fork_taken.end(), [](bool taken) { return taken; });
    done->set_value();
    quit();
  }
  std::vector<bool> fork_taken;
  std::size_t exited = 0;
  ph_result* result;
  std::promise<void>* done;
};

struct philosopher : spate::typed_actor<philosopher, ph_start, ph_eat, ph_denied> {
  philosopher(std::int32_t id, std::int64_t rounds, actor_ref<arbitrator> arbiter)
      : id(id), rounds(rounds), arbiter(std::move(arbiter)) {}
  void on(ph_start&) { send(arbiter, ph_hungry{typed_self(), id}); }
  void on(ph_denied&) {
    ++denials;
    send(arbiter, ph_hungry{typed_self(), id});
  }
  void on(ph_eat&) {
    ++meals;
    send(arbiter, ph_done{id});
    if (meals < rounds) {
      send(typed_self(), ph_start{});
      return;
    }
    send(arbiter, ph_exit{id, meals, denials});
    arbiter = nullptr;
    quit();
  }
  std::int32_t id;
  std::int64_t rounds, meals = 0, denials = 0;
  actor_ref<arbitrator> arbiter;
};

json philosopher_bench(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const philosopher_case c(p);
  return savina_iterations(p, [&] {
    ph_result result = c.new_result();
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto arbiter = system.spawn<arbitrator>(std::size_t(c.count), &result, done);
          std::vector<actor_ref<philosopher>> table;
          for (std::int64_t i = 0; i < c.count; ++i) {
            table.push_back(system.spawn<philosopher>(std::int32_t(i), c.rounds, arbiter));
          }
          return [table] {
            for (auto& ph : table) send(ph, ph_start{});
          };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

// ---------------------------------------------------------------- logmap
// S series of the logistic map; each series worker asks its rate computer for every term
// and stashes what arrives while it waits (Savina's ManualStash variant, with the stash
// drained in place rather than re-sent to itself).
struct series_worker;
struct lm_compute {
  actor_ref<series_worker> from;
  double x;
};
struct lm_computed {
  double x;
};
struct lm_next_term {};
struct lm_get_term {};

struct rate_computer : spate::typed_actor<rate_computer, lm_compute, stop> {
  explicit rate_computer(double rate) : rate(rate) {}
  void on(lm_compute& c) { send(c.from, lm_computed{logistic_step(rate, c.x)}); }
  void on(stop&) { quit(); }
  double rate;
};

struct lm_master;
struct series_worker
    : spate::typed_actor<series_worker, lm_next_term, lm_get_term, lm_computed, stop> {
  series_worker(std::int32_t index, actor_ref<rate_computer> computer, actor_ref<lm_master> master)
      : index(index),
        x(series_start(index)),
        computer(std::move(computer)),
        master(std::move(master)) {}
  void on(lm_next_term& m) {
    if (waiting) {
      stash.emplace_back(m);
    } else {
      handle(m);
    }
  }
  void on(lm_get_term& m) {
    if (waiting || !stash.empty()) {
      stash.emplace_back(m);
    } else {
      handle(m);
    }
  }
  void on(lm_computed& c) {
    x = c.x;
    ++terms;
    waiting = false;
    while (!waiting && !stash.empty()) {
      const auto next = stash.front();
      stash.pop_front();
      std::visit([this](auto m) { handle(m); }, next);
    }
  }
  void on(stop&) {
    computer = nullptr;
    master = nullptr;
    quit();
  }
  void handle(lm_next_term) {
    send(computer, lm_compute{typed_self(), x});
    waiting = true;
  }
  void handle(lm_get_term);
  std::int32_t index;
  double x;
  std::int64_t terms = 0;
  bool waiting = false;
  std::deque<std::variant<lm_next_term, lm_get_term>> stash;
  actor_ref<rate_computer> computer;
  actor_ref<lm_master> master;
};

struct lm_setup {
  std::vector<actor_ref<series_worker>> workers;
  std::vector<actor_ref<rate_computer>> computers;
};
struct lm_master : spate::typed_actor<lm_master, lm_setup, go, lm_term> {
  lm_master(std::int64_t terms, std::vector<lm_term>* results, std::promise<void>* done)
      : terms(terms), results(results), done(done) {}
  void on(lm_setup& s) {
    workers = std::move(s.workers);
    computers = std::move(s.computers);
  }
  void on(go&) {
    for (std::int64_t t = 0; t < terms; ++t) {
      for (auto& w : workers) send(w, lm_next_term{});
    }
    for (auto& w : workers) send(w, lm_get_term{});
  }
  void on(lm_term& r) {
    (*results)[std::size_t(r.series)] = r;
    if (++received < workers.size()) return;
    for (auto& w : workers) send(w, stop{});
    for (auto& c : computers) send(c, stop{});
    workers.clear();
    computers.clear();
    done->set_value();
    quit();
  }
  std::int64_t terms;
  std::size_t received = 0;
  std::vector<actor_ref<series_worker>> workers;
  std::vector<actor_ref<rate_computer>> computers;
  std::vector<lm_term>* results;
  std::promise<void>* done;
};
void series_worker::handle(lm_get_term) {
  send(master, lm_term{index, x, terms});
}

json logmap(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const logmap_case c(p);
  return savina_iterations(p, [&] {
    std::vector<lm_term> results(std::size_t(c.series));
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn<lm_master>(c.terms, &results, done);
          lm_setup setup;
          for (std::int64_t s = 0; s < c.series; ++s) {
            setup.computers.push_back(system.spawn<rate_computer>(series_rate(c.rate, s)));
            setup.workers.push_back(
                system.spawn<series_worker>(std::int32_t(s), setup.computers.back(), master));
          }
          send(master, std::move(setup));
          return [master] { send(master, go{}); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(results);
    return seconds;
  });
}

// ---------------------------------------------------------------- banking
// A teller sends every transfer at once to its source account; an account pays, waits for
// the destination's acknowledgement and stashes whatever arrives meanwhile (Savina's
// ManualStash variant). Destinations are above sources, so the waits cannot form a cycle.
struct account;
struct bk_credit {
  actor_ref<account> to;
  std::int64_t amount;
};
struct bk_debit {
  actor_ref<account> from;
  std::int64_t amount;
};
struct bk_debit_done {};
struct bk_transfer_done {};

struct teller : spate::typed_actor<teller, go, bk_transfer_done> {
  teller(std::vector<actor_ref<account>> accounts, const std::vector<transfer>* transfers,
         std::promise<void>* done)
      : accounts(std::move(accounts)), transfers(transfers), done(done) {}
  void on(go&) {
    for (const auto& t : *transfers) {
      send(accounts[std::size_t(t.from)], bk_credit{accounts[std::size_t(t.to)], t.amount});
    }
  }
  void on(bk_transfer_done&);
  std::vector<actor_ref<account>> accounts;
  const std::vector<transfer>* transfers;
  std::size_t completed = 0;
  std::promise<void>* done;
};

struct account
    : spate::typed_actor<account, actor_ref<teller>, bk_credit, bk_debit, bk_debit_done, stop> {
  account(std::size_t index, std::vector<std::int64_t>* balances)
      : index(index), balances(balances) {}
  void on(actor_ref<teller>& t) { bank = std::move(t); }
  void on(bk_credit& c) {
    if (waiting) {
      stash.emplace_back(std::move(c));
    } else {
      handle(c);
    }
  }
  void on(bk_debit& d) {
    if (waiting) {
      stash.emplace_back(std::move(d));
    } else {
      handle(d);
    }
  }
  void on(bk_debit_done&) {
    waiting = false;
    send(bank, bk_transfer_done{});
    while (!waiting && !stash.empty()) {
      auto next = std::move(stash.front());
      stash.pop_front();
      std::visit([this](auto& m) { handle(m); }, next);
    }
  }
  void on(stop&) {
    (*balances)[index] = balance;
    bank = nullptr;
    quit();
  }
  void handle(bk_credit& c) {
    balance -= c.amount;
    send(c.to, bk_debit{typed_self(), c.amount});
    waiting = true;
  }
  void handle(bk_debit& d) {
    balance += d.amount;
    send(d.from, bk_debit_done{});
  }
  std::size_t index;
  std::int64_t balance = initial_balance;
  bool waiting = false;
  std::deque<std::variant<bk_credit, bk_debit>> stash;
  actor_ref<teller> bank;
  std::vector<std::int64_t>* balances;
};

void teller::on(bk_transfer_done&) {
  if (++completed < transfers->size()) return;
  for (auto& a : accounts) send(a, stop{});
  accounts.clear();
  done->set_value();
  quit();
}

json banking(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const banking_case c(p);
  return savina_iterations(p, [&] {
    std::vector<std::int64_t> balances(std::size_t(c.accounts));
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          std::vector<actor_ref<account>> bank;
          for (std::int64_t i = 0; i < c.accounts; ++i) {
            bank.push_back(system.spawn<account>(std::size_t(i), &balances));
          }
          auto t = system.spawn<teller>(bank, &c.transfers, done);
          for (auto& a : bank) send(a, t);
          return [t] { send(t, go{}); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(balances);
    return seconds;
  });
}

}  // namespace

void register_spate_actor_savina_coordination(bench_registry& r) {
  r.implement("philosopher", "spate-actor", philosopher_bench);
  r.implement("logmap", "spate-actor", logmap);
  r.implement("banking", "spate-actor", banking);
}

}  // namespace spate_bench
