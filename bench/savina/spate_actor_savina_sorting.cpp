// Savina's sorting benchmarks with spate's typed actors: quicksort (a tree of actors, two
// children per split) and bitonicsort (a sorting network of actors). Actors that create
// actors spawn them in their own context (system().spawn), when the iteration runs, as
// Savina's do. The protocol is Savina's Akka one, and every iteration's result is checked by
// the same `*_case` as the reactor versions' (savina_checks.hpp).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <future>
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
using values = std::vector<std::int64_t>;

// ---------------------------------------------------------------- quicksort
// A node with fewer than `threshold` values sorts them itself (std::sort, where Savina's
// leaves run its list quicksort). A larger one takes the middle value as pivot, sends the
// smaller values to a new left child and the larger ones to a new right child, keeps the
// equal ones, and answers its parent with the three fragments joined once both children have.
enum class qs_side : std::uint8_t { left, right };
struct qs_sort {
  values data;
};
struct qs_sorted {
  values data;
  qs_side side;
};

struct qs_node : spate::typed_actor<qs_node, qs_sort, qs_sorted> {
  // The root writes the result and ends the timed part; the others answer their parent.
  qs_node(std::size_t threshold, values* out, std::promise<void>* done)
      : threshold(threshold), out(out), done(done) {}
  qs_node(std::size_t threshold, actor_ref<qs_node> parent, qs_side side)
      : threshold(threshold), parent(std::move(parent)), side(side) {}
  void on(qs_sort& s) {
    values& data = s.data;
    if (data.size() < threshold) {
      std::sort(data.begin(), data.end());
      result = std::move(data);
      finish();
      return;
    }
    // Savina's three filters, each a pass over the data; the left child starts first.
    const std::int64_t pivot = data[data.size() / 2];
    auto filtered = [&](auto keep) {
      values part;
      for (const std::int64_t v : data) {
        if (keep(v)) part.push_back(v);
      }
      return part;
    };
    send(system().spawn<qs_node>(threshold, typed_self(), qs_side::left),
         qs_sort{filtered([pivot](std::int64_t v) { return v < pivot; })});
    send(system().spawn<qs_node>(threshold, typed_self(), qs_side::right),
         qs_sort{filtered([pivot](std::int64_t v) { return v > pivot; })});
    result = filtered([pivot](std::int64_t v) { return v == pivot; });
    fragments = 1;
  }
  void on(qs_sorted& s) {
    if (s.side == qs_side::left) {
      s.data.insert(s.data.end(), result.begin(), result.end());
      result = std::move(s.data);
    } else {
      result.insert(result.end(), s.data.begin(), s.data.end());
    }
    if (++fragments == 3) finish();
  }
  void finish() {
    if (parent) {
      send(parent, qs_sorted{std::move(result), side});
      parent = nullptr;
    } else {
      *out = std::move(result);
      done->set_value();
    }
    quit();
  }
  std::size_t threshold;
  actor_ref<qs_node> parent;
  qs_side side = qs_side::left;
  values result;
  int fragments = 0;
  values* out = nullptr;
  std::promise<void>* done = nullptr;
};

