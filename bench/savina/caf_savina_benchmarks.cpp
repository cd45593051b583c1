// Savina's concurrency benchmarks with CAF 0.17 where clients share one actor: concdict,
// concsll, bndbuffer (protocols and sizes: docs/benchmarks.md). The message protocols of
// spate_actor_savina_concurrency.cpp (Savina's Akka versions), the same inputs, references
// and checks (savina_workloads.hpp, savina_checks.hpp), written the way CAF users write CAF:
// stateful function-based actors, atoms, a reply by return where it is immediate. Set-up and
// teardown are untimed (savina::timed_iteration). philosopher, logmap and banking are in
// caf_savina_coordination.cpp, trapezoid and nqueenk in caf_savina_parallel.cpp;
// caf1_savina_benchmarks.cpp is the CAF 1.1 port of this file, actor for actor.
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
using write_atom = caf::atom_constant<caf::atom("write")>;
using read_atom = caf::atom_constant<caf::atom("read")>;
using size_atom = caf::atom_constant<caf::atom("size")>;
using contains_atom = caf::atom_constant<caf::atom("contains")>;
using produce_atom = caf::atom_constant<caf::atom("produce")>;
using data_atom = caf::atom_constant<caf::atom("data")>;
using item_atom = caf::atom_constant<caf::atom("item")>;
using available_atom = caf::atom_constant<caf::atom("available")>;
using exit_atom = caf::atom_constant<caf::atom("exit")>;

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

}  // namespace

void register_caf_savina_benchmarks(bench_registry& r) {
  r.implement("concdict", "caf", concdict);
  r.implement("concsll", "caf", concsll);
  r.implement("bndbuffer", "caf", bndbuffer);
}

}  // namespace spate_bench
