// wake_floor: the floor under every latency_chain figure at low rates. One thread sleeps on a
// semaphore (a futex); the generator stamps and releases it at `rate` per second; the woken
// thread records now - stamp. At 10 per second every message finds every thread asleep, so
// each latency_chain result includes one such wake-up; this measures it alone.
#include <atomic>
#include <semaphore>
#include <thread>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "shapes.hpp"

namespace spate_bench {
namespace {

json wake_floor(const bench_params& p) {
  const double rate = p.number("rate");
  const double seconds = p.number("seconds");
  if (rate <= 0) throw usage_error("wake_floor needs rate > 0");
  std::binary_semaphore wake{0};
  std::atomic<std::int64_t> stamp{0};
  std::atomic<bool> done{false};
  std::vector<std::int64_t> samples;
  samples.reserve(std::size_t(rate * seconds) + 16);
  json m;
  timed_run(m, [&] {
    std::thread sleeper([&] {
      for (;;) {
        wake.acquire();
        if (done.load()) return;
        samples.push_back(now_ns() - stamp.load(std::memory_order_acquire));
      }
    });
    paced_sends(rate, seconds, [&](std::int64_t sent) {
      stamp.store(sent, std::memory_order_release);
      wake.release();
    });
    done = true;
    wake.release();
    sleeper.join();
  });
  add_latency_metrics(m, std::move(samples), latency_warmup_fraction);
  return m;
}

}  // namespace

void register_wake_floor(bench_registry& r) {
  r.define("wake_floor", "one sleeping thread woken through a futex at `rate` per second",
           {{"rate", "10"}, {"seconds", "5"}});
  r.implement("wake_floor", "thread", wake_floor);
}

}  // namespace spate_bench
