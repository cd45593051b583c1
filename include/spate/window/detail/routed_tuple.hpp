#pragma once
// What the window patterns' stages share: how the emitter's tuple copies are allocated, and
// the message from the emitter to a worker.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
#include "spate/memory/multicast_envelope.hpp"
#include "spate/memory/slab_pool.hpp"
#include "spate/window/pattern_options.hpp"

namespace spate::window::detail {

enum class pattern { key_partitioning, window_farming };

// What the emitter sends a worker: the shared tuple, its position in its key's stream (count
// windows) or its time (time windows), and which worker it is for (the farm routes on it).
// For time windows, a message without a tuple is a watermark, sent to every worker.
//
// It owns one receiver's share of the envelope and releases it when destroyed, through the
// return channel of the worker it is for (the farm routes it to replica `worker`, whose
// releaser index is the same). So a message that never reaches its worker's consume() — in
// the emitter's output buffer or an edge when the graph is cancelled or fails — still
// releases its share when the graph's edges and tasks are destroyed, and the tuple is
// destroyed once. graph_state destroys the edges before the tasks and the tasks newest
// first (the emitter, built first, owns the pool; a router's buffer may hold messages), and
// only after every task has ended, so that release has the channel to itself.
template <class T>
struct routed_tuple {
  memory::multicast_envelope<T>* tuple = nullptr;
  std::uint64_t position = 0;
  std::uint32_t worker = 0;

  routed_tuple() = default;
  routed_tuple(memory::multicast_envelope<T>* tuple, std::uint64_t position,
               std::uint32_t worker) noexcept
      : tuple(tuple), position(position), worker(worker) {}
  routed_tuple(routed_tuple&& other) noexcept
      : tuple(std::exchange(other.tuple, nullptr)),
        position(other.position),
        worker(other.worker) {}
  routed_tuple& operator=(routed_tuple&& other) noexcept {
    if (this != &other) {
      release();
      tuple = std::exchange(other.tuple, nullptr);
      position = other.position;
      worker = other.worker;
    }
    return *this;
  }
  routed_tuple(const routed_tuple&) = delete;
  routed_tuple& operator=(const routed_tuple&) = delete;
  ~routed_tuple() { release(); }

  /// The worker, after its last read of the tuple: gives its share back now.
  void release() noexcept {
    if (tuple != nullptr) std::exchange(tuple, nullptr)->release(worker);
  }
};

template <class T, class KeyFn>
using key_of = std::decay_t<std::invoke_result_t<const KeyFn&, const T&>>;

inline constexpr std::size_t tuple_blocks_per_slab = 1024;

// The emitter's pool for envelopes of T, one return channel per worker (nullptr: heap).
template <class T>
std::unique_ptr<memory::slab_pool> make_tuple_pool(tuple_memory m, std::uint32_t workers) {
  if (m != tuple_memory::slab) return nullptr;
  return std::make_unique<memory::slab_pool>(
      memory::slab_options{.block_size = memory::envelope_block_size<T>,
                           .alignment = memory::envelope_alignment<T>,
                           .blocks_per_slab = tuple_blocks_per_slab,
                           .releasers = workers});
}

// Keeps a report's pool_slabs and pool_bytes in step with one emitter's pool. The emitter
// owns the pool, so after each tuple it may read the pool's slab count (a plain read) and
// touch the shared atomics only when the pool grew, which is rare; adding the difference
// rather than storing lets several emitters share a report. The pool's share is taken out
// when the emitter (and with it the pool) is destroyed.
class pool_gauge {
 public:
  // Either may be null (heap envelopes, no report): then it does nothing.
  pool_gauge(const memory::slab_pool* pool, window_report* report) noexcept
      : pool_(report != nullptr ? pool : nullptr),
        report_(report),
        bytes_per_slab_(pool != nullptr ? tuple_blocks_per_slab * pool->block_size() : 0) {}
  // Moves the share over (an emitter moved before its run starts).
  pool_gauge(pool_gauge&& other) noexcept
      : pool_(std::exchange(other.pool_, nullptr)),
        report_(other.report_),
        bytes_per_slab_(other.bytes_per_slab_),
        published_(std::exchange(other.published_, 0)) {}
  pool_gauge& operator=(pool_gauge&&) = delete;
  ~pool_gauge() { publish(0); }

