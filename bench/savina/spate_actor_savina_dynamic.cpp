// Savina's benchmarks that create actors as they run, with spate's typed actors: fjcreate
// (n actors created, one message each), fib (a tree of actors, two children per call) and
// sieve (a chain of filters that grows as primes are found). The protocol is Savina's Akka
// one; an actor that creates actors spawns them from its handler (system().spawn). Every
// iteration's result is checked by the same `*_case` as the reactor versions'
// (savina_checks.hpp), and every actor has ended before the next iteration.
#include <cmath>
#include <cstdint>
#include <future>
#include <limits>
#include <string>
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

// ---------------------------------------------------------------- fjcreate
// Savina's ForkJoin actor creation: the benchmark itself creates n actors and sends each one
// message; each does one small computation and ends. No answer comes back, so, as in Savina,
// the iteration ends when every actor has terminated: the timed part spawns, sends and awaits
// them. Each worker leaves its result in its own slot, read after the iteration.
struct fj_message {};

struct fj_worker : spate::typed_actor<fj_worker, fj_message> {
  explicit fj_worker(double* slot) : slot(slot) {}
  void on(fj_message&) {
    *slot = fjcreate_case::compute(fjcreate_case::theta);
    quit();
  }
  double* slot;
};

json fjcreate(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const fjcreate_case c(p);
  return savina_iterations(p, [&] {
    // NaN: a slot no worker wrote is not counted as completed.
    std::vector<double> results(std::size_t(c.n), std::numeric_limits<double>::quiet_NaN());
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          return [&system, &results, done] {
            for (double& slot : results) send(system.spawn<fj_worker>(&slot), fj_message{});
            system.await_all_actors_done();
            done->set_value();
          };
        },
        [] {});
    std::int64_t completed = 0;
    double total = 0;
    for (const double r : results) {
      if (std::isnan(r)) continue;
      ++completed;
      total += r;
    }
    c.check(completed, total);
    return seconds;
  });
}

// ---------------------------------------------------------------- fib
// Savina's Fibonacci: an actor asked for fib(n) with n > 2 spawns two children, asks them for
// fib(n - 1) and fib(n - 2) and answers its parent with their sum; n <= 2 answers at once
// (Savina's leaves; fib(0) = 0 here, where Savina answers 1). The root, which has no parent,
// writes the result and ends the timed part.
struct fib_request {
  std::int32_t n;
};
struct fib_response {
  std::int64_t value;
};

struct fib_actor : spate::typed_actor<fib_actor, fib_request, fib_response> {
  // The root's result slot and completion; children have a parent instead.
  fib_actor(std::int64_t* result, std::promise<void>* done) : result(result), done(done) {}
  explicit fib_actor(actor_ref<fib_actor> parent) : parent(std::move(parent)) {}
  void on(fib_request& r) {
    if (r.n <= 2) {
      answer(r.n == 0 ? 0 : 1);
      return;
    }
    const auto self = typed_self();
    send(system().spawn<fib_actor>(self), fib_request{r.n - 1});
    send(system().spawn<fib_actor>(self), fib_request{r.n - 2});
  }
  void on(fib_response& r) {
    sum += r.value;
    if (++received == 2) answer(sum);
  }
  void answer(std::int64_t value) {
    if (parent) {
      send(parent, fib_response{value});
      parent = nullptr;
    } else {
      *result = value;
      done->set_value();
    }
    quit();
  }
  actor_ref<fib_actor> parent;
  std::int64_t sum = 0;
  int received = 0;
  std::int64_t* result = nullptr;
  std::promise<void>* done = nullptr;
};

json fib(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const fib_case c(p);
  return savina_iterations(p, [&] {
    std::int64_t result = -1;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto root = system.spawn<fib_actor>(&result, done);
          return [root, n = std::int32_t(c.n)] { send(root, fib_request{n}); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

// ---------------------------------------------------------------- sieve
// Savina's Sieve of Eratosthenes: the producer sends the odd candidates 3, 5, … below
// `limit`, then an exit, down a chain of filters that each hold up to `local_primes` primes
// (the first holds 2). A candidate no prime of a filter divides goes on to the next filter;
// the last filter keeps it, or, when full, spawns the next filter with it. The exit follows
// the candidates down the chain (every filter has one sender, so it comes after them), adding
// up each filter's primes; the last filter writes the result and ends the timed part.
struct sieve_filter;
struct sv_candidate {
  std::int64_t value;
};
struct sv_exit {
  std::int64_t primes_before = 0;  ///< primes held by the filters before this one
};

struct sieve_filter : spate::typed_actor<sieve_filter, sv_candidate, sv_exit> {
  sieve_filter(std::int64_t id, std::int64_t first_prime, std::size_t capacity,
               sieve_result* result, std::promise<void>* done)
      : id(id), capacity(capacity), result(result), done(done) {
    primes.reserve(capacity);
    primes.push_back(first_prime);
  }
  void on(sv_candidate& c) {
    for (const std::int64_t prime : primes) {
      if (c.value % prime == 0) return;
    }
    if (next) {
      send(next, c);
    } else if (primes.size() < capacity) {
      primes.push_back(c.value);
    } else {
      next = system().spawn<sieve_filter>(id + 1, c.value, capacity, result, done);
    }
  }
  void on(sv_exit& e) {
    e.primes_before += std::int64_t(primes.size());
    if (next) {
      send(next, e);
      next = nullptr;
    } else {
      *result = sieve_result{e.primes_before, id, primes.back()};
      done->set_value();
    }
    quit();
  }
  std::int64_t id;
  std::size_t capacity;
  std::vector<std::int64_t> primes;
  actor_ref<sieve_filter> next;
  sieve_result* result;
  std::promise<void>* done;
};

struct sieve_producer : spate::typed_actor<sieve_producer, actor_ref<sieve_filter>> {
  explicit sieve_producer(std::int64_t limit) : limit(limit) {}
  void on(actor_ref<sieve_filter>& first) {
    for (std::int64_t candidate = 3; candidate < limit; candidate += 2) {
      send(first, sv_candidate{candidate});
    }
    send(first, sv_exit{});
    quit();
  }
  std::int64_t limit;
};

json sieve(const bench_params& p) {
  spate::actor_system system(spate_config(p));
  const sieve_case c(p);
  return savina_iterations(p, [&] {
    sieve_result result;
    const double seconds = timed_iteration(
        [&](std::promise<void>* done) {
          auto producer = system.spawn<sieve_producer>(c.limit);
          auto first = system.spawn<sieve_filter>(1, 2, std::size_t(c.local_primes), &result, done);
          return [producer, first] { send(producer, first); };
        },
        [&] { system.await_all_actors_done(); });
    c.check(result);
    return seconds;
  });
}

}  // namespace

void register_spate_actor_savina_dynamic(bench_registry& r) {
  r.implement("fjcreate", "spate-actor", fjcreate);
  r.implement("fib", "spate-actor", fib);
  r.implement("sieve", "spate-actor", sieve);
}

}  // namespace spate_bench
