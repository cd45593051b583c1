// Savina's concurrency benchmarks with spate's typed actors where clients share one actor:
// concdict, concsll, bndbuffer (protocols and sizes: docs/benchmarks.md); philosopher, logmap
// and banking are in spate_actor_savina_coordination.cpp. Each follows the message protocol
// of Savina's Akka version, which CAF's ports follow too; each iteration creates its actors
// untimed, is timed from the first message to the completion signal, and its result is
// checked against a sequential reference (savina_workloads.hpp).
#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
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

// ---------------------------------------------------------------- concdict
// W workers, one request outstanding each, against one dictionary actor.
struct dict_worker;
struct dict_write {
  actor_ref<dict_worker> from;
  std::uint64_t key, value;
};
struct dict_read {
  actor_ref<dict_worker> from;
  std::uint64_t key;
};
struct dict_value {
  std::uint64_t value;
};
struct dict_end {};
struct dict_worker_done {
  std::uint64_t replies, written_sum;
};

struct dict_actor : spate::typed_actor<dict_actor, dict_write, dict_read, dict_end> {
  dict_actor(const dictionary& prefill, dict_result* result) : map(prefill), result(result) {}
  void on(dict_write& w) {
    map[w.key] = w.value;
    send(w.from, dict_value{w.value});
  }
  void on(dict_read& r) {
    const auto it = map.find(r.key);
    send(r.from, dict_value{it == map.end() ? 0 : it->second});
  }
  void on(dict_end&) {
    result->final_map = std::move(map);
    quit();
  }
  dictionary map;
  dict_result* result;
};

struct dict_master : spate::typed_actor<dict_master, dict_worker_done> {
  dict_master(std::int64_t workers, actor_ref<dict_actor> dict, dict_result* result,
              std::promise<void>* done)
      : workers(workers), dict(std::move(dict)), result(result), done(done) {}
  void on(dict_worker_done& d) {
    result->replies += d.replies;
    result->written_sum += d.written_sum;
    if (++ended < workers) return;
    send(dict, dict_end{});
    dict = nullptr;
    done->set_value();
    quit();
  }
  std::int64_t workers, ended = 0;
  actor_ref<dict_actor> dict;
  dict_result* result;
  std::promise<void>* done;
};

struct dict_worker : spate::typed_actor<dict_worker, go, dict_value> {
  dict_worker(std::int64_t index, std::int64_t messages, std::int64_t write_percent,
              actor_ref<dict_actor> dict, actor_ref<dict_master> master)
      : random(dictionary_random(index)),
        messages(messages),
        write_percent(write_percent),
        dict(std::move(dict)),
        master(std::move(master)) {}
  void on(go&) { request(); }
  void on(dict_value& v) {
    if (last_was_write) written_sum += v.value;
    if (++replies < std::uint64_t(messages)) {
      request();
      return;
    }
    send(master, dict_worker_done{replies, written_sum});
    dict = nullptr;
    master = nullptr;
    quit();
  }
  void request() {
    const auto op = next_dictionary_operation(random, write_percent);
    last_was_write = op.write;
    if (op.write) {
      send(dict, dict_write{typed_self(), op.key, op.value});
    } else {
      send(dict, dict_read{typed_self(), op.key});
    }
  }
  random64 random;
  std::int64_t messages, write_percent;
  actor_ref<dict_actor> dict;
  actor_ref<dict_master> master;
  bool last_was_write = false;
  std::uint64_t replies = 0, written_sum = 0;
};

