// spate's reactors (impl `spate-reactor`): latency_chain (physical action or timer source),
// reactor_levels (levels vs precise scheduling), and the Savina micro benchmarks as LF's
// benchmark suite writes them (lf-lang/benchmarks-lingua-franca, Cpp/Savina/src/micro):
// PingPong and Counting take one tag per message, ThreadRing one tag per trip around the
// ring (the ring is opened by a logical action in one reactor).
#include <atomic>
#include <cmath>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "../micro/shapes.hpp"
#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "reactor_bench_support.hpp"
#include "spate/reactor.hpp"
#include "spate/exec/runtime.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;

// ---------------------------------------------------------------- latency_chain

struct chain_head : reactor {
  physical_action<std::int64_t> arrive{this, "arrive"};
  timer tick;
  output<std::int64_t> out{this, "out"};
  chain_head(context ctx, bool from_timer, duration period)
      : reactor(ctx), tick{this, "tick", duration::zero(), from_timer ? period : duration::zero()} {
    if (from_timer) {
      // The stamp is the tag's logical time: the latency includes how late the timer fired.
      reaction("tick").triggers(tick).effects(out).body([this](port_writer<std::int64_t>& out) {
        out.set(logical_time().time_since_epoch().count());
      });
    } else {
      reaction("arrive").triggers(arrive).effects(out).body(
          [this](port_writer<std::int64_t>& out) { out.set(arrive.get()); });
    }
  }
};

struct chain_stage : reactor {
  input<std::int64_t> in{this, "in"};
  output<std::int64_t> out{this, "out"};
  std::vector<std::int64_t>* samples;  // set on the last stage
  chain_stage(context ctx, std::vector<std::int64_t>* samples) : reactor(ctx), samples(samples) {
    reaction("forward").triggers(in).effects(out).body([this](port_writer<std::int64_t>& out) {
      if (this->samples == nullptr || bank_index() + 1 < bank_width()) {
        out.set(in.get());
      } else {
        this->samples->push_back(now_ns() - in.get());
      }
    });
  }
};

struct latency_program : reactor {
  chain_head head;
  bank<chain_stage> stages;
  latency_program(context ctx, std::size_t n, bool from_timer, duration period,
                  std::vector<std::int64_t>* samples)
      : reactor(ctx), head{{this, "head"}, from_timer, period}, stages{this, "stage", n, samples} {
    connect(head.out, stages[0].in);
    for (std::size_t i = 0; i + 1 < n; ++i) connect(stages[i].out, stages[i + 1].in);
  }
};

json latency_chain(const bench_params& p) {
  const auto stages = static_cast<std::size_t>(p.integer("stages"));
  const double rate = p.number("rate");
  const double seconds = p.number("seconds");
  const auto source = p.text("source");
  if (stages < 2 || rate <= 0) throw usage_error("latency_chain needs stages >= 2 and rate > 0");
  if (source != "physical" && source != "timer")
    throw usage_error("--source must be physical or timer, not '" + source + "'");
  const bool from_timer = source == "timer";
  const auto period = std::chrono::nanoseconds(std::int64_t(1e9 / rate));
  spate::runtime rt{reactor_runtime_config(p)};
  std::vector<std::int64_t> samples;
  samples.reserve(std::size_t(rate * seconds) + 16);
  environment_options options;
  options.mode = mode_of(p);
  options.keep_alive = true;
  if (from_timer)
    options.timeout = std::chrono::duration_cast<duration>(std::chrono::duration<double>(seconds));
  environment env{rt, options};
  // The reactor whose reactions count: `stages` reactors after the head (the head is the
  // physical action's receiver, as the actor chain's first actor receives the send).
  auto& program = env.make_top<latency_program>("chain", stages - 1, from_timer, period, &samples);
  json m;
  timed_run(m, [&] {
    env.start();
    if (from_timer) {
      env.wait();
    } else {
      paced_sends(rate, seconds, [&](std::int64_t sent) { program.head.arrive.schedule(sent); });
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      env.request_stop();
      env.wait();
    }
  });
  add_latency_metrics(m, std::move(samples), latency_warmup_fraction);
  return m;
}

// ---------------------------------------------------------------- reactor_levels
// Per tag: a source fans out to a heavy branch (one reaction of `work` units) and a light
// branch (a chain of `chain` reactions of work/chain units each), joined by a sink. Level
// barriers make the light chain wait for the heavy reaction at every level; precise
// dependencies let it run beside it.

