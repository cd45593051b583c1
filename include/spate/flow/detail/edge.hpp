#pragma once
// A stream edge: one bounded SPSC ring from one producer replica to one consumer replica
// (the high-throughput-actors paper, Sect. 3, uses FastFlow's SPSC queues between nodes).
// `closed` is end-of-stream; `producer_waiting` is the backpressure hand-shake: a producer
// that found the ring full sets it, and the consumer, after making room, clears it and
// wakes the producer.
#include <atomic>
#include <cstddef>
#include <string>

#include "spate/channel/spsc_ring.hpp"
#include "spate/platform/cache_line.hpp"

namespace spate::flow::detail {

class node_task_base;

struct edge_base {
  virtual ~edge_base() = default;
  node_task_base* producer = nullptr;
  node_task_base* consumer = nullptr;
  // How the producer picks this edge among its outputs ("by key (fused)", "broadcast", ...;
  // empty for a single successor), for topology pictures. Set while the graph is built.
  std::string route;
  alignas(cache_line_size) std::atomic<bool> closed{false};
  alignas(cache_line_size) std::atomic<bool> producer_waiting{false};
  virtual std::size_t size_approx() const noexcept = 0;
  virtual std::size_t capacity() const noexcept = 0;
  // A producer blocked on this edge is woken once the ring has drained to this level, not
  // at the first free slot: it then refills half a ring in one activation instead of
  // trickling one consumer batch at a time through a saturated pipeline.
  std::size_t resume_level() const noexcept { return capacity() / 2; }
  bool has_room_to_resume() const noexcept { return size_approx() <= resume_level(); }
};

template <class E>
struct edge final : edge_base {
  explicit edge(std::size_t capacity) : ring(capacity) {}
  spsc_ring<E> ring;
  std::size_t size_approx() const noexcept override { return ring.size_approx(); }
  std::size_t capacity() const noexcept override { return ring.capacity(); }
};

}  // namespace spate::flow::detail
