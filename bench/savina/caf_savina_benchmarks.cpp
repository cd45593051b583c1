// Savina's concurrency and parallelism benchmarks with CAF 0.17: concdict, concsll,
// bndbuffer, philosopher, logmap, banking, trapezoid and nqueenk (protocols and sizes:
// docs/benchmarks.md). The message protocols of spate_actor_savina_concurrency.cpp and
// spate_actor_savina_parallel.cpp (Savina's Akka versions), the same inputs, references and
// checks (savina_workloads.hpp, savina_checks.hpp), written the way CAF users write CAF:
// stateful function-based actors, atoms, a reply by return where it is immediate. Set-up and
// teardown are untimed (savina::timed_iteration). caf1_savina_benchmarks.cpp is the CAF 1.1
// port of this file, actor for actor.
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

// nqueenk's boards travel as they are, as in the spate version (local sends never serialize).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(spate_bench::savina::queens_board)

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
using work_atom = caf::atom_constant<caf::atom("work")>;
using write_atom = caf::atom_constant<caf::atom("write")>;
using read_atom = caf::atom_constant<caf::atom("read")>;
using size_atom = caf::atom_constant<caf::atom("size")>;
using contains_atom = caf::atom_constant<caf::atom("contains")>;
using produce_atom = caf::atom_constant<caf::atom("produce")>;
using data_atom = caf::atom_constant<caf::atom("data")>;
using item_atom = caf::atom_constant<caf::atom("item")>;
using available_atom = caf::atom_constant<caf::atom("available")>;
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
using area_atom = caf::atom_constant<caf::atom("area")>;
using solution_atom = caf::atom_constant<caf::atom("solution")>;