std::uint64_t spin_work(std::uint64_t seed, std::int64_t units) {
  std::uint64_t x = seed | 1;
  for (std::int64_t i = 0; i < units * 64; ++i)
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

struct levels_source : reactor {
  timer tick{this, "tick", duration::zero(), std::chrono::microseconds(1)};
  output<std::uint64_t> out{this, "out"};
  std::uint64_t n = 0;
  explicit levels_source(context ctx) : reactor(ctx) {
    reaction("emit").triggers(tick).effects(out).body(
        [this](port_writer<std::uint64_t>& out) { out.set(++n); });
  }
};
struct levels_worker : reactor {
  input<std::uint64_t> in{this, "in"};
  output<std::uint64_t> out{this, "out"};
  std::int64_t units;
  levels_worker(context ctx, std::int64_t units) : reactor(ctx), units(units) {
    reaction("work").triggers(in).effects(out).body(
        [this](port_writer<std::uint64_t>& out) { out.set(spin_work(in.get(), this->units)); });
  }
};
struct levels_join : reactor {
  input<std::uint64_t> heavy{this, "heavy"}, light{this, "light"};
  std::uint64_t checksum = 0, tags = 0, limit;
  explicit levels_join(context ctx, std::uint64_t limit) : reactor(ctx), limit(limit) {
    reaction("join").triggers(heavy, light).body([this] {
      checksum = checksum * 31 + heavy.get() + light.get();
      if (++tags == this->limit) request_stop();
    });
  }
};
struct levels_program : reactor {
  levels_source source{{this, "source"}};
  levels_worker heavy;
  bank<levels_worker> light;
  levels_join join;
  levels_program(context ctx, std::int64_t work, std::size_t chain, std::uint64_t tags)
      : reactor(ctx),
        heavy{{this, "heavy"}, work},
        light{this, "light", chain, std::max<std::int64_t>(1, work / std::int64_t(chain))},
        join{{this, "join"}, tags} {
    connect(source.out, heavy.in);
    connect(source.out, light[0].in);
    for (std::size_t i = 0; i + 1 < chain; ++i) connect(light[i].out, light[i + 1].in);
    connect(heavy.out, join.heavy);
    connect(light[chain - 1].out, join.light);
  }
};

json reactor_levels(const bench_params& p) {
  const auto tags = static_cast<std::uint64_t>(p.integer("tags"));
  const auto work = p.integer("work");
  const auto chain = static_cast<std::size_t>(p.integer("chain"));
  if (tags == 0 || chain == 0 || work <= 0)
    throw usage_error("reactor_levels needs tags, chain and work >= 1");
  spate::runtime rt{reactor_runtime_config(p)};
  environment_options options;
  options.mode = mode_of(p);
  options.fast = true;
  environment env{rt, options};
  auto& program = env.make_top<levels_program>("levels", work, chain, tags);
  json m;
  timed_run(m, [&] { env.run(); });
  // The same values computed sequentially: both modes must give exactly this.
  std::uint64_t expected = 0;
  const std::int64_t light_units = std::max<std::int64_t>(1, work / std::int64_t(chain));
  for (std::uint64_t n = 1; n <= tags; ++n) {
    std::uint64_t light = n;
    for (std::size_t i = 0; i < chain; ++i) light = spin_work(light, light_units);
    expected = expected * 31 + spin_work(n, work) + light;
  }
  if (program.join.checksum != expected || program.join.tags != tags)
    throw std::runtime_error("reactor_levels: the joined values differ from a sequential run");
  m["tags_per_s"] = double(tags) / m["wall_s"].get<double>();
  m["levels"] = env.level_count();
  return m;
}

// ---------------------------------------------------------------- Savina: PingPong

struct rr_ping : reactor {
  logical_action<void> serve{this, "serve"};
  output<void> out_ping{this, "out_ping"};
  input<void> in_pong{this, "in_pong"};
  std::int64_t pings_left;
  std::int64_t pongs = 0;
  rr_ping(context ctx, std::int64_t count) : reactor(ctx), pings_left(count) {
    reaction("start").triggers(startup).effects(serve).body(
        [](action_scheduler<void>& serve) { serve.schedule(); });
    reaction("serve").triggers(serve).effects(out_ping).body([this](port_writer<void>& ping) {
      --pings_left;
      ping.set();
    });
    reaction("pong").triggers(in_pong).effects(serve).body([this](action_scheduler<void>& serve) {
      ++pongs;
      if (pings_left == 0) {
        request_stop();
      } else {
        serve.schedule();
      }
    });
  }
};
struct rr_pong : reactor {
  input<void> in_ping{this, "in_ping"};
  output<void> out_pong{this, "out_pong"};
  explicit rr_pong(context ctx) : reactor(ctx) {
    reaction("ping").triggers(in_ping).effects(out_pong).body(
        [](port_writer<void>& pong) { pong.set(); });
  }
};
struct pingpong_program : reactor {
  rr_ping ping;
  rr_pong pong{{this, "pong"}};
  pingpong_program(context ctx, std::int64_t n) : reactor(ctx), ping{{this, "ping"}, n} {
    connect(ping.out_ping, pong.in_ping);
    connect(pong.out_pong, ping.in_pong);
  }
};

json pingpong(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const auto n = p.integer("n");
  return savina_iterations(p, [&] {
    return reactor_iteration<pingpong_program>(
        rt, p,
        [n](pingpong_program& program) {
          if (program.ping.pongs != n) throw std::runtime_error("pingpong: lost round trips");
        },
        n);
  });
}

// ---------------------------------------------------------------- Savina: Counting

struct rr_producer : reactor {
  logical_action<void> count{this, "count"};
  output<void> out_increment{this, "out_increment"};
  output<void> out_retrieve{this, "out_retrieve"};
  input<std::int64_t> in_result{this, "in_result"};
  std::int64_t i = 0, count_to, result = -1;
  rr_producer(context ctx, std::int64_t count_to) : reactor(ctx), count_to(count_to) {
    reaction("start").triggers(startup).effects(count).body(
        [](action_scheduler<void>& count) { count.schedule(); });
    reaction("count")
        .triggers(count)
        .effects(out_increment, out_retrieve, count)
        .body([this](port_writer<void>& increment, port_writer<void>& retrieve,
                     action_scheduler<void>& next) {
          if (i < this->count_to) {
            increment.set();
            ++i;
            next.schedule();
          } else {
            retrieve.set();
          }
        });
    reaction("result").triggers(in_result).body([this] {
      result = in_result.get();
      request_stop();
    });
  }
};
struct rr_counter : reactor {
  input<void> in_increment{this, "in_increment"};
  input<void> in_retrieve{this, "in_retrieve"};
  output<std::int64_t> out_result{this, "out_result"};
  std::int64_t count = 0;
  explicit rr_counter(context ctx) : reactor(ctx) {
    reaction("increment").triggers(in_increment).body([this] { ++count; });
    reaction("retrieve")
        .triggers(in_retrieve)
        .effects(out_result)
        .body([this](port_writer<std::int64_t>& result) { result.set(count); });
  }
};
struct counting_program : reactor {
  rr_producer producer;
  rr_counter counter{{this, "counter"}};
  counting_program(context ctx, std::int64_t n) : reactor(ctx), producer{{this, "producer"}, n} {
    connect(producer.out_increment, counter.in_increment);
    connect(producer.out_retrieve, counter.in_retrieve);
    connect(counter.out_result, producer.in_result);
  }
};

json counting(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const auto n = p.integer("n");
  return savina_iterations(p, [&] {
    return reactor_iteration<counting_program>(
        rt, p,
        [n](counting_program& program) {
          if (program.producer.result != n) throw std::runtime_error("counting: lost increments");
        },
        n);
  });
}

// ---------------------------------------------------------------- Savina: ThreadRing

struct ring_worker : reactor {
  input<std::int64_t> in{this, "in"};
  output<std::int64_t> out{this, "out"};
  std::int64_t* hops;
  ring_worker(context ctx, std::int64_t* hops) : reactor(ctx), hops(hops) {
    reaction("pass").triggers(in).effects(out).body([this](port_writer<std::int64_t>& out) {
      ++*this->hops;
      if (in.get() > 0) {
        out.set(in.get() - 1);
      } else {
        request_stop();
      }
    });
  }
};
struct ring_opener : reactor {
  input<std::int64_t> in{this, "in"};
  output<std::int64_t> out{this, "out"};
  logical_action<std::int64_t> send_next{this, "send_next"};
  std::int64_t* hops;
  std::int64_t pings;
  ring_opener(context ctx, std::int64_t* hops, std::int64_t pings)
      : reactor(ctx), hops(hops), pings(pings) {
    reaction("start").triggers(startup).effects(send_next).body(
        [this](action_scheduler<std::int64_t>& next) { next.schedule(this->pings); });
    reaction("send").triggers(send_next).effects(out).body(
        [this](port_writer<std::int64_t>& out) { out.set(send_next.get()); });
    reaction("pass").triggers(in).effects(send_next).body(
        [this](action_scheduler<std::int64_t>& next) {
          ++*this->hops;
          if (in.get() > 0) {
            next.schedule(in.get() - 1);
          } else {
            request_stop();
          }
        });
  }
};
struct threadring_program : reactor {
  std::int64_t hops = 0;
  ring_opener opener;
  bank<ring_worker> workers;
  threadring_program(context ctx, std::int64_t actors, std::int64_t pings)
      : reactor(ctx),
        opener{{this, "opener"}, &hops, pings},
        workers{this, "workers", std::size_t(actors - 1), &hops} {
    connect(ports(opener.out, workers.ports(&ring_worker::out)),
            ports(workers.ports(&ring_worker::in), opener.in));
  }
};

json threadring(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const auto actors = p.integer("actors");
  const auto n = p.integer("n");
  if (actors < 2) throw usage_error("threadring needs --actors >= 2");
  return savina_iterations(p, [&] {
    return reactor_iteration<threadring_program>(
        rt, p,
        [n](threadring_program& program) {
          if (program.hops != n + 1) throw std::runtime_error("threadring: wrong hop count");
        },
        actors, n);
  });
}

// ---------------------------------------------------------------- reactor_mutation
// The cost of one mutation as a function of program size: a program of `size` relay
// reactors in a chain, and a reaction that at every tag creates a relay, connects it behind
// its own output, and removes the one it created the tag before.

struct mutation_relay : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  explicit mutation_relay(context ctx) : reactor(ctx) {
    reaction("relay").triggers(in).effects(out).body(
        [this](port_writer<int>& out) { out.set(in.get()); });
  }
};
struct mutating_program : reactor {
  timer tick{this, "tick", duration::zero(), std::chrono::microseconds(1)};
  bank<mutation_relay> chain;  // the program's size; idle, so a tag costs the mutation
  mutation_relay* previous = nullptr;
  std::int64_t mutations_done = 0, limit;
  mutating_program(context ctx, std::size_t size, std::int64_t limit)
      : reactor(ctx), chain{this, "chain", size}, limit(limit) {
    for (std::size_t i = 0; i + 1 < size; ++i) connect(chain[i].out, chain[i + 1].in);
    reaction("grow").triggers(tick).effects(mutations).body([this](mutator& m) {
      if (previous != nullptr) m.remove(*previous);
      previous = &m.create<mutation_relay>("extra" + std::to_string(mutations_done));
      m.connect(chain[chain.size() - 1].out, previous->in);
      if (++mutations_done == this->limit) request_stop();
    });
  }
};

