// The physical baseline: one std::thread per stage, bounded lock-free SPSC rings between
// them, consumers spinning (then yielding) on empty rings.
#include <thread>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "shapes.hpp"
#include "spate/channel/spsc_ring.hpp"
#include "spate/platform/backoff.hpp"

namespace spate_bench {
namespace {

constexpr std::size_t ring_capacity = 4096;

template <class T>
void push_blocking(spate::spsc_ring<T>& ring, const T& value) {
  spate::backoff wait;
  while (!ring.try_push(value)) wait.pause();
}

template <class T>
T pop_blocking(spate::spsc_ring<T>& ring) {
  spate::backoff wait;
  T* item;
  while ((item = ring.front()) == nullptr) wait.pause();
  T value = *item;
  ring.pop();
  return value;
}

json pipeline3(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  spate::spsc_ring<tuple24> first(ring_capacity), second(ring_capacity);
  std::uint64_t checksum = 0;
  json m;
  timed_run(m, [&] {
    std::thread source([&] {
      for (std::uint64_t i = 0; i < n; ++i) push_blocking(first, tuple24{i, i * 3, i});
    });
    std::thread forwarder([&] {
      for (std::uint64_t i = 0; i < n; ++i) push_blocking(second, pop_blocking(first));
    });
    for (std::uint64_t i = 0; i < n; ++i) checksum += pop_blocking(second).value;
    source.join();
    forwarder.join();
  });
  if (checksum != tuple24_checksum(n)) throw std::runtime_error("pipeline3: wrong checksum");
  add_items_per_s(m, n);
  return m;
}

json prodcons(const bench_params& p) {
  const auto n = static_cast<std::uint32_t>(p.integer("n"));
  spate::spsc_ring<std::uint32_t> ring(ring_capacity);
  std::uint64_t checksum = 0;
  json m;
  timed_run(m, [&] {
    std::thread producer([&] {
      for (std::uint32_t i = 0; i < n; ++i) push_blocking(ring, i);
    });
    for (std::uint32_t i = 0; i < n; ++i) checksum += pop_blocking(ring);
    producer.join();
  });
  if (checksum != word_checksum(n)) throw std::runtime_error("prodcons: checksum");
  add_ns_per_msg(m, n);
  add_items_per_s(m, n);
  return m;
}

json latency_chain(const bench_params& p) {
  const auto stages = static_cast<std::size_t>(p.integer("stages"));
  const double rate = p.number("rate");
  const double seconds = p.number("seconds");
  if (stages == 0 || rate <= 0) throw usage_error("latency_chain needs stages >= 1 and rate > 0");
  std::vector<std::unique_ptr<spate::spsc_ring<stamp>>> rings;
  for (std::size_t i = 0; i < stages; ++i) {
    rings.push_back(std::make_unique<spate::spsc_ring<stamp>>(ring_capacity));
  }
  std::vector<std::int64_t> samples;
  samples.reserve(std::size_t(rate * seconds) + 16);
  json m;
  timed_run(m, [&] {
    std::vector<std::thread> threads;
    for (std::size_t s = 0; s + 1 < stages; ++s) {
      threads.emplace_back([&, s] {
        for (;;) {
          stamp v = pop_blocking(*rings[s]);
          push_blocking(*rings[s + 1], v);
          if (v.sent_ns < 0) return;
        }
      });
    }
    threads.emplace_back([&] {
      for (;;) {
        stamp v = pop_blocking(*rings[stages - 1]);
        if (v.sent_ns < 0) return;
        samples.push_back(now_ns() - v.sent_ns);
      }
    });
    paced_sends(rate, seconds, [&](std::int64_t sent) { push_blocking(*rings[0], stamp{sent}); });
    push_blocking(*rings[0], stamp{-1});
    for (auto& t : threads) t.join();
  });
  add_latency_metrics(m, std::move(samples), latency_warmup_fraction);
  return m;
}

}  // namespace

void register_thread_impls(bench_registry& r) {
  r.implement("pipeline3", "thread", pipeline3);
  r.implement("prodcons", "thread", prodcons);
  r.implement("latency_chain", "thread", latency_chain);
}

}  // namespace spate_bench