  // The owner, after an allocation.
  void update() noexcept {
    if (pool_ != nullptr && pool_->stats().slabs != published_) publish(pool_->stats().slabs);
  }

 private:
  // Unsigned differences wrap, so adding one that shrinks the total is a subtraction. Reads
  // nothing of the pool: the destructor may run after the pool's.
  void publish(std::uint64_t slabs) noexcept {
    if (pool_ == nullptr || slabs == published_) return;
    report_->pool_slabs.fetch_add(slabs - published_, std::memory_order_relaxed);
    report_->pool_bytes.fetch_add((slabs - published_) * bytes_per_slab_,
                                  std::memory_order_relaxed);
    published_ = slabs;
  }

  const memory::slab_pool* pool_;
  window_report* report_;
  std::uint64_t bytes_per_slab_;
  std::uint64_t published_ = 0;
};

// The emitter's step shared by count and time windows: copies `tuple` once into an envelope
// and sends it to the workers that need it. Key Partitioning: the key's worker. Window
// Farming: the owners of windows first .. last (window w belongs to worker w mod n), which
// are consecutive and distinct until there are n of them.
template <class T, class Key, class Send>
void multicast_tuple(pattern p, const Key& key, std::uint64_t first, std::uint64_t last,
                     std::uint32_t workers, memory::slab_pool* pool, T&& tuple,
                     std::uint64_t position, Send&& send) {
  std::uint32_t first_worker = 0, group = 1;
  if (p == pattern::key_partitioning) {
    first_worker = std::uint32_t(std::hash<Key>{}(key) % workers);
  } else {
    group = std::uint32_t(std::min<std::uint64_t>(last - first + 1, workers));
    first_worker = std::uint32_t(first % workers);
  }
  auto* shared = memory::multicast_envelope<T>::make(pool, group, std::move(tuple));
  for (std::uint32_t k = 0; k < group; ++k)
    send(routed_tuple<T>{shared, position, (first_worker + k) % workers});
}

// Which windows a worker keeps: (owner, owners) for the keepers' `w % owners == owner`.
inline std::pair<std::uint64_t, std::uint64_t> window_share(pattern p,
                                                            const flow::node_context& worker) {
  if (p == pattern::key_partitioning) return {0, 1};  // every window of the keys routed here
  return {worker.replica_index(), worker.replica_count()};
}

// Whether `worker` gets `key`'s tuples: Key Partitioning routes a key by its hash, as
// multicast_tuple does; Window Farming sends every key to every worker.
template <class Key>
bool routes_key_to(pattern p, const Key& key, const flow::node_context& worker) {
  return p != pattern::key_partitioning ||
         std::hash<Key>{}(key) % worker.replica_count() == worker.replica_index();
}

// Emitter, a farm of `workers` window workers fed by routed_tuple::worker, and a collector.
// The emitter (and its pool) is destroyed with the graph, after every worker ended: the
// workers' releases never outlive the pool.
template <class T, class Emitter, class Worker, class Collector>
auto assemble_window_pattern(pattern p, std::size_t workers, Emitter emitter, Worker worker,
                             Collector collector) {
  return flow::pipeline(
      std::move(emitter).named(p == pattern::key_partitioning ? "kp_emitter" : "wf_emitter"),
      flow::farm(std::move(worker).named("window_worker"), workers,
                 flow::custom_policy{
                     [](const routed_tuple<T>& m, std::size_t) { return std::size_t(m.worker); }}),
      std::move(collector).named("window_collector"));
}

inline void check_workers(std::size_t workers) {
  if (workers == 0 || workers > 0xffffffffu)
    throw std::invalid_argument("window pattern: workers must be >= 1");
}

}  // namespace spate::window::detail