json reactor_mutation(const bench_params& p) {
  const auto size = static_cast<std::size_t>(p.integer("size"));
  const auto n = p.integer("n");
  if (size < 2 || n < 1) throw usage_error("reactor_mutation needs size >= 2 and n >= 1");
  spate::runtime rt{reactor_runtime_config(p)};
  environment_options options;
  options.fast = true;
  environment env{rt, options};
  env.make_top<mutating_program>("main", size, n);
  env.assemble();
  json m;
  timed_run(m, [&] { env.run(); });
  if (env.rejected_mutations() != 0) throw std::runtime_error("reactor_mutation: rejected");
  // One tag per mutation: the per-tag cost of an unmutated tick is ~0.1 us, so this is the
  // mutation's (a create + connect + remove of the previous one).
  m["us_per_mutation"] = m["wall_s"].get<double>() * 1e6 / double(n);
  return m;
}

}  // namespace

void register_spate_reactor_impls(bench_registry& r) {
  r.implement("reactor_mutation", "spate-reactor", reactor_mutation);
  r.implement("latency_chain", "spate-reactor", latency_chain);
  r.implement("reactor_levels", "spate-reactor", reactor_levels);
  r.implement("pingpong", "spate-reactor", pingpong);
  r.implement("counting", "spate-reactor", counting);
  r.implement("threadring", "spate-reactor", threadring);
}

}  // namespace spate_bench
