// Savina's concurrency benchmarks with CAF 0.17 where actors wait on one another:
// philosopher, logmap, banking (protocols and sizes: docs/benchmarks.md). The message
// protocols of spate_actor_savina_coordination.cpp (Savina's Akka versions), the same inputs,
// references and checks (savina_workloads.hpp, savina_checks.hpp), written the way CAF users
// write CAF: stateful function-based actors, atoms, a reply by return where it is immediate.
// Set-up and teardown are untimed (savina::timed_iteration). concdict, concsll and bndbuffer
// are in caf_savina_benchmarks.cpp, trapezoid and nqueenk in caf_savina_parallel.cpp;
// caf1_savina_coordination.cpp is the CAF 1.1 port of this file, actor for actor.
#include <caf/all.hpp>

#include <algorithm>
#include <deque>
#include <future>
#include <utility>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/caf_config.hpp"
#include "../runner/measure.hpp"
#include "savina_checks.hpp"
#include "savina_support.hpp"
#include "savina_workloads.hpp"

namespace spate_bench {
namespace {

using namespace savina;

// CAF 0.17 constructs a state from the actor's pointer when it can (stateful_actor's
// cr_state), and in C++20 an aggregate whose first member a pointer converts to (a bool, an
// actor handle) can be: no state below starts with one.

using go_atom = caf::atom_constant<caf::atom("go")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using start_atom = caf::atom_constant<caf::atom("start")>;
using exit_atom = caf::atom_constant<caf::atom("exit")>;
using hungry_atom = caf::atom_constant<caf::atom("hungry")>;
using eat_atom = caf::atom_constant<caf::atom("eat")>;
using denied_atom = caf::atom_constant<caf::atom("denied")>;
using next_term_atom = caf::atom_constant<caf::atom("next_term")>;
using get_term_atom = caf::atom_constant<caf::atom("get_term")>;
using compute_atom = caf::atom_constant<caf::atom("compute")>;
using term_atom = caf::atom_constant<caf::atom("term")>;
using credit_atom = caf::atom_constant<caf::atom("credit")>;
using debit_atom = caf::atom_constant<caf::atom("debit")>;
using reply_atom = caf::atom_constant<caf::atom("reply")>;

// ---------------------------------------------------------------- philosopher
// N philosophers ask an arbitrator for their two forks, retrying at once when denied; one
// that ate sends itself the next start. The arbitrator answers eat or denied: two message
// types, so it sends to the philosopher named in the request rather than returning.
struct arbitrator_state {
  std::size_t exited = 0;
  std::vector<bool> fork_taken;
};
caf::behavior arbitrator(caf::stateful_actor<arbitrator_state>* self, std::size_t philosophers,
                         ph_result* result, std::promise<void>* done) {
  self->state.fork_taken.assign(philosophers, false);
  return {
      [=](hungry_atom, const caf::actor& from, std::int32_t id) {
        auto& forks = self->state.fork_taken;
        const auto left = std::size_t(id), right = (left + 1) % forks.size();
        if (forks[left] || forks[right]) {
          self->send(from, denied_atom::value);
          return;
        }
        forks[left] = forks[right] = true;
        self->send(from, eat_atom::value);
      },
      [=](done_atom, std::int32_t id) {
        auto& forks = self->state.fork_taken;
        const auto left = std::size_t(id), right = (left + 1) % forks.size();
        if (!forks[left] || !forks[right]) ++result->conflicts;
        forks[left] = forks[right] = false;
      },
      [=](exit_atom, std::int32_t id, std::int64_t meals, std::int64_t denials) {
        auto& s = self->state;
        result->meals[std::size_t(id)] = meals;
        result->denials += denials;
        if (++s.exited < s.fork_taken.size()) return;
        result->forks_free_at_end = std::none_of(s.fork_taken.begin(), s.fork_taken.end(),
                                                 [](bool taken) { return taken; });
        done->set_value();
        self->quit();
      },
  };
}

struct philosopher_state {
  std::int64_t meals = 0, denials = 0;
  caf::actor arbiter;
};
caf::behavior philosopher(caf::stateful_actor<philosopher_state>* self, std::int32_t id,
                          std::int64_t rounds, caf::actor arbiter) {
  self->state.arbiter = std::move(arbiter);
  auto hungry = [=] {
    self->send(self->state.arbiter, hungry_atom::value, caf::actor_cast<caf::actor>(self), id);
  };
  return {
      [=](start_atom) { hungry(); },
      [=](denied_atom) {
        ++self->state.denials;
        hungry();
      },
      [=](eat_atom) {
        auto& s = self->state;
        ++s.meals;
        self->send(s.arbiter, done_atom::value, id);
        if (s.meals < rounds) {
          self->send(self, start_atom::value);
          return;
        }
        self->send(s.arbiter, exit_atom::value, id, s.meals, s.denials);
        s.arbiter = nullptr;
        self->quit();
      },
  };
}

json philosopher_bench(const bench_params& p) {
  const philosopher_case c(p);
  caf_system owner(p);
  caf::actor_system& system = *owner;
  return savina_iterations(p, [&] {
    ph_result result = c.new_result();
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto arbiter = system.spawn(arbitrator, std::size_t(c.count), &result, done);
          std::vector<caf::actor> table;
          for (std::int64_t i = 0; i < c.count; ++i) {
            table.push_back(system.spawn(philosopher, std::int32_t(i), c.rounds, arbiter));
          }
          return [table] {
            for (auto& ph : table) caf::anon_send(ph, start_atom::value);
          };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

// ---------------------------------------------------------------- logmap
// S series of the logistic map; each series worker asks its rate computer for every term
// (the computer returns it) and stashes what arrives while it waits (Savina's ManualStash
// variant, with the stash drained in place rather than re-sent to itself).
caf::behavior rate_computer(caf::event_based_actor* self, double rate) {
  return {
      [=](compute_atom, double x) { return logistic_step(rate, x); },
      [=](stop_atom) { self->quit(); },
  };
}

enum class lm_request : std::uint8_t { next_term, get_term };
struct series_state {
  double x = 0;
  std::int64_t terms = 0;
  bool waiting = false;
  std::deque<lm_request> stash;
  caf::actor computer, master;
};
caf::behavior series_worker(caf::stateful_actor<series_state>* self, std::int32_t index,
                            caf::actor computer, caf::actor master) {
  self->state.x = series_start(index);
  self->state.computer = std::move(computer);
  self->state.master = std::move(master);
  auto handle = [=](lm_request r) {
    auto& s = self->state;
    if (r == lm_request::next_term) {
      self->send(s.computer, compute_atom::value, s.x);
      s.waiting = true;
    } else {
      self->send(s.master, term_atom::value, index, s.x, s.terms);
    }
  };
  return {
      [=](next_term_atom) {
        if (self->state.waiting) {
          self->state.stash.push_back(lm_request::next_term);
        } else {
          handle(lm_request::next_term);
        }
      },
      [=](get_term_atom) {
        if (self->state.waiting || !self->state.stash.empty()) {
          self->state.stash.push_back(lm_request::get_term);
        } else {
          handle(lm_request::get_term);
        }
      },
      [=](double x) {  // the rate computer's reply
        auto& s = self->state;
        s.x = x;
        ++s.terms;
        s.waiting = false;
        while (!s.waiting && !s.stash.empty()) {
          const auto next = s.stash.front();
          s.stash.pop_front();
          handle(next);
        }
      },
      [=](stop_atom) {
        self->state.computer = nullptr;
        self->state.master = nullptr;
        self->quit();
      },
  };
}

struct lm_master_state {
  std::size_t received = 0;
  std::vector<caf::actor> workers, computers;
};
caf::behavior lm_master(caf::stateful_actor<lm_master_state>* self, std::int64_t terms,
                        std::vector<lm_term>* results, std::promise<void>* done) {
  return {
      [=](const std::vector<caf::actor>& workers, const std::vector<caf::actor>& computers) {
        self->state.workers = workers;
        self->state.computers = computers;
      },
      [=](go_atom) {
        for (std::int64_t t = 0; t < terms; ++t) {
          for (auto& w : self->state.workers) self->send(w, next_term_atom::value);
        }
        for (auto& w : self->state.workers) self->send(w, get_term_atom::value);
      },
      [=](term_atom, std::int32_t series, double x, std::int64_t computed) {
        auto& s = self->state;
        (*results)[std::size_t(series)] = lm_term{series, x, computed};
        if (++s.received < s.workers.size()) return;
        for (auto& w : s.workers) self->send(w, stop_atom::value);
        for (auto& c : s.computers) self->send(c, stop_atom::value);
        s.workers.clear();
        s.computers.clear();
        done->set_value();
        self->quit();
      },
  };
}

json logmap(const bench_params& p) {
  const logmap_case c(p);
  caf_system owner(p);
  caf::actor_system& system = *owner;
  return savina_iterations(p, [&] {
    std::vector<lm_term> results(std::size_t(c.series));
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn(lm_master, c.terms, &results, done);
          std::vector<caf::actor> workers, computers;
          for (std::int64_t s = 0; s < c.series; ++s) {
            computers.push_back(system.spawn(rate_computer, series_rate(c.rate, s)));
            workers.push_back(
                system.spawn(series_worker, std::int32_t(s), computers.back(), master));
          }
          caf::anon_send(master, std::move(workers), std::move(computers));
          return [master] { caf::anon_send(master, go_atom::value); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(results);
    return seconds;
  });
}

// ---------------------------------------------------------------- banking
// A teller sends every transfer at once to its source account; an account pays, waits for
// the destination's reply and stashes whatever arrives meanwhile (Savina's ManualStash
// variant). Destinations are above sources, so the waits cannot form a cycle. A debit names
// its payer: a stashed one is answered later, while another message is current.
struct teller_state {
  std::size_t completed = 0;
  std::vector<caf::actor> accounts;
};
caf::behavior teller(caf::stateful_actor<teller_state>* self, std::vector<caf::actor> accounts,
                     const std::vector<transfer>* transfers, std::promise<void>* done) {
  self->state.accounts = std::move(accounts);
  return {
      [=](go_atom) {
        const auto& bank = self->state.accounts;
        for (const auto& t : *transfers) {
          self->send(bank[std::size_t(t.from)], credit_atom::value, bank[std::size_t(t.to)],
                     t.amount);
        }
      },
      [=](done_atom) {
        auto& s = self->state;
        if (++s.completed < transfers->size()) return;
        for (auto& a : s.accounts) self->send(a, stop_atom::value);
        s.accounts.clear();
        done->set_value();
        self->quit();
      },
  };
}

struct bk_stashed {
  bool credit;  ///< a credit (pay `peer`) or a debit (paid by `peer`)
  caf::actor peer;
  std::int64_t amount;
};
struct account_state {
  std::int64_t balance = initial_balance;
  bool waiting = false;
  std::deque<bk_stashed> stash;
  caf::actor bank;
};
caf::behavior bank_account(caf::stateful_actor<account_state>* self, std::size_t index,
                           std::vector<std::int64_t>* balances) {
  auto credit = [=](const caf::actor& to, std::int64_t amount) {
    self->state.balance -= amount;
    self->send(to, debit_atom::value, caf::actor_cast<caf::actor>(self), amount);
    self->state.waiting = true;
  };
  auto debit = [=](const caf::actor& from, std::int64_t amount) {
    self->state.balance += amount;
    self->send(from, reply_atom::value);
  };
  return {
      [=](const caf::actor& bank) { self->state.bank = bank; },
      [=](credit_atom, const caf::actor& to, std::int64_t amount) {
        if (self->state.waiting) {
          self->state.stash.push_back(bk_stashed{true, to, amount});
        } else {
          credit(to, amount);
        }
      },
      [=](debit_atom, const caf::actor& from, std::int64_t amount) {
        if (self->state.waiting) {
          self->state.stash.push_back(bk_stashed{false, from, amount});
        } else {
          debit(from, amount);
        }
      },
      [=](reply_atom) {
        auto& s = self->state;
        s.waiting = false;
        self->send(s.bank, done_atom::value);
        while (!s.waiting && !s.stash.empty()) {
          const bk_stashed next = std::move(s.stash.front());
          s.stash.pop_front();
          if (next.credit) {
            credit(next.peer, next.amount);
          } else {
            debit(next.peer, next.amount);
          }
        }
      },
      [=](stop_atom) {
        (*balances)[index] = self->state.balance;
        self->state.bank = nullptr;
        self->quit();
      },
  };
}

json banking(const bench_params& p) {
  const banking_case c(p);
  caf_system owner(p);
  caf::actor_system& system = *owner;
  return savina_iterations(p, [&] {
    std::vector<std::int64_t> balances(std::size_t(c.accounts));
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          std::vector<caf::actor> bank;
          for (std::int64_t i = 0; i < c.accounts; ++i) {
            bank.push_back(system.spawn(bank_account, std::size_t(i), &balances));
          }
          auto t = system.spawn(teller, bank, &c.transfers, done);
          for (auto& a : bank) caf::anon_send(a, t);
          return [t] { caf::anon_send(t, go_atom::value); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(balances);
    return seconds;
  });
}

}  // namespace

void register_caf_savina_coordination(bench_registry& r) {
  r.implement("philosopher", "caf", philosopher_bench);
  r.implement("logmap", "caf", logmap);
  r.implement("banking", "caf", banking);
}

}  // namespace spate_bench
