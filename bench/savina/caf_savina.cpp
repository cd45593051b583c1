// Savina micro benchmarks with CAF 0.17 (the same logic as spate_actor_savina.cpp, written
// the way CAF users write it: stateful function-based actors, atoms, replies by return).
#include <caf/all.hpp>

#include <cmath>
#include <future>
#include <optional>
#include <random>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/caf_config.hpp"
#include "../runner/measure.hpp"
#include "savina_support.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::promise<void>*)

namespace spate_bench {
namespace {

using start_atom = caf::atom_constant<caf::atom("start")>;
using ping_atom = caf::atom_constant<caf::atom("ping")>;
using pong_atom = caf::atom_constant<caf::atom("pong")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using token_atom = caf::atom_constant<caf::atom("token")>;
using inc_atom = caf::atom_constant<caf::atom("inc")>;
using get_atom = caf::atom_constant<caf::atom("get")>;
using go_atom = caf::atom_constant<caf::atom("go")>;
using work_atom = caf::atom_constant<caf::atom("work")>;
using meet_atom = caf::atom_constant<caf::atom("meet")>;

using savina::timed_iteration;

// ---------------------------------------------------------------- pingpong
struct ping_state {
  caf::actor pong;
  std::int64_t left = 0;
};
caf::behavior ping_actor(caf::stateful_actor<ping_state>* self, std::int64_t n,
                         std::promise<void>* done) {
  self->state.left = n;
  return {
      [=](start_atom, const caf::actor& pong) {
        self->state.pong = pong;
        self->send(pong, ping_atom::value);
      },
      [=](pong_atom) {
        if (--self->state.left > 0) {
          self->send(self->state.pong, ping_atom::value);
          return;
        }
        self->send(self->state.pong, stop_atom::value);
        self->state.pong = nullptr;
        done->set_value();
        self->quit();
      },
  };
}
caf::behavior pong_actor(caf::event_based_actor* self) {
  return {
      [](ping_atom) { return pong_atom::value; },
      [=](stop_atom) { self->quit(); },
  };
}

json pingpong(const bench_params& p) {
  caf_system owner(p);
  caf::actor_system& system = *owner;
  const auto n = p.integer("n");
  return savina_iterations(p, [&] {
    return timed_iteration(
        [&](std::promise<void>* done) {
          auto ping = system.spawn(ping_actor, n, done);
          auto pong = system.spawn(pong_actor);
          return [ping, pong] { caf::anon_send(ping, start_atom::value, pong); };
        },
        [&] { system.await_all_actors_done(); });
  });
}

// ---------------------------------------------------------------- threadring
struct ring_state {
  caf::actor next;
};
caf::behavior ring_actor(caf::stateful_actor<ring_state>* self, std::promise<void>* done) {
  return {
      [=](const caf::actor& next) { self->state.next = next; },
      [=](token_atom, std::int64_t left) {
        if (left == 0) {
          done->set_value();
        } else {
          self->send(self->state.next, token_atom::value, left - 1);
        }
      },
      [=](stop_atom) {
        self->state.next = nullptr;
        self->quit();
      },
  };
}

json threadring(const bench_params& p) {
  caf_system owner(p);
  caf::actor_system& system = *owner;
  const auto actors = p.integer("actors");
  const auto n = p.integer("n");
  if (actors < 2) throw usage_error("threadring needs --actors >= 2");
  return savina_iterations(p, [&] {
    std::promise<void> done;
    std::vector<caf::actor> ring;
    for (std::int64_t i = 0; i < actors; ++i) ring.push_back(system.spawn(ring_actor, &done));
    for (std::int64_t i = 0; i < actors; ++i) caf::anon_send(ring[i], ring[(i + 1) % actors]);
    const auto begin = now_ns();
    caf::anon_send(ring[0], token_atom::value, n);
    done.get_future().wait();
    const double elapsed = double(now_ns() - begin) / 1e9;
    for (auto& a : ring) caf::anon_send(a, stop_atom::value);
    ring.clear();
    system.await_all_actors_done();
    return elapsed;
  });
}

// ---------------------------------------------------------------- counting
struct counter_state {
  std::int64_t count = 0;
};
caf::behavior counter_actor(caf::stateful_actor<counter_state>* self) {
  return {
      [=](inc_atom) { ++self->state.count; },
      [=](get_atom) {
        self->quit();
        return self->state.count;
      },
  };
}
caf::behavior counting_producer(caf::event_based_actor* self, caf::actor counter, std::int64_t n,
                                std::promise<void>* done) {
  return {
      [=](go_atom) {
        for (std::int64_t i = 0; i < n; ++i) self->send(counter, inc_atom::value);
        self->send(counter, get_atom::value);
      },
      [=](std::int64_t count) {
        if (count != n) throw std::runtime_error("counting: lost increments");
        done->set_value();
        self->quit();
      },
  };
}

json counting(const bench_params& p) {
  caf_system owner(p);
  caf::actor_system& system = *owner;
  const auto n = p.integer("n");
  return savina_iterations(p, [&] {
    return timed_iteration(
        [&](std::promise<void>* done) {
          auto counter = system.spawn(counter_actor);
          auto producer = system.spawn(counting_producer, counter, n, done);
          return [producer] { caf::anon_send(producer, go_atom::value); };
        },
        [&] { system.await_all_actors_done(); });
  });
}

// ---------------------------------------------------------------- forkjoin (throughput)
struct fj_state {
  std::int64_t received = 0;
  double sink = 0;
};
caf::behavior fj_worker(caf::stateful_actor<fj_state>* self, std::int64_t n,
                        std::atomic<std::int64_t>* remaining, std::promise<void>* done) {
  return {[=](work_atom) {
    const double sint = std::sin(37.2);
    self->state.sink += sint * sint;
    if (++self->state.received == n) {
      if (remaining->fetch_sub(1) == 1) done->set_value();
      self->quit();
    }
  }};
}

json forkjoin(const bench_params& p) {
  caf_system owner(p);
  caf::actor_system& system = *owner;
  const auto workers = p.integer("workers");
  const auto n = p.integer("n");
  return savina_iterations(p, [&] {
    std::atomic<std::int64_t> remaining{workers};
    return timed_iteration(
        [&](std::promise<void>* done) {
          std::vector<caf::actor> pool;
          for (std::int64_t i = 0; i < workers; ++i) {
            pool.push_back(system.spawn(fj_worker, n, &remaining, done));
          }
          return [pool, n] {
            for (std::int64_t i = 0; i < n; ++i) {
              for (auto& w : pool) caf::anon_send(w, work_atom::value);
            }
          };
        },
        [&] { system.await_all_actors_done(); });
  });
}

// ---------------------------------------------------------------- big
struct big_state {
  std::vector<caf::actor> peers;
  std::int64_t pongs = 0;
  std::minstd_rand rng;
};
caf::behavior big_worker(caf::stateful_actor<big_state>* self, std::int32_t index, std::int64_t n,
                         std::atomic<std::int64_t>* remaining, std::promise<void>* done) {
  self->state.rng.seed(std::uint32_t(index) * 7919u + 1);
  auto send_ping = [self] {
    auto& s = self->state;
    const auto target = std::uniform_int_distribution<std::size_t>(0, s.peers.size() - 1)(s.rng);
    self->send(s.peers[target], ping_atom::value);
  };
  return {
      [=](start_atom, const std::vector<caf::actor>& peers) {
        self->state.peers = peers;
        send_ping();
      },
      [](ping_atom) { return pong_atom::value; },
      [=](pong_atom) {
        if (++self->state.pongs == n) {
          if (remaining->fetch_sub(1) == 1) done->set_value();
        } else {
          send_ping();
        }
      },
      [=](stop_atom) {
        self->state.peers.clear();
        self->quit();
      },
  };
}

json big(const bench_params& p) {
  caf_system owner(p);
  caf::actor_system& system = *owner;
  const auto workers = p.integer("workers");
  const auto n = p.integer("n");
  return savina_iterations(p, [&] {
    std::atomic<std::int64_t> remaining{workers};
    std::promise<void> done;
    std::vector<caf::actor> peers;
    for (std::int64_t i = 0; i < workers; ++i) {
      peers.push_back(system.spawn(big_worker, std::int32_t(i), n, &remaining, &done));
    }
    const auto begin = now_ns();
    for (auto& w : peers) caf::anon_send(w, start_atom::value, peers);
    done.get_future().wait();
    const double elapsed = double(now_ns() - begin) / 1e9;
    for (auto& w : peers) caf::anon_send(w, stop_atom::value);
    peers.clear();
    system.await_all_actors_done();
    return elapsed;
  });
}

// ---------------------------------------------------------------- chameneos
std::uint8_t complement(std::uint8_t a, std::uint8_t b) {
  return a == b ? a : static_cast<std::uint8_t>(3 - a - b);
}
struct mall_state {
  std::vector<caf::actor> all;
  std::int64_t meetings = 0;
  std::size_t stopped = 0;
  std::optional<std::pair<std::int32_t, std::uint8_t>> waiting;
};
caf::behavior mall_actor(caf::stateful_actor<mall_state>* self, std::int64_t limit,
                         std::promise<void>* done) {
  return {
      [=](const std::vector<caf::actor>& all) { self->state.all = all; },
      [=](meet_atom, std::int32_t who, std::uint8_t c) {
        auto& s = self->state;
        if (s.meetings >= limit) {
          self->send(s.all[std::size_t(who)], stop_atom::value);
          if (++s.stopped == s.all.size()) {
            s.all.clear();
            done->set_value();
            self->quit();
          }
          return;
        }
        if (!s.waiting) {
          s.waiting = std::make_pair(who, c);
          return;
        }
        ++s.meetings;
        self->send(s.all[std::size_t(s.waiting->first)], meet_atom::value, c);
        self->send(s.all[std::size_t(who)], meet_atom::value, s.waiting->second);
        s.waiting.reset();
      },
  };
}
struct chameneo_state {
  caf::actor mall;
  std::uint8_t color = 0;
};
caf::behavior chameneo(caf::stateful_actor<chameneo_state>* self, std::int32_t index,
                       std::uint8_t color) {
  self->state.color = color;
  return {
      [=](start_atom, const caf::actor& mall) {
        self->state.mall = mall;
        self->send(mall, meet_atom::value, index, self->state.color);
      },
      [=](meet_atom, std::uint8_t other) {
        self->state.color = complement(self->state.color, other);
        self->send(self->state.mall, meet_atom::value, index, self->state.color);
      },
      [=](stop_atom) {
        self->state.mall = nullptr;
        self->quit();
      },
  };
}

json chameneos(const bench_params& p) {
  caf_system owner(p);
  caf::actor_system& system = *owner;
  const auto count = p.integer("chameneos");
  const auto meetings = p.integer("meetings");
  if (count < 2) throw usage_error("chameneos needs --chameneos >= 2");
  return savina_iterations(p, [&] {
    return timed_iteration(
        [&](std::promise<void>* done) {
          auto mall = system.spawn(mall_actor, meetings, done);
          std::vector<caf::actor> all;
          for (std::int64_t i = 0; i < count; ++i) {
            all.push_back(system.spawn(chameneo, std::int32_t(i), std::uint8_t(i % 3)));
          }
          caf::anon_send(mall, all);
          return [all, mall] {
            for (auto& c : all) caf::anon_send(c, start_atom::value, mall);
          };
        },
        [&] { system.await_all_actors_done(); });
  });
}

}  // namespace

void register_caf_savina(bench_registry& r) {
  r.implement("pingpong", "caf", pingpong);
  r.implement("threadring", "caf", threadring);
  r.implement("counting", "caf", counting);
  r.implement("forkjoin", "caf", forkjoin);
  r.implement("big", "caf", big);
  r.implement("chameneos", "caf", chameneos);
}

}  // namespace spate_bench
