// Savina micro benchmarks with spate's typed actors (parameters: docs/benchmarks.md).
// Each iteration spawns its actors (not timed), times from the first message to the
// completion signal, and waits for the actors to finish (not timed), as Savina does.
#include <cmath>
#include <future>
#include <memory>
#include <random>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#include "savina_support.hpp"
#include "spate/actor.hpp"

namespace spate_bench {
namespace {

using savina::timed_iteration;
using spate::actor_ref;
using spate::send;

struct stop {};

// ---------------------------------------------------------------- pingpong
struct ping_msg {};
struct pong_msg {};
struct pong_actor;
struct ping_start {
  actor_ref<pong_actor> pong;
};
struct ping_actor : spate::typed_actor<ping_actor, ping_start, pong_msg> {
  ping_actor(std::int64_t n, std::promise<void>* done) : left(n), done(done) {}
  void on(ping_start& s);
  void on(pong_msg&);
  actor_ref<pong_actor> pong;
  std::int64_t left;
  std::promise<void>* done;
};
struct pong_actor : spate::typed_actor<pong_actor, ping_msg, stop> {
  explicit pong_actor(actor_ref<ping_actor> ping) : ping(std::move(ping)) {}
  void on(ping_msg&) { send(ping, pong_msg{}); }
  void on(stop&) {
    ping = nullptr;
    quit();
  }
  actor_ref<ping_actor> ping;
};
void ping_actor::on(ping_start& s) {
  pong = s.pong;
  send(pong, ping_msg{});
}
void ping_actor::on(pong_msg&) {
  if (--left > 0) {
    send(pong, ping_msg{});
    return;
  }
  send(pong, stop{});
  pong = nullptr;
  done->set_value();
  quit();
}

json pingpong(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const auto n = p.integer("n");
  return savina_iterations(p, [&] {
    return timed_iteration(
        [&](std::promise<void>* done) {
          auto ping = system.spawn<ping_actor>(n, done);
          auto pong = system.spawn<pong_actor>(ping);
          return [ping, pong] { send(ping, ping_start{pong}); };
        },
        [&] { system.await_all_actors_done(); });
  });
}

// ---------------------------------------------------------------- threadring
struct ring_actor;
struct token {
  std::int64_t hops_left;
};
struct ring_actor : spate::typed_actor<ring_actor, actor_ref<ring_actor>, token, stop> {
  explicit ring_actor(std::promise<void>* done) : done(done) {}
  void on(actor_ref<ring_actor>& n) { next = n; }
  void on(token& t) {
    if (t.hops_left == 0) {
      done->set_value();
    } else {
      send(next, token{t.hops_left - 1});
    }
  }
  void on(stop&) {
    next = nullptr;
    quit();
  }
  actor_ref<ring_actor> next;
  std::promise<void>* done;
};

json threadring(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const auto actors = p.integer("actors");
  const auto n = p.integer("n");
  if (actors < 2) throw usage_error("threadring needs --actors >= 2");
  return savina_iterations(p, [&] {
    std::vector<actor_ref<ring_actor>> ring;
    const auto begin_teardown = [&] {
      for (auto& a : ring) send(a, stop{});
    };
    std::promise<void> done;
    for (std::int64_t i = 0; i < actors; ++i) ring.push_back(system.spawn<ring_actor>(&done));
    for (std::int64_t i = 0; i < actors; ++i) send(ring[i], ring[(i + 1) % actors]);
    const auto begin = now_ns();
    send(ring[0], token{n});
    done.get_future().wait();
    const double elapsed = double(now_ns() - begin) / 1e9;
    begin_teardown();
    system.await_all_actors_done();
    return elapsed;
  });
}

// ---------------------------------------------------------------- counting
struct increment {};
struct counting_producer;
struct query {
  actor_ref<counting_producer> reply_to;
};
struct count_result {
  std::int64_t count;
};
struct counter_actor : spate::typed_actor<counter_actor, increment, query> {
  void on(increment&) { ++count; }
  void on(query& q);
  std::int64_t count = 0;
};
struct go {};
struct counting_producer : spate::typed_actor<counting_producer, go, count_result> {
  counting_producer(actor_ref<counter_actor> counter, std::int64_t n, std::promise<void>* done)
      : counter(std::move(counter)), n(n), done(done) {}
  void on(go&) {
    for (std::int64_t i = 0; i < n; ++i) send(counter, increment{});
    send(counter, query{typed_self()});
  }
  void on(count_result& r) {
    if (r.count != n) throw std::runtime_error("counting: lost increments");
    counter = nullptr;
    done->set_value();
    quit();
  }
  actor_ref<counter_actor> counter;
  std::int64_t n;
  std::promise<void>* done;
};
void counter_actor::on(query& q) {
  send(q.reply_to, count_result{count});
  quit();
}

json counting(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const auto n = p.integer("n");
  return savina_iterations(p, [&] {
    return timed_iteration(
        [&](std::promise<void>* done) {
          auto counter = system.spawn<counter_actor>();
          auto producer = system.spawn<counting_producer>(counter, n, done);
          return [producer] { send(producer, go{}); };
        },
        [&] { system.await_all_actors_done(); });
  });
}

// ---------------------------------------------------------------- forkjoin (throughput)
struct work {};
// Savina's ThroughputConfig.performComputation: a little floating-point work per message.
inline double perform_computation(double theta) {
  const double sint = std::sin(theta);
  return sint * sint;
}
struct fj_worker : spate::typed_actor<fj_worker, work> {
  fj_worker(std::int64_t n, std::atomic<std::int64_t>* remaining, std::promise<void>* done)
      : n(n), remaining(remaining), done(done) {}
  void on(work&) {
    sink += perform_computation(37.2);
    if (++received == n) {
      if (remaining->fetch_sub(1) == 1) done->set_value();
      quit();
    }
  }
  std::int64_t n, received = 0;
  double sink = 0;
  std::atomic<std::int64_t>* remaining;
  std::promise<void>* done;
};

json forkjoin(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const auto workers = p.integer("workers");
  const auto n = p.integer("n");
  return savina_iterations(p, [&] {
    std::atomic<std::int64_t> remaining{workers};
    return timed_iteration(
        [&](std::promise<void>* done) {
          std::vector<actor_ref<fj_worker>> pool;
          for (std::int64_t i = 0; i < workers; ++i) {
            pool.push_back(system.spawn<fj_worker>(n, &remaining, done));
          }
          return [pool, n] {
            for (std::int64_t i = 0; i < n; ++i) {
              for (auto& w : pool) send(w, work{});
            }
          };
        },
        [&] { system.await_all_actors_done(); });
  });
}

// ---------------------------------------------------------------- big
struct big_worker;
struct big_ping {
  std::int32_t sender;
};
struct big_pong {};
struct big_peers {
  std::shared_ptr<const std::vector<actor_ref<big_worker>>> peers;
};
struct big_go {};
// Every worker gets the peer list before any worker starts: the main thread sends all
// big_peers messages before the first big_go, and mailboxes are FIFO per sender.
struct big_worker : spate::typed_actor<big_worker, big_peers, big_go, big_ping, big_pong, stop> {
  big_worker(std::int32_t index, std::int64_t n, std::atomic<std::int64_t>* remaining,
             std::promise<void>* done)
      : index(index),
        n(n),
        rng(std::uint32_t(index) * 7919u + 1),
        remaining(remaining),
        done(done) {}
  void on(big_peers& s) { peers = s.peers; }
  void on(big_go&) { send_ping(); }
  void on(big_ping& ping) { send((*peers)[std::size_t(ping.sender)], big_pong{}); }
  void on(big_pong&) {
    if (++pongs == n) {
      if (remaining->fetch_sub(1) == 1) done->set_value();
    } else {
      send_ping();
    }
  }
  void on(stop&) {
    peers.reset();
    quit();
  }
  void send_ping() {
    const auto target = std::uniform_int_distribution<std::size_t>(0, peers->size() - 1)(rng);
    send((*peers)[target], big_ping{index});
  }
  std::int32_t index;
  std::int64_t n, pongs = 0;
  std::minstd_rand rng;
  std::shared_ptr<const std::vector<actor_ref<big_worker>>> peers;
  std::atomic<std::int64_t>* remaining;
  std::promise<void>* done;
};

json big(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const auto workers = p.integer("workers");
  const auto n = p.integer("n");
  return savina_iterations(p, [&] {
    std::atomic<std::int64_t> remaining{workers};
    std::promise<void> done;
    auto peers = std::make_shared<std::vector<actor_ref<big_worker>>>();
    for (std::int64_t i = 0; i < workers; ++i) {
      peers->push_back(system.spawn<big_worker>(std::int32_t(i), n, &remaining, &done));
    }
    std::shared_ptr<const std::vector<actor_ref<big_worker>>> shared = peers;
    for (auto& w : *peers) send(w, big_peers{shared});
    const auto begin = now_ns();
    for (auto& w : *peers) send(w, big_go{});
    done.get_future().wait();
    const double elapsed = double(now_ns() - begin) / 1e9;
    for (auto& w : *peers) send(w, stop{});
    shared.reset();
    peers.reset();
    system.await_all_actors_done();
    return elapsed;
  });
}

// ---------------------------------------------------------------- chameneos
enum class color : std::uint8_t { red, yellow, blue };
inline color complement(color a, color b) {
  if (a == b) return a;
  return static_cast<color>(3 - int(a) - int(b));
}
struct chameneo;
struct meet_request {
  std::int32_t who;
  color c;
};
struct meet_with {
  color other;
};
struct mall_start {
  std::vector<actor_ref<chameneo>> all;
};
struct mall_actor : spate::typed_actor<mall_actor, mall_start, meet_request> {
  mall_actor(std::int64_t meetings, std::promise<void>* done) : limit(meetings), done(done) {}
  void on(mall_start& s) { all = std::move(s.all); }
  void on(meet_request& r);
  std::vector<actor_ref<chameneo>> all;
  std::int64_t limit, meetings = 0;
  std::size_t stopped = 0;
  std::optional<meet_request> waiting;
  std::promise<void>* done;
};
struct chameneo : spate::typed_actor<chameneo, meet_with, stop, spate::actor_ref<mall_actor>> {
  chameneo(std::int32_t index, color c) : index(index), current(c) {}
  void on(actor_ref<mall_actor>& m) {
    mall = m;
    send(mall, meet_request{index, current});
  }
  void on(meet_with& m) {
    current = complement(current, m.other);
    send(mall, meet_request{index, current});
  }
  void on(stop&) {
    mall = nullptr;
    quit();
  }
  std::int32_t index;
  color current;
  actor_ref<mall_actor> mall;
};
void mall_actor::on(meet_request& r) {
  if (meetings >= limit) {
    send(all[std::size_t(r.who)], stop{});
    if (++stopped == all.size()) {
      all.clear();
      done->set_value();
      quit();
    }
    return;
  }
  if (!waiting) {
    waiting = r;
    return;
  }
  ++meetings;
  send(all[std::size_t(waiting->who)], meet_with{r.c});
  send(all[std::size_t(r.who)], meet_with{waiting->c});
  waiting.reset();
}

json chameneos(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const auto count = p.integer("chameneos");
  const auto meetings = p.integer("meetings");
  if (count < 2) throw usage_error("chameneos needs --chameneos >= 2");
  return savina_iterations(p, [&] {
    return timed_iteration(
        [&](std::promise<void>* done) {
          auto mall = system.spawn<mall_actor>(meetings, done);
          std::vector<actor_ref<chameneo>> all;
          for (std::int64_t i = 0; i < count; ++i) {
            all.push_back(system.spawn<chameneo>(std::int32_t(i), color(i % 3)));
          }
          send(mall, mall_start{all});
          return [all, mall] {
            for (auto& c : all) send(c, mall);
          };
        },
        [&] { system.await_all_actors_done(); });
  });
}

}  // namespace

void register_spate_actor_savina(bench_registry& r) {
  r.implement("pingpong", "spate-actor", pingpong);
  r.implement("threadring", "spate-actor", threadring);
  r.implement("counting", "spate-actor", counting);
  r.implement("forkjoin", "spate-actor", forkjoin);
  r.implement("big", "spate-actor", big);
  r.implement("chameneos", "spate-actor", chameneos);
}

}  // namespace spate_bench
