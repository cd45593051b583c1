// Savina's concurrency benchmarks with CAF 1.1 where clients share one actor: concdict,
// concsll, bndbuffer. caf_savina_benchmarks.cpp (CAF 0.17) ported to the 1.x API actor for
// actor, the same messages and protocols (those of spate_actor_savina_concurrency.cpp,
// Savina's Akka versions), inputs, references and checks (savina_workloads.hpp,
// savina_checks.hpp); stateful function-based actors, atoms, a reply by return where it is
// immediate, sends through the mail API. Set-up and teardown are untimed
// (savina::timed_iteration). Built into spate-bench-caf1 only (bench/CMakeLists.txt); the
// atoms have their type IDs in caf1_config.hpp. philosopher, logmap and banking are in
// caf1_savina_coordination.cpp, trapezoid and nqueenk in caf1_savina_parallel.cpp.
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

}  // namespace

void register_caf1_savina_benchmarks(bench_registry& r) {
  r.implement("concdict", "caf1", concdict);
  r.implement("concsll", "caf1", concsll);
  r.implement("bndbuffer", "caf1", bndbuffer);
}

}  // namespace spate_bench