// ---------------------------------------------------------------- concdict
// W workers, one request outstanding each, against one dictionary actor that answers each
// request by returning the value.
struct dict_state {
  dictionary map;
};
caf::behavior dict_actor(caf::stateful_actor<dict_state>* self, dictionary* initial,
                         dict_result* result) {
  self->state.map = std::move(*initial);  // moved: the copy was made before the clock
  return {
      [=](write_atom, std::uint64_t key, std::uint64_t value) {
        self->state.map[key] = value;
        return value;
      },
      [=](read_atom, std::uint64_t key) {
        const auto it = self->state.map.find(key);
        return it == self->state.map.end() ? std::uint64_t{0} : it->second;
      },
      [=](stop_atom) {
        result->final_map = std::move(self->state.map);
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
  self->state.shared = std::move(dict);
  return {
      [=](done_atom, std::uint64_t replies, std::uint64_t written_sum) {
        result->replies += replies;
        result->written_sum += written_sum;
        if (++self->state.ended < workers) return;
        self->send(self->state.shared, stop_atom::value);
        self->state.shared = nullptr;
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
  self->state.random = dictionary_random(index);
  self->state.dict = std::move(dict);
  self->state.master = std::move(master);
  auto request = [=] {
    auto& s = self->state;
    const auto op = next_dictionary_operation(s.random, write_percent);
    s.last_was_write = op.write;
    if (op.write) {
      self->send(s.dict, write_atom::value, op.key, op.value);
    } else {
      self->send(s.dict, read_atom::value, op.key);
    }
  };
  return {
      [=](go_atom) { request(); },
      [=](std::uint64_t value) {  // the dictionary's reply
        auto& s = self->state;
        if (s.last_was_write) s.written_sum += value;
        if (++s.replies < std::uint64_t(messages)) {
          request();
          return;
        }
        self->send(s.master, done_atom::value, s.replies, s.written_sum);
        s.dict = nullptr;
        s.master = nullptr;
        self->quit();
      },
  };
}

json concdict(const bench_params& p) {
  const concdict_case c(p);
  caf_system owner(p);
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
            for (auto& w : pool) caf::anon_send(w, go_atom::value);
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
      [=](size_atom) { return self->state.list.size(); },
      [=](write_atom, std::uint32_t value) {
        self->state.list.insert(value);
        return std::uint64_t{value};
      },
      [=](contains_atom, std::uint32_t value) {
        return std::uint64_t{self->state.list.contains(value) ? 1u : 0u};
      },
      [=](stop_atom) {
        result->final_values = self->state.list.values();
        self->quit();
      },
  };
}

caf::behavior list_master(caf::stateful_actor<ended_state>* self, std::int64_t workers,
                          caf::actor list, list_result* result, std::promise<void>* done) {
  self->state.shared = std::move(list);
  return {
      [=](done_atom, std::uint64_t replies) {
        result->replies += replies;
        if (++self->state.ended < workers) return;
        self->send(self->state.shared, stop_atom::value);
        self->state.shared = nullptr;
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
  self->state.random = list_random(index);
  self->state.list = std::move(list);
  self->state.master = std::move(master);
  auto request = [=] {
    auto& s = self->state;
    const auto op = next_list_operation(s.random, write_percent, size_percent);
    switch (op.kind) {
      case list_operation_kind::size:
        self->send(s.list, size_atom::value);
        break;
      case list_operation_kind::write:
        self->send(s.list, write_atom::value, op.value);
        break;
      case list_operation_kind::contains:
        self->send(s.list, contains_atom::value, op.value);
        break;
    }
  };
  return {
      [=](go_atom) { request(); },
      [=](std::uint64_t) {  // the list's reply
        auto& s = self->state;
        if (++s.replies < std::uint64_t(messages)) {
          request();
          return;
        }
        self->send(s.master, done_atom::value, s.replies);
        s.list = nullptr;
        s.master = nullptr;
        self->quit();
      },
  };
}

json concsll(const bench_params& p) {
  const concsll_case c(p);
  caf_system owner(p);
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
            for (auto& w : pool) caf::anon_send(w, go_atom::value);
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
    auto& s = self->state;
    if (s.exited_producers < s.producers.size() ||
        s.available_consumers.size() < s.consumers.size()) {
      return;
    }
    for (auto& c : s.consumers) self->send(c, stop_atom::value);
    s.producers.clear();
    s.consumers.clear();
    s.available_consumers.clear();
    s.available_producers.clear();
    done->set_value();
    self->quit();
  };
  return {
      [=](const std::vector<caf::actor>& producers, const std::vector<caf::actor>& consumers) {
        self->state.producers = producers;
        self->state.consumers = consumers;
        self->state.available_consumers.assign(consumers.begin(), consumers.end());
      },
      [=](go_atom) {
        for (auto& producer : self->state.producers) self->send(producer, produce_atom::value);
      },
      [=](data_atom, const caf::actor& producer, double value, std::int32_t index,
          std::int64_t seq) {
        auto& s = self->state;
        if (s.available_consumers.empty()) {
          s.pending.push_back(bb_item{value, index, seq});
          result->max_pending = std::max(result->max_pending, s.pending.size());
        } else {
          self->send(s.available_consumers.front(), item_atom::value, value, index, seq);
          s.available_consumers.pop_front();
        }
        if (s.pending.size() >= adjusted_buffer) {
          s.available_producers.push_back(producer);
        } else {
          self->send(producer, produce_atom::value);
        }
      },
      [=](available_atom, const caf::actor& consumer) {
        auto& s = self->state;
        if (s.pending.empty()) {
          s.available_consumers.push_back(consumer);
          try_exit();
          return;
        }
        const bb_item item = s.pending.front();
        s.pending.pop_front();
        self->send(consumer, item_atom::value, item.value, item.producer, item.seq);
        if (!s.available_producers.empty()) {
          self->send(s.available_producers.front(), produce_atom::value);
          s.available_producers.pop_front();
        }
      },
      [=](exit_atom) {
        ++self->state.exited_producers;
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
  self->state.manager = std::move(manager);
  return {
      [=](produce_atom) {
        auto& s = self->state;
        if (s.produced == items) {
          self->send(s.manager, exit_atom::value);
          s.manager = nullptr;
          self->quit();
          return;
        }
        s.value = process_item(s.value, cost);
        self->send(s.manager, data_atom::value, caf::actor_cast<caf::actor>(self), s.value, index,
                   s.produced);
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
  self->state.consumed.resize(producers);
  self->state.manager = std::move(manager);
  return {
      [=](item_atom, double value, std::int32_t producer, std::int64_t seq) {
        auto& s = self->state;
        s.value = process_item(s.value + value, cost);
        ++s.consumed[std::size_t(producer)];
        s.seq_sum += seq;
        self->send(s.manager, available_atom::value, caf::actor_cast<caf::actor>(self));
      },
      [=](stop_atom) {
        result->consumed_per_consumer[index] = std::move(self->state.consumed);
        result->seq_sum_per_consumer[index] = self->state.seq_sum;
        self->state.manager = nullptr;
        self->quit();
      },
  };
}

json bndbuffer(const bench_params& p) {
  const bndbuffer_case c(p);
  caf_system owner(p);
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
          caf::anon_send(manager, std::move(producers), std::move(consumers));
          return [manager] { caf::anon_send(manager, go_atom::value); };
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

// ---------------------------------------------------------------- trapezoid
// The master splits [left, right] among W workers; each integrates its share and answers
// once. The master adds the shares in worker order, so the sum is the same in every run.
caf::behavior tz_worker(caf::event_based_actor* self, std::int32_t index) {
  return {
      [=](work_atom, const caf::actor& master, double left, double h, std::int64_t pieces) {
        self->send(master, area_atom::value, index, trapezoid_area(left, pieces, h));
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
        self->state.workers = workers;
        self->state.shares.assign(workers.size(), 0.0);
        for (std::size_t i = 0; i < workers.size(); ++i) {
          const auto share =
              trapezoid_work(left, right, pieces, std::int64_t(workers.size()), std::int64_t(i));
          self->send(workers[i], work_atom::value, caf::actor_cast<caf::actor>(self), share.left,
                     share.h, share.pieces);
        }
      },
      [=](area_atom, std::int32_t worker, double share) {
        auto& s = self->state;
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
  caf_system owner(p);
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
          return [master, pool] { caf::anon_send(master, pool); };
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
  self->state.size = size;
  self->state.threshold = threshold;
  return {
      [=](const caf::actor& master) { self->state.master = master; },
      [=](work_atom, const queens_board& b) {
        const auto& s = self->state;
        if (b.depth == s.size) {
          self->send(s.master, solution_atom::value);
        } else if (b.depth >= s.threshold) {
          for (std::int64_t n = count_queens(b, s.size); n > 0; --n) {
            self->send(s.master, solution_atom::value);
          }
        } else {
          queens_board child = b;
          ++child.depth;
          for (int col = 0; col < s.size; ++col) {
            child.columns[std::size_t(child.depth - 1)] = std::int8_t(col);
            if (last_queen_safe(child)) self->send(s.master, work_atom::value, child);
          }
        }
        self->send(s.master, done_atom::value);
      },
      [=](stop_atom) {
        self->state.master = nullptr;
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
    auto& s = self->state;
    self->send(s.workers[s.next_worker], work_atom::value, b);
    s.next_worker = (s.next_worker + 1) % s.workers.size();
    ++s.sent;
  };
  auto finish = [=] {
    auto& s = self->state;
    if (s.finished) return;
    s.finished = true;
    for (auto& w : s.workers) self->send(w, stop_atom::value);
    s.workers.clear();
    done->set_value();
    self->quit();
  };
  return {
      [=](const std::vector<caf::actor>& workers) {
        self->state.workers = workers;
        for (auto& w : workers) self->send(w, caf::actor_cast<caf::actor>(self));
        forward(queens_board{});
      },
      [=](work_atom, const queens_board& b) { forward(b); },
      [=](solution_atom) {
        if (++*solutions >= limit) finish();
      },
      [=](done_atom) {
        if (++self->state.completed == self->state.sent) finish();
      },
  };
}

json nqueenk(const bench_params& p) {
  const nqueenk_case c(p);
  caf_system owner(p);
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
          return [master, pool] { caf::anon_send(master, pool); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(solutions);
    return seconds;
  });
}

}  // namespace

void register_caf_savina_benchmarks(bench_registry& r) {
  r.implement("concdict", "caf", concdict);
  r.implement("concsll", "caf", concsll);
  r.implement("bndbuffer", "caf", bndbuffer);
  r.implement("philosopher", "caf", philosopher_bench);
  r.implement("logmap", "caf", logmap);
  r.implement("banking", "caf", banking);
  r.implement("trapezoid", "caf", trapezoid);
  r.implement("nqueenk", "caf", nqueenk);
}

}  // namespace spate_bench