json quicksort(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const quicksort_case c(p);
  return savina_iterations(p, [&] {
    values sorted;
    values input = c.input;  // copied untimed: the root takes it over
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto root = system.spawn<qs_node>(std::size_t(c.threshold), &sorted, done);
          return [root, &input] { send(root, qs_sort{std::move(input)}); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(sorted);
    return seconds;
  });
}

// ---------------------------------------------------------------- bitonicsort
// Savina's BitonicSort streams the values through a bitonic sorting network built from
// round-robin splitters and joiners around compare-exchange actors: a kernel of merge
// stages (sorting runs of 2, 4, …, n/2 values, alternately up and down) and a last merge
// stage, each a chain of steps; a step splits its input into runs among partitions, and a
// partition of length L splits its run among L/2 compare-exchange actors. The kernel, the
// stages, the steps and the partitions create their part of the network when they start,
// in their own context (as Akka runs Savina's constructors); the kernel is created when the
// clock starts, so the whole network's creation is timed, as in Savina. The exit follows the
// values through every path; the validator's exit ends the timed part.
struct bs_value {
  std::int64_t value;
};
struct bs_data {
  std::int32_t order;  ///< the sender's place among what its joiner joins
  std::int64_t value;
};
struct bs_exit {};
using bs_port = spate::typed_handle<spate::actor_interface<void(bs_value), void(bs_exit)>>;
using bs_join_port = spate::typed_handle<spate::actor_interface<void(bs_data), void(bs_exit)>>;

// Savina's DataValueAdapter: in this network it only ever forwards values.
struct bs_forward : spate::typed_actor<bs_forward, bs_value, bs_exit> {
  explicit bs_forward(bs_port next) : next(std::move(next)) {}
  void on(bs_value& v) { send(next, v); }
  void on(bs_exit& e) {
    send(next, e);
    next = nullptr;
    quit();
  }
  bs_port next;
};

// Savina's ValueDataAdapter: tags a partition's output with the partition's place.
struct bs_tagger : spate::typed_actor<bs_tagger, bs_value, bs_exit> {
  bs_tagger(std::int32_t order, bs_join_port next) : order(order), next(std::move(next)) {}
  void on(bs_value& v) { send(next, bs_data{order, v.value}); }
  void on(bs_exit& e) {
    send(next, e);
    next = nullptr;
    quit();
  }
  std::int32_t order;
  bs_join_port next;
};

// Runs of `length` values to each receiver in turn.
struct bs_splitter : spate::typed_actor<bs_splitter, bs_value, bs_exit> {
  bs_splitter(std::int64_t length, std::vector<bs_port> receivers)
      : length(length), receivers(std::move(receivers)) {}
  void on(bs_value& v) {
    send(receivers[index], v);
    if (++run < length) return;
    run = 0;
    index = (index + 1) % receivers.size();
  }
  void on(bs_exit& e) {
    for (const auto& r : receivers) send(r, e);
    receivers.clear();
    quit();
  }
  std::int64_t length, run = 0;
  std::vector<bs_port> receivers;
  std::size_t index = 0;
};

// Runs of `length` values from each sender in turn, held until their turn comes.
struct bs_joiner : spate::typed_actor<bs_joiner, bs_data, bs_exit> {
  bs_joiner(std::int64_t length, std::int64_t senders, bs_port next)
      : length(length), received(std::size_t(senders)), next(std::move(next)) {}
  void on(bs_data& d) {
    received[std::size_t(d.order)].push_back(d.value);
    while (!received[index].empty()) {
      send(next, bs_value{received[index].front()});
      received[index].pop_front();
      if (++run < length) continue;
      run = 0;
      index = (index + 1) % received.size();
    }
  }
  void on(bs_exit& e) {
    if (++exits < received.size()) return;
    send(next, e);
    next = nullptr;
    quit();
  }
  std::int64_t length, run = 0;
  std::vector<std::deque<std::int64_t>> received;
  std::size_t index = 0, exits = 0;
  bs_port next;
};

// Two values in, the smaller first when sorting up (the larger first when down).
struct bs_compare : spate::typed_actor<bs_compare, bs_value, bs_exit> {
  bs_compare(std::int32_t order, bool up, bs_join_port next)
      : order(order), up(up), next(std::move(next)) {}
  void on(bs_value& v) {
    if (!holding) {
      held = v.value;
      holding = true;
      return;
    }
    holding = false;
    const auto [low, high] = std::minmax(held, v.value);
    send(next, bs_data{order, up ? low : high});
    send(next, bs_data{order, up ? high : low});
  }
  void on(bs_exit& e) {
    send(next, e);
    next = nullptr;
    quit();
  }
  std::int32_t order;
  bool up;
  std::int64_t held = 0;
  bool holding = false;
  bs_join_port next;
};

/// A part of the network that one actor creates (Savina's kernel, merge stages, steps and
/// partitions), and the numbers Savina gives it.
struct bs_part {
  enum class kind : std::uint8_t {
    kernel,
    merge_stage,
    last_merge_stage,
    step,
    last_step,
    partition
  };
  kind what;
  std::int64_t length;         ///< values sorted (kernel, stages); run length (steps, partition)
  std::int64_t count = 0;      ///< all values (merge stage); partitions (steps)
  std::int64_t direction = 1;  ///< a step's partitions alternate direction every `direction`
  std::int32_t order = 0;      ///< a partition's place in its step
  bool up = true;
};

// Creates its part when it starts, then passes every value to the part's first actor.
// Its output is `out`, except a partition's, which goes to its step's joiner (`joined`).
struct bs_composite : spate::typed_actor<bs_composite, bs_value, bs_exit> {
  bs_composite(bs_part part, bs_port out, bs_join_port joined)
      : part(part), out(std::move(out)), joined(std::move(joined)) {}
  void on_start() { entry = build(); }
  void on(bs_value& v) { send(entry, v); }
  void on(bs_exit& e) {
    send(entry, e);
    entry = nullptr;
    out = nullptr;
    joined = nullptr;
    quit();
  }
  bs_port build();
  bs_port composite(const bs_part& p, bs_port to, bs_join_port joined_to = nullptr) {
    return system().spawn<bs_composite>(p, std::move(to), std::move(joined_to));
  }
  bs_part part;
  bs_port out, entry;
  bs_join_port joined;
};

bs_port bs_composite::build() {
  using kind = bs_part::kind;
  const std::int64_t n = part.length;
  bs_port chain = out;  // built from its end
  switch (part.what) {
    case kind::kernel:  // merge stages of 2, 4, …, n/2 values, then the last merge stage
      chain = composite({.what = kind::last_merge_stage, .length = n, .up = part.up}, chain);
      for (std::int64_t i = n / 2; i >= 2; i /= 2) {
        chain = composite({.what = kind::merge_stage, .length = i, .count = n}, chain);
      }
      return chain;
    case kind::merge_stage:  // steps of runs of n, n/2, …, 2
      for (std::int64_t i = n / 2; i >= 1; i /= 2) {
        chain = composite(
            {.what = kind::step, .length = n / i, .count = part.count / n * i, .direction = i},
            chain);
      }
      return chain;
    case kind::last_merge_stage:  // the same, all in one direction
      for (std::int64_t i = n / 2; i >= 1; i /= 2) {
        chain =
            composite({.what = kind::last_step, .length = n / i, .count = i, .up = part.up}, chain);
      }
      return chain;
    case kind::step:
    case kind::last_step: {
      // A merge stage's step joins into an adapter, the last stage's straight into the next.
      const bs_port joined_to =
          part.what == kind::step ? bs_port(system().spawn<bs_forward>(out)) : out;
      const auto joiner = system().spawn<bs_joiner>(n, part.count, joined_to);
      std::vector<bs_port> partitions;
      for (std::int64_t i = 0; i < part.count; ++i) {
        const bool up = part.what == kind::step ? (i / part.direction) % 2 == 0 : part.up;
        if (n > 2) {
          partitions.push_back(
              composite({.what = kind::partition, .length = n, .order = std::int32_t(i), .up = up},
                        nullptr, joiner));
        } else {  // a partition of two values is one compare-exchange
          partitions.push_back(system().spawn<bs_compare>(std::int32_t(i), up, joiner));
        }
      }
      return system().spawn<bs_splitter>(n, std::move(partitions));
    }
    case kind::partition: {  // value i meets value i + n/2
      const auto joiner =
          system().spawn<bs_joiner>(1, n / 2, system().spawn<bs_tagger>(part.order, joined));
      std::vector<bs_port> compares;
      for (std::int64_t i = 0; i < n / 2; ++i) {
        compares.push_back(system().spawn<bs_compare>(std::int32_t(i), part.up, joiner));
      }
      return system().spawn<bs_splitter>(1, std::move(compares));
    }
  }
  return chain;
}

struct bs_validator : spate::typed_actor<bs_validator, bs_value, bs_exit> {
  bs_validator(values* out, std::promise<void>* done) : out(out), done(done) {}
  void on(bs_value& v) { out->push_back(v.value); }
  void on(bs_exit&) {
    done->set_value();
    quit();
  }
  values* out;
  std::promise<void>* done;
};

struct bs_source : spate::typed_actor<bs_source, bs_port> {
  explicit bs_source(const values* input) : input(input) {}
  void on(bs_port& kernel) {
    for (const std::int64_t v : *input) send(kernel, bs_value{v});
    send(kernel, bs_exit{});
    quit();
  }
  const values* input;
};

json bitonicsort(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const bitonicsort_case c(p);
  const bs_part kernel{.what = bs_part::kind::kernel, .length = std::int64_t(c.input.size())};
  return savina_iterations(p, [&] {
    values sorted;
    sorted.reserve(c.input.size());
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          const bs_port adapter =
              system.spawn<bs_forward>(system.spawn<bs_validator>(&sorted, done));
          auto source = system.spawn<bs_source>(&c.input);
          return [&system, &kernel, adapter, source] {
            send(source, bs_port(system.spawn<bs_composite>(kernel, adapter, nullptr)));
          };
        },
        [&] { system.await_all_actors_done(); });
    c.check(sorted);
    return seconds;
  });
}

}  // namespace

void register_spate_actor_savina_sorting(bench_registry& r) {
  r.implement("quicksort", "spate-actor", quicksort);
  r.implement("bitonicsort", "spate-actor", bitonicsort);
}

}  // namespace spate_bench