json concdict(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const concdict_case c(p);
  return savina_iterations(p, [&] {
    dict_result result;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto dict = system.spawn<dict_actor>(c.prefill, &result);
          auto master = system.spawn<dict_master>(c.workers, dict, &result, done);
          std::vector<actor_ref<dict_worker>> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(system.spawn<dict_worker>(i, c.messages, c.write_percent, dict, master));
          }
          return [pool] {
            for (auto& w : pool) send(w, go{});
          };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

// ---------------------------------------------------------------- concsll
// The same shape against a sorted singly linked list (savina_workloads.hpp).
struct list_worker;
struct list_request {
  actor_ref<list_worker> from;
  list_operation op;
};
struct list_reply {
  std::uint64_t value;
};
struct list_end {};
struct list_worker_done {
  std::uint64_t replies;
};

struct list_actor : spate::typed_actor<list_actor, list_request, list_end> {
  explicit list_actor(list_result* result) : result(result) {}
  void on(list_request& r) {
    switch (r.op.kind) {
      case list_operation_kind::size:
        send(r.from, list_reply{list.size()});
        break;
      case list_operation_kind::write:
        list.insert(r.op.value);
        send(r.from, list_reply{r.op.value});
        break;
      case list_operation_kind::contains:
        send(r.from, list_reply{list.contains(r.op.value) ? 1u : 0u});
        break;
    }
  }
  void on(list_end&) {
    result->final_values = list.values();
    quit();
  }
  sorted_list list;
  list_result* result;
};

struct list_master : spate::typed_actor<list_master, list_worker_done> {
  list_master(std::int64_t workers, actor_ref<list_actor> list, list_result* result,
              std::promise<void>* done)
      : workers(workers), list(std::move(list)), result(result), done(done) {}
  void on(list_worker_done& d) {
    result->replies += d.replies;
    if (++ended < workers) return;
    send(list, list_end{});
    list = nullptr;
    done->set_value();
    quit();
  }
  std::int64_t workers, ended = 0;
  actor_ref<list_actor> list;
  list_result* result;
  std::promise<void>* done;
};

struct list_worker : spate::typed_actor<list_worker, go, list_reply> {
  list_worker(std::int64_t index, std::int64_t messages, std::int64_t write_percent,
              std::int64_t size_percent, actor_ref<list_actor> list, actor_ref<list_master> master)
      : random(list_random(index)),
        messages(messages),
        write_percent(write_percent),
        size_percent(size_percent),
        list(std::move(list)),
        master(std::move(master)) {}
  void on(go&) { request(); }
  void on(list_reply&) {
    if (++replies < std::uint64_t(messages)) {
      request();
      return;
    }
    send(master, list_worker_done{replies});
    list = nullptr;
    master = nullptr;
    quit();
  }
  void request() {
    send(list,
         list_request{typed_self(), next_list_operation(random, write_percent, size_percent)});
  }
  random64 random;
  std::int64_t messages, write_percent, size_percent;
  actor_ref<list_actor> list;
  actor_ref<list_master> master;
  std::uint64_t replies = 0;
};

json concsll(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const concsll_case c(p);
  return savina_iterations(p, [&] {
    list_result result;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto list = system.spawn<list_actor>(&result);
          auto master = system.spawn<list_master>(c.workers, list, &result, done);
          std::vector<actor_ref<list_worker>> pool;
          for (std::int64_t i = 0; i < c.workers; ++i) {
            pool.push_back(system.spawn<list_worker>(i, c.messages, c.write_percent, c.size_percent,
                                                     list, master));
          }
          return [pool] {
            for (auto& w : pool) send(w, go{});
          };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

// ---------------------------------------------------------------- bndbuffer
// Producers and consumers through a manager that holds at most `buffer - producers` items
// (Savina's adjusted buffer size) before it stops asking producers for more.
struct bb_producer;
struct bb_consumer;
struct bb_item {
  double value;
  std::int32_t producer;
  std::int64_t seq;
};
struct bb_data {
  actor_ref<bb_producer> from;
  bb_item item;
};
struct bb_consumer_available {
  actor_ref<bb_consumer> consumer;
};
struct bb_producer_exit {};
struct bb_setup {
  std::vector<actor_ref<bb_producer>> producers;
  std::vector<actor_ref<bb_consumer>> consumers;
};
struct bb_produce {};
struct bb_consumer_exit {};

struct bb_manager : spate::typed_actor<bb_manager, bb_setup, go, bb_data, bb_consumer_available,
                                       bb_producer_exit> {
  bb_manager(std::size_t adjusted_buffer, bb_result* result, std::promise<void>* done)
      : adjusted_buffer(adjusted_buffer), result(result), done(done) {}
  void on(bb_setup& s) {
    producers = std::move(s.producers);
    consumers = std::move(s.consumers);
    available_consumers.assign(consumers.begin(), consumers.end());
  }
  void on(go&) {
    for (auto& p : producers) send(p, bb_produce{});
  }
  void on(bb_data& d) {
    if (available_consumers.empty()) {
      pending.push_back(d.item);
      result->max_pending = std::max(result->max_pending, pending.size());
    } else {
      send(available_consumers.front(), d.item);
      available_consumers.pop_front();
    }
    if (pending.size() >= adjusted_buffer) {
      available_producers.push_back(std::move(d.from));
    } else {
      send(d.from, bb_produce{});
    }
  }
  void on(bb_consumer_available& c) {
    if (pending.empty()) {
      available_consumers.push_back(std::move(c.consumer));
      try_exit();
      return;
    }
    send(c.consumer, pending.front());
    pending.pop_front();
    if (!available_producers.empty()) {
      send(available_producers.front(), bb_produce{});
      available_producers.pop_front();
    }
  }
  void on(bb_producer_exit&) {
    ++exited_producers;
    try_exit();
  }
  void try_exit() {
    if (exited_producers < producers.size() || available_consumers.size() < consumers.size()) {
      return;
    }
    for (auto& c : consumers) send(c, bb_consumer_exit{});
    producers.clear();
    consumers.clear();
    available_consumers.clear();
    available_producers.clear();
    done->set_value();
    quit();
  }
  std::size_t adjusted_buffer, exited_producers = 0;
  std::vector<actor_ref<bb_producer>> producers;
  std::vector<actor_ref<bb_consumer>> consumers;
  std::deque<actor_ref<bb_consumer>> available_consumers;
  std::deque<actor_ref<bb_producer>> available_producers;
  std::deque<bb_item> pending;
  bb_result* result;
  std::promise<void>* done;
};

struct bb_producer : spate::typed_actor<bb_producer, bb_produce> {
  bb_producer(std::int32_t index, std::int64_t items, std::int64_t cost,
              actor_ref<bb_manager> manager)
      : index(index), items(items), cost(cost), manager(std::move(manager)) {}
  void on(bb_produce&) {
    if (produced == items) {
      send(manager, bb_producer_exit{});
      manager = nullptr;
      quit();
      return;
    }
    value = process_item(value, cost);
    send(manager, bb_data{typed_self(), bb_item{value, index, produced}});
    ++produced;
  }
  std::int32_t index;
  std::int64_t items, cost, produced = 0;
  double value = 0;
  actor_ref<bb_manager> manager;
};

struct bb_consumer : spate::typed_actor<bb_consumer, bb_item, bb_consumer_exit> {
  bb_consumer(std::size_t index, std::size_t producers, std::int64_t cost,
              actor_ref<bb_manager> manager, bb_result* result)
      : index(index),
        cost(cost),
        consumed(producers),
        manager(std::move(manager)),
        result(result) {}
  void on(bb_item& item) {
    value = process_item(value + item.value, cost);
    ++consumed[std::size_t(item.producer)];
    seq_sum += item.seq;
    send(manager, bb_consumer_available{typed_self()});
  }
  void on(bb_consumer_exit&) {
    result->consumed_per_consumer[index] = std::move(consumed);
    result->seq_sum_per_consumer[index] = seq_sum;
    manager = nullptr;
    quit();
  }
  std::size_t index;
  std::int64_t cost, seq_sum = 0;
  double value = 0;
  std::vector<std::int64_t> consumed;
  actor_ref<bb_manager> manager;
  bb_result* result;
};

json bndbuffer(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const bndbuffer_case c(p);
  return savina_iterations(p, [&] {
    bb_result result = c.new_result();
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto manager = system.spawn<bb_manager>(c.adjusted_buffer(), &result, done);
          bb_setup setup;
          for (std::int64_t i = 0; i < c.producers; ++i) {
            setup.producers.push_back(
                system.spawn<bb_producer>(std::int32_t(i), c.items, c.produce_cost, manager));
          }
          for (std::int64_t i = 0; i < c.consumers; ++i) {
            setup.consumers.push_back(system.spawn<bb_consumer>(
                std::size_t(i), std::size_t(c.producers), c.consume_cost, manager, &result));
          }
          send(manager, std::move(setup));
          return [manager] { send(manager, go{}); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

}  // namespace

void register_spate_actor_savina_concurrency(bench_registry& r) {
  r.implement("concdict", "spate-actor", concdict);
  r.implement("concsll", "spate-actor", concsll);
  r.implement("bndbuffer", "spate-actor", bndbuffer);
}

}  // namespace spate_bench
