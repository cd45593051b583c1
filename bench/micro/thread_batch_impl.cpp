// Batched physical baselines.
//
// impl "thread-batch" (pipeline3, prodcons): the `thread` impl's shape (one std::thread per
// stage, spsc_ring edges, spin-then-yield waits) moving items in batches through the rings'
// write windows and read batches, with spate's default ring capacity and batch size
// (graph_options{}): what spate's flow layer does per activation, without the scheduler. It
// is the fair baseline for spate's batched flow figures; `thread` moves one item at a time.
//
// impl "thread" for nodes_vs_cores: the thread-per-node design of CAF-PP, FastFlow and
// WindFlow — one thread per node, the same bounded rings and batch size as spate's graph
// (--capacity, --batch), a thread blocking (after a short spin) when its input is empty or
// its output is full. 64 nodes on 2 cores is oversubscribed by design: that is the claim
// under test (a graph may have many more nodes than cores).
#include <memory>
#include <thread>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "shapes.hpp"
#include "spate/channel/spsc_ring.hpp"
#include "spate/flow/graph.hpp"
#include "spate/platform/backoff.hpp"
#include "spate/exec/detail/parking_event.hpp"

namespace spate_bench {
namespace {

const spate::flow::graph_options spate_defaults{};

// An edge whose ends may sleep. The handshake is parking_event's own: a notify that comes
// before the wait makes the wait return at once, so an end that saw the ring empty (or
// full) and then waits cannot miss the other end's commit (or pop) — the other end
// publishes the ring index first and notifies after, on every commit (pop).
template <class T>
struct blocking_edge {
  explicit blocking_edge(std::size_t capacity) : ring(capacity) {}
  spate::spsc_ring<T> ring;
  spate::parking_event not_empty;  // the consumer waits on it
  spate::parking_event not_full;   // the producer waits on it
};

// How an end waits: spin (no yield), then either yield (`thread-batch`, as `thread` does) or
// sleep on the edge's event (thread-per-node).
enum class wait_mode { yield, block };

template <wait_mode Mode>
void wait_on(spate::backoff& backoff, spate::parking_event& event) {
  if constexpr (Mode == wait_mode::block) {
    if (backoff.is_yielding()) {
      event.wait();
      return;
    }
  }
  backoff.pause();
}

// Producer side: writes make(0..count-1) in windows of at most `batch`.
template <wait_mode Mode, class T, class Make>
void push_batches(blocking_edge<T>& edge, std::uint64_t count, std::size_t batch, Make make) {
  std::uint64_t made = 0;
  spate::backoff backoff;
  while (made < count) {
    const auto want = std::size_t(std::min<std::uint64_t>(batch, count - made));
    auto window = edge.ring.reserve(want);
    if (window.room() == 0) {
      wait_on<Mode>(backoff, edge.not_full);
      continue;
    }
    backoff.reset();
    while (!window.full()) window.emplace(make(made++));
    edge.ring.commit(window);
    if constexpr (Mode == wait_mode::block) edge.not_empty.notify();
  }
}

// Consumer side: hands `count` items to use(item) in read batches of at most `batch`.
template <wait_mode Mode, class T, class Use>
void pop_batches(blocking_edge<T>& edge, std::uint64_t count, std::size_t batch, Use use) {
  std::uint64_t taken = 0;
  spate::backoff backoff;
  while (taken < count) {
    auto ready = edge.ring.readable(batch);
    if (ready.size() == 0) {
      wait_on<Mode>(backoff, edge.not_empty);
      continue;
    }
    backoff.reset();
    use(ready);
    edge.ring.pop_n(ready.size());
    taken += ready.size();
    if constexpr (Mode == wait_mode::block) edge.not_full.notify();
  }
}

// Forwards `count` items from `in` to `out`, a read batch at a time.
template <wait_mode Mode, class T>
void forward_batches(blocking_edge<T>& in, blocking_edge<T>& out, std::uint64_t count,
                     std::size_t batch) {
  pop_batches<Mode>(in, count, batch, [&](auto& ready) {
    push_batches<Mode>(out, ready.size(), batch, [&](std::uint64_t k) { return ready[k]; });
  });
}

json pipeline3(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  const std::size_t batch = spate_defaults.items_per_activation;
  blocking_edge<tuple24> first(spate_defaults.links.capacity);
  blocking_edge<tuple24> second(spate_defaults.links.capacity);
  std::uint64_t checksum = 0;
  json m;
  timed_run(m, [&] {
    std::thread source([&] {
      push_batches<wait_mode::yield>(first, n, batch, [](std::uint64_t i) {
        return tuple24{i, i * 3, i};
      });
    });
    std::thread forwarder([&] { forward_batches<wait_mode::yield>(first, second, n, batch); });
    pop_batches<wait_mode::yield>(second, n, batch, [&](auto& ready) {
      for (std::size_t k = 0; k < ready.size(); ++k) checksum += ready[k].value;
    });
    source.join();
    forwarder.join();
  });
  if (checksum != tuple24_checksum(n)) throw std::runtime_error("pipeline3: wrong checksum");
  add_items_per_s(m, n);
  return m;
}

json prodcons(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  const std::size_t batch = spate_defaults.items_per_activation;
  blocking_edge<std::uint32_t> edge(spate_defaults.links.capacity);
  std::uint64_t checksum = 0;
  json m;
  timed_run(m, [&] {
    std::thread producer([&] {
      push_batches<wait_mode::yield>(edge, n, batch,
                                     [](std::uint64_t i) { return std::uint32_t(i); });
    });
    pop_batches<wait_mode::yield>(edge, n, batch, [&](auto& ready) {
      for (std::size_t k = 0; k < ready.size(); ++k) checksum += ready[k];
    });
    producer.join();
  });
  if (checksum != word_checksum(n)) throw std::runtime_error("prodcons: checksum");
  add_ns_per_msg(m, n);
  add_items_per_s(m, n);
  return m;
}

// nodes_vs_cores, thread per node: a source thread, nodes-2 forwarding threads and the sink
// on the calling thread; every 16th item timed, as in the spate impl.
json nodes_vs_cores(const bench_params& p) {
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  const auto nodes = static_cast<std::size_t>(p.integer("nodes"));
  const auto capacity = static_cast<std::size_t>(p.integer("capacity"));
  const auto batch = static_cast<std::size_t>(p.integer("batch"));
  if (nodes < 2 || capacity == 0 || batch == 0) {
    throw usage_error("nodes_vs_cores: needs --nodes >= 2, --capacity >= 1, --batch >= 1");
  }
  std::vector<std::unique_ptr<blocking_edge<stamp>>> edges;
  for (std::size_t e = 0; e + 1 < nodes; ++e) {
    edges.push_back(std::make_unique<blocking_edge<stamp>>(capacity));
  }
  std::vector<std::int64_t> samples;
  samples.reserve(n / 16 + 1);
  std::uint64_t received = 0;
  json m;
  timed_run(m, [&] {
    std::vector<std::thread> threads;
    threads.emplace_back([&] {
      push_batches<wait_mode::block>(*edges.front(), n, batch, [](std::uint64_t i) {
        return stamp{(i & 15) == 0 ? now_ns() : 0};
      });
    });
    for (std::size_t e = 0; e + 1 < edges.size(); ++e) {
      threads.emplace_back(
          [&, e] { forward_batches<wait_mode::block>(*edges[e], *edges[e + 1], n, batch); });
    }
    pop_batches<wait_mode::block>(*edges.back(), n, batch, [&](auto& ready) {
      for (std::size_t k = 0; k < ready.size(); ++k) {
        if ((received++ & 15) == 0) {
          if (ready[k].sent_ns == 0) throw std::runtime_error("nodes_vs_cores: reordered");
          samples.push_back(now_ns() - ready[k].sent_ns);
        }
      }
    });
    for (auto& t : threads) t.join();
  });
  if (received != n) throw std::runtime_error("nodes_vs_cores: lost items");
  add_items_per_s(m, n);
  add_latency_metrics(m, std::move(samples));
  m["os_threads"] = nodes;
  return m;
}

}  // namespace

void register_thread_batch_impls(bench_registry& r) {
  r.implement("pipeline3", "thread-batch", pipeline3);
  r.implement("prodcons", "thread-batch", prodcons);
  r.implement("nodes_vs_cores", "thread", nodes_vs_cores);
}

}  // namespace spate_bench
