// Savina's concurrency and parallelism benchmarks with CAF 1.1: caf_savina_benchmarks.cpp
// (CAF 0.17) ported to the 1.x API actor for actor, the same messages and protocols (those of
// spate_actor_savina_concurrency.cpp and spate_actor_savina_parallel.cpp, Savina's Akka
// versions), inputs, references and checks (savina_workloads.hpp, savina_checks.hpp);
// stateful function-based actors, atoms, a reply by return where it is immediate, sends
// through the mail API. Set-up and teardown are untimed (savina::timed_iteration). Built
// into spate-bench-caf1 only (bench/CMakeLists.txt); the atoms and queens_board have their
// type IDs in caf1_config.hpp's spate_caf1_savina block.
#include <caf/all.hpp>

#include <algorithm>
#include <deque>
#include <future>
#include <utility>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/caf1_config.hpp"
#include "../runner/measure.hpp"
#include "savina_checks.hpp"
#include "savina_support.hpp"
#include "savina_workloads.hpp"

namespace spate_bench {
namespace {

using namespace savina;
using namespace caf1;  // the atoms (caf1_config.hpp)

// ---------------------------------------------------------------- concdict
// W workers, one request outstanding each, against one dictionary actor that answers each
// request by returning the value.
struct dict_state {
  dictionary map;
};
caf::behavior dict_actor(caf::stateful_actor<dict_state>* self, dictionary* initial,
                         dict_result* result) {
  self->state().map = std::move(*initial);  // moved: the copy was made before the clock
  return {
      [=](write_atom, std::uint64_t key, std::uint64_t value) {
        self->state().map[key] = value;
        return value;
      },
      [=](read_atom, std::uint64_t key) {
        const auto it = self->state().map.find(key);
        return it == self->state().map.end() ? std::uint64_t{0} : it->second;
      },
      [=](stop_atom) {
        result->final_map = std::move(self->state().map);
        self->quit();
      },
  };
}

struct ended_state {  // a master that counts its workers' ends
  std::int64_t ended = 0;
  caf::actor shared;  ///< the dictionary or the list, stopped after the last worker
};
caf::behavior dict_master(caf::stateful_actor<ended_state>* self, std::int64_t workers,
                          caf::actor dict, dict_result* result, std::promise<void>* done) {
  self->state().shared = std::move(dict);
  return {
      [=](done_atom, std::uint64_t replies, std::uint64_t written_sum) {
        result->replies += replies;
        result->written_sum += written_sum;
        if (++self->state().ended < workers) return;
        self->mail(stop_atom_v).send(self->state().shared);
        self->state().shared = nullptr;
        done->set_value();
        self->quit();
      },
  };
}

struct dict_worker_state {
  std::uint64_t replies = 0, written_sum = 0;
  random64 random{0};
  bool last_was_write = false;
  caf::actor dict, master;
};
caf::behavior dict_worker(caf::stateful_actor<dict_worker_state>* self, std::int64_t index,
                          std::int64_t messages, std::int64_t write_percent, caf::actor dict,
                          caf::actor master) {
  self->state().random = dictionary_random(index);
  self->state().dict = std::move(dict);
  self->state().master = std::move(master);
  auto request = [=] {
    auto& s = self->state();
    const auto op = next_dictionary_operation(s.random, write_percent);
    s.last_was_write = op.write;
    if (op.write) {
      self->mail(write_atom_v, op.key, op.value).send(s.dict);
    } else {
      self->mail(read_atom_v, op.key).send(s.dict);
    }
  };
  return {
      [=](go_atom) { request(); },
      [=](std::uint64_t value) {  // the dictionary's reply
        auto& s = self->state();
        if (s.last_was_write) s.written_sum += value;
        if (++s.replies < std::uint64_t(messages)) {
          request();
          return;
        }
        self->mail(done_atom_v, s.replies, s.written_sum).send(s.master);
        s.dict = nullptr;
        s.master = nullptr;
        self->quit();
      },
  };
}

json concdict(const bench_params& p) {
  const concdict_case c(p);
  caf1_system owner(p);
  caf::actor_system& system = *owner;
  return savina_iterations(p, [&] {
    dict_result result;
    dictionary initial = c.prefill;  // the copy the spate version makes at spawn, untimed
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto dict = system.spawn(dict_actor, &initial, &result);
          auto master = system.spawn(dict_master, c.workers, dict, &result, done);
          std::vector<caf::actor> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(system.spawn(dict_worker, i, c.messages, c.write_percent, dict, master));
          }
          return [pool] {
            for (auto& w : pool) caf::anon_mail(go_atom_v).send(w);
          };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

// ---------------------------------------------------------------- concsll
// The same shape against a sorted linked list (savina_checks.hpp), one message type per
// operation as in Savina; every reply is a number returned by the list actor.
struct list_state {
  sorted_list list;
};
caf::behavior list_actor(caf::stateful_actor<list_state>* self, list_result* result) {
  return {
      [=](size_atom) { return self->state().list.size(); },
      [=](write_atom, std::uint32_t value) {
        self->state().list.insert(value);
        return std::uint64_t{value};
      },
      [=](contains_atom, std::uint32_t value) {
        return std::uint64_t{self->state().list.contains(value) ? 1u : 0u};
      },
      [=](stop_atom) {
        result->final_values = self->state().list.values();
        self->quit();
      },
  };
}

caf::behavior list_master(caf::stateful_actor<ended_state>* self, std::int64_t workers,
                          caf::actor list, list_result* result, std::promise<void>* done) {
  self->state().shared = std::move(list);
  return {
      [=](done_atom, std::uint64_t replies) {
        result->replies += replies;
        if (++self->state().ended < workers) return;
        self->mail(stop_atom_v).send(self->state().shared);
        self->state().shared = nullptr;
        done->set_value();
        self->quit();
      },
  };
}

struct list_worker_state {
  std::uint64_t replies = 0;
  random64 random{0};
  caf::actor list, master;
};
caf::behavior list_worker(caf::stateful_actor<list_worker_state>* self, std::int64_t index,
                          std::int64_t messages, std::int64_t write_percent,
                          std::int64_t size_percent, caf::actor list, caf::actor master) {
  self->state().random = list_random(index);
  self->state().list = std::move(list);
  self->state().master = std::move(master);
  auto request = [=] {
    auto& s = self->state();
    const auto op = next_list_operation(s.random, write_percent, size_percent);
    switch (op.kind) {
      case list_operation_kind::size:
        self->mail(size_atom_v).send(s.list);
        break;
      case list_operation_kind::write:
        self->mail(write_atom_v, op.value).send(s.list);
        break;
      case list_operation_kind::contains:
        self->mail(contains_atom_v, op.value).send(s.list);
        break;
    }
  };
  return {
      [=](go_atom) { request(); },
      [=](std::uint64_t) {  // the list's reply
        auto& s = self->state();
        if (++s.replies < std::uint64_t(messages)) {
          request();
          return;
        }
        self->mail(done_atom_v, s.replies).send(s.master);
        s.list = nullptr;
        s.master = nullptr;
        self->quit();
      },
  };
}

json concsll(const bench_params& p) {
  const concsll_case c(p);
  caf1_system owner(p);
  caf::actor_system& system = *owner;
  return savina_iterations(p, [&] {
    list_result result;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto list = system.spawn(list_actor, &result);
          auto master = system.spawn(list_master, c.workers, list, &result, done);
          std::vector<caf::actor> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(system.spawn(list_worker, i, c.messages, c.write_percent, c.size_percent,
                                        list, master));
          }
          return [pool] {
            for (auto& w : pool) caf::anon_mail(go_atom_v).send(w);
          };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

// ---------------------------------------------------------------- bndbuffer
// Producers and consumers through a manager that holds at most `buffer - producers` items
// (Savina's adjusted buffer size) before it stops asking producers for more. Producers and
// consumers name themselves in their messages, as Savina's DataItemMessage and
// ConsumerAvailable do; an item travels as (item, value, producer, seq).
struct bb_item {
  double value;
  std::int32_t producer;
  std::int64_t seq;
};
struct bb_manager_state {
  std::size_t exited_producers = 0;
  std::vector<caf::actor> producers, consumers;
  std::deque<caf::actor> available_consumers, available_producers;
  std::deque<bb_item> pending;
};
caf::behavior bb_manager(caf::stateful_actor<bb_manager_state>* self, std::size_t adjusted_buffer,
                         bb_result* result, std::promise<void>* done) {
  auto try_exit = [=] {
    auto& s = self->state();
    if (s.exited_producers < s.producers.size() ||
        s.available_consumers.size() < s.consumers.size()) {
      return;
    }
    for (auto& c : s.consumers) self->mail(stop_atom_v).send(c);
    s.producers.clear();
    s.consumers.clear();
    s.available_consumers.clear();
    s.available_producers.clear();
    done->set_value();
    self->quit();
  };
  return {
      [=](const std::vector<caf::actor>& producers, const std::vector<caf::actor>& consumers) {
        self->state().producers = producers;
        self->state().consumers = consumers;
        self->state().available_consumers.assign(consumers.begin(), consumers.end());
      },
      [=](go_atom) {
        for (auto& producer : self->state().producers) self->mail(produce_atom_v).send(producer);
      },
      [=](data_atom, const caf::actor& producer, double value, std::int32_t index,
          std::int64_t seq) {
        auto& s = self->state();
        if (s.available_consumers.empty()) {
          s.pending.push_back(bb_item{value, index, seq});
          result->max_pending = std::max(result->max_pending, s.pending.size());
        } else {
          self->mail(item_atom_v, value, index, seq).send(s.available_consumers.front());
          s.available_consumers.pop_front();
        }
        if (s.pending.size() >= adjusted_buffer) {
          s.available_producers.push_back(producer);
        } else {
          self->mail(produce_atom_v).send(producer);
        }
      },
      [=](available_atom, const caf::actor& consumer) {
        auto& s = self->state();
        if (s.pending.empty()) {
          s.available_consumers.push_back(consumer);
          try_exit();
          return;
        }
        const bb_item item = s.pending.front();
        s.pending.pop_front();
        self->mail(item_atom_v, item.value, item.producer, item.seq).send(consumer);
        if (!s.available_producers.empty()) {
          self->mail(produce_atom_v).send(s.available_producers.front());
          s.available_producers.pop_front();
        }
      },
      [=](exit_atom) {
        ++self->state().exited_producers;
        try_exit();
      },
  };
}

struct bb_producer_state {
  std::int64_t produced = 0;
  double value = 0;
  caf::actor manager;
};
caf::behavior bb_producer(caf::stateful_actor<bb_producer_state>* self, std::int32_t index,
                          std::int64_t items, std::int64_t cost, caf::actor manager) {
  self->state().manager = std::move(manager);
  return {
      [=](produce_atom) {
        auto& s = self->state();
        if (s.produced == items) {
          self->mail(exit_atom_v).send(s.manager);
          s.manager = nullptr;
          self->quit();
          return;
        }
        s.value = process_item(s.value, cost);
        self->mail(data_atom_v, caf::actor_cast<caf::actor>(self), s.value, index, s.produced)
            .send(s.manager);
        ++s.produced;
      },
  };
}

struct bb_consumer_state {
  std::int64_t seq_sum = 0;
  double value = 0;
  std::vector<std::int64_t> consumed;  ///< per producer
  caf::actor manager;
};
caf::behavior bb_consumer(caf::stateful_actor<bb_consumer_state>* self, std::size_t index,
                          std::size_t producers, std::int64_t cost, caf::actor manager,
                          bb_result* result) {
  self->state().consumed.resize(producers);
  self->state().manager = std::move(manager);
  return {
      [=](item_atom, double value, std::int32_t producer, std::int64_t seq) {
        auto& s = self->state();
        s.value = process_item(s.value + value, cost);
        ++s.consumed[std::size_t(producer)];
        s.seq_sum += seq;
        self->mail(available_atom_v, caf::actor_cast<caf::actor>(self)).send(s.manager);
      },
      [=](stop_atom) {
        result->consumed_per_consumer[index] = std::move(self->state().consumed);
        result->seq_sum_per_consumer[index] = self->state().seq_sum;
        self->state().manager = nullptr;
        self->quit();
      },
  };
}

json bndbuffer(const bench_params& p) {
  const bndbuffer_case c(p);
  caf1_system owner(p);
  caf::actor_system& system = *owner;
  return savina_iterations(p, [&] {
    bb_result result = c.new_result();
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto manager = system.spawn(bb_manager, c.adjusted_buffer(), &result, done);
          std::vector<caf::actor> producers, consumers;
          for (std::int64_t i = 0; i < c.producers; ++i) {
            producers.push_back(
                system.spawn(bb_producer, std::int32_t(i), c.items, c.produce_cost, manager));
          }
          for (std::int64_t i = 0; i < c.consumers; ++i) {
            consumers.push_back(system.spawn(bb_consumer, std::size_t(i), std::size_t(c.producers),
                                             c.consume_cost, manager, &result));
          }
          caf::anon_mail(std::move(producers), std::move(consumers)).send(manager);
          return [manager] { caf::anon_mail(go_atom_v).send(manager); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

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
  self->state().fork_taken.assign(philosophers, false);
  return {
      [=](hungry_atom, const caf::actor& from, std::int32_t id) {
        auto& forks = self->state().fork_taken;
        const auto left = std::size_t(id), right = (left + 1) % forks.size();
        if (forks[left] || forks[right]) {
          self->mail(denied_atom_v).send(from);
          return;
        }
        forks[left] = forks[right] = true;
        self->mail(eat_atom_v).send(from);
      },
      [=](done_atom, std::int32_t id) {
        auto& forks = self->state().fork_taken;
        const auto left = std::size_t(id), right = (left + 1) % forks.size();
        if (!forks[left] || !forks[right]) ++result->conflicts;
        forks[left] = forks[right] = false;
      },
      [=](exit_atom, std::int32_t id, std::int64_t meals, std::int64_t denials) {
        auto& s = self->state();
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
  self->state().arbiter = std::move(arbiter);
  auto hungry = [=] {
    self->mail(hungry_atom_v, caf::actor_cast<caf::actor>(self), id).send(self->state().arbiter);
  };
  return {
      [=](start_atom) { hungry(); },
      [=](denied_atom) {
        ++self->state().denials;
        hungry();
      },
      [=](eat_atom) {
        auto& s = self->state();
        ++s.meals;
        self->mail(done_atom_v, id).send(s.arbiter);
        if (s.meals < rounds) {
          self->mail(start_atom_v).send(self);
          return;
        }
        self->mail(exit_atom_v, id, s.meals, s.denials).send(s.arbiter);
        s.arbiter = nullptr;
        self->quit();
      },
  };
}

json philosopher_bench(const bench_params& p) {
  const philosopher_case c(p);
  caf1_system owner(p);
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
            for (auto& ph : table) caf::anon_mail(start_atom_v).send(ph);
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
  self->state().x = series_start(index);
  self->state().computer = std::move(computer);
  self->state().master = std::move(master);
  auto handle = [=](lm_request r) {
    auto& s = self->state();
    if (r == lm_request::next_term) {
      self->mail(compute_atom_v, s.x).send(s.computer);
      s.waiting = true;
    } else {
      self->mail(term_atom_v, index, s.x, s.terms).send(s.master);
    }
  };
  return {
      [=](next_term_atom) {
        if (self->state().waiting) {
          self->state().stash.push_back(lm_request::next_term);
        } else {
          handle(lm_request::next_term);
        }
      },
      [=](get_term_atom) {
        if (self->state().waiting || !self->state().stash.empty()) {
          self->state().stash.push_back(lm_request::get_term);
        } else {
          handle(lm_request::get_term);
        }
      },
      [=](double x) {  // the rate computer's reply
        auto& s = self->state();
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
        self->state().computer = nullptr;
        self->state().master = nullptr;
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
        self->state().workers = workers;
        self->state().computers = computers;
      },
      [=](go_atom) {
        for (std::int64_t t = 0; t < terms; ++t) {
          for (auto& w : self->state().workers) self->mail(next_term_atom_v).send(w);
        }
        for (auto& w : self->state().workers) self->mail(get_term_atom_v).send(w);
      },
      [=](term_atom, std::int32_t series, double x, std::int64_t computed) {
        auto& s = self->state();
        (*results)[std::size_t(series)] = lm_term{series, x, computed};
        if (++s.received < s.workers.size()) return;
        for (auto& w : s.workers) self->mail(stop_atom_v).send(w);
        for (auto& c : s.computers) self->mail(stop_atom_v).send(c);
        s.workers.clear();
        s.computers.clear();
        done->set_value();
        self->quit();
      },
  };
}

json logmap(const bench_params& p) {
  const logmap_case c(p);
  caf1_system owner(p);
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
          caf::anon_mail(std::move(workers), std::move(computers)).send(master);
          return [master] { caf::anon_mail(go_atom_v).send(master); };
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
  self->state().accounts = std::move(accounts);
  return {
      [=](go_atom) {
        const auto& bank = self->state().accounts;
        for (const auto& t : *transfers) {
          self->mail(credit_atom_v, bank[std::size_t(t.to)], t.amount)
              .send(bank[std::size_t(t.from)]);
        }
      },
      [=](done_atom) {
        auto& s = self->state();
        if (++s.completed < transfers->size()) return;
        for (auto& a : s.accounts) self->mail(stop_atom_v).send(a);
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
    self->state().balance -= amount;
    self->mail(debit_atom_v, caf::actor_cast<caf::actor>(self), amount).send(to);
    self->state().waiting = true;
  };
  auto debit = [=](const caf::actor& from, std::int64_t amount) {
    self->state().balance += amount;
    self->mail(reply_atom_v).send(from);
  };
  return {
      [=](const caf::actor& bank) { self->state().bank = bank; },
      [=](credit_atom, const caf::actor& to, std::int64_t amount) {
        if (self->state().waiting) {
          self->state().stash.push_back(bk_stashed{true, to, amount});
        } else {
          credit(to, amount);
        }
      },
      [=](debit_atom, const caf::actor& from, std::int64_t amount) {
        if (self->state().waiting) {
          self->state().stash.push_back(bk_stashed{false, from, amount});
        } else {
          debit(from, amount);
        }
      },
      [=](reply_atom) {
        auto& s = self->state();
        s.waiting = false;
        self->mail(done_atom_v).send(s.bank);
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
        (*balances)[index] = self->state().balance;
        self->state().bank = nullptr;
        self->quit();
      },
  };
}

json banking(const bench_params& p) {
  const banking_case c(p);
  caf1_system owner(p);
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
          for (auto& a : bank) caf::anon_mail(t).send(a);
          return [t] { caf::anon_mail(go_atom_v).send(t); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(balances);
    return seconds;
  });
}

// ---------------------------------------------------------------- trapezoid
// The master splits [left, right] among W workers; each integrates its share and answers
// once. The master adds the shares in worker order, so the sum is the same in every run.
caf::behavior tz_worker(caf::event_based_actor* self, std::int32_t index) {
  return {
      [=](work_atom, const caf::actor& master, double left, double h, std::int64_t pieces) {
        self->mail(area_atom_v, index, trapezoid_area(left, pieces, h)).send(master);
        self->quit();
      },
  };
}

struct tz_master_state {
  std::size_t received = 0;
  std::vector<caf::actor> workers;
  std::vector<double> shares;
};
caf::behavior tz_master(caf::stateful_actor<tz_master_state>* self, double left, double right,
                        std::int64_t pieces, double* area, std::promise<void>* done) {
  return {
      [=](const std::vector<caf::actor>& workers) {
        self->state().workers = workers;
        self->state().shares.assign(workers.size(), 0.0);
        for (std::size_t i = 0; i < workers.size(); ++i) {
          const auto share =
              trapezoid_work(left, right, pieces, std::int64_t(workers.size()), std::int64_t(i));
          self->mail(work_atom_v, caf::actor_cast<caf::actor>(self), share.left, share.h,
                     share.pieces)
              .send(workers[i]);
        }
      },
      [=](area_atom, std::int32_t worker, double share) {
        auto& s = self->state();
        s.shares[std::size_t(worker)] = share;
        if (++s.received < s.workers.size()) return;
        *area = 0;
        for (const double x : s.shares) *area += x;
        s.workers.clear();
        done->set_value();
        self->quit();
      },
  };
}

json trapezoid(const bench_params& p) {
  const trapezoid_case c(p);
  caf1_system owner(p);
  caf::actor_system& system = *owner;
  return savina_iterations(p, [&] {
    double area = 0;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn(tz_master, c.left, c.right, c.pieces, &area, done);
          std::vector<caf::actor> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(system.spawn(tz_worker, std::int32_t(i)));
          }
          return [master, pool] { caf::anon_mail(pool).send(master); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(area);
    return seconds;
  });
}

// ---------------------------------------------------------------- nqueenk
// The master hands boards round-robin to W workers; a worker below the threshold depth
// sends every valid one-row extension back as new work, at or past it searches the rest
// sequentially and reports each solution; every work item ends with a "done".
struct nq_worker_state {
  std::int32_t size = 0, threshold = 0;
  caf::actor master;
};
caf::behavior nq_worker(caf::stateful_actor<nq_worker_state>* self, std::int32_t size,
                        std::int32_t threshold) {
  self->state().size = size;
  self->state().threshold = threshold;
  return {
      [=](const caf::actor& master) { self->state().master = master; },
      [=](work_atom, const queens_board& b) {
        const auto& s = self->state();
        if (b.depth == s.size) {
          self->mail(solution_atom_v).send(s.master);
        } else if (b.depth >= s.threshold) {
          for (std::int64_t n = count_queens(b, s.size); n > 0; --n) {
            self->mail(solution_atom_v).send(s.master);
          }
        } else {
          queens_board child = b;
          ++child.depth;
          for (int col = 0; col < s.size; ++col) {
            child.columns[std::size_t(child.depth - 1)] = std::int8_t(col);
            if (last_queen_safe(child)) self->mail(work_atom_v, child).send(s.master);
          }
        }
        self->mail(done_atom_v).send(s.master);
      },
      [=](stop_atom) {
        self->state().master = nullptr;
        self->quit();
      },
  };
}

struct nq_master_state {
  std::int64_t sent = 0, completed = 0;
  std::size_t next_worker = 0;
  bool finished = false;
  std::vector<caf::actor> workers;
};
caf::behavior nq_master(caf::stateful_actor<nq_master_state>* self, std::int64_t limit,
                        std::int64_t* solutions, std::promise<void>* done) {
  auto forward = [=](const queens_board& b) {
    auto& s = self->state();
    self->mail(work_atom_v, b).send(s.workers[s.next_worker]);
    s.next_worker = (s.next_worker + 1) % s.workers.size();
    ++s.sent;
  };
  auto finish = [=] {
    auto& s = self->state();
    if (s.finished) return;
    s.finished = true;
    for (auto& w : s.workers) self->mail(stop_atom_v).send(w);
    s.workers.clear();
    done->set_value();
    self->quit();
  };
  return {
      [=](const std::vector<caf::actor>& workers) {
        self->state().workers = workers;
        for (auto& w : workers) self->mail(caf::actor_cast<caf::actor>(self)).send(w);
        forward(queens_board{});
      },
      [=](work_atom, const queens_board& b) { forward(b); },
      [=](solution_atom) {
        if (++*solutions >= limit) finish();
      },
      [=](done_atom) {
        if (++self->state().completed == self->state().sent) finish();
      },
  };
}

json nqueenk(const bench_params& p) {
  const nqueenk_case c(p);
  caf1_system owner(p);
  caf::actor_system& system = *owner;
  return savina_iterations(p, [&] {
    std::int64_t solutions = 0;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto master = system.spawn(nq_master, c.limit, &solutions, done);
          std::vector<caf::actor> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(
                system.spawn(nq_worker, std::int32_t(c.size), std::int32_t(c.threshold)));
          }
          return [master, pool] { caf::anon_mail(pool).send(master); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(solutions);
    return seconds;
  });
}

}  // namespace

void register_caf1_savina_benchmarks(bench_registry& r) {
  r.implement("concdict", "caf1", concdict);
  r.implement("concsll", "caf1", concsll);
  r.implement("bndbuffer", "caf1", bndbuffer);
  r.implement("philosopher", "caf1", philosopher_bench);
  r.implement("logmap", "caf1", logmap);
  r.implement("banking", "caf1", banking);
  r.implement("trapezoid", "caf1", trapezoid);
  r.implement("nqueenk", "caf1", nqueenk);
}

}  // namespace spate_bench
