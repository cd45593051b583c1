#pragma once
// What the window patterns' stages share: how the emitter's tuple copies are allocated, and
// the message from the emitter to a worker.
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>

#include "spate/memory/multicast_envelope.hpp"
#include "spate/memory/slab_pool.hpp"

namespace spate::window {

// Where the emitter's copy of each tuple lives.
enum class tuple_memory {
  slab,  // envelopes from the emitter's slab pool, returned by the workers (default)
  heap,  // envelopes from operator new / delete (the paper's "wrap-std")
};

namespace detail {

enum class pattern { key_partitioning, window_farming };

// What the emitter sends a worker: the shared tuple, its position in its key's stream (count
// windows) or its time (time windows), and which worker it is for (the farm routes on it).
// For time windows, a message without a tuple is a watermark, sent to every worker.
template <class T>
struct routed_tuple {
  memory::multicast_envelope<T>* tuple = nullptr;
  std::uint64_t position = 0;
  std::uint32_t worker = 0;
};

template <class T, class KeyFn>
using key_of = std::decay_t<std::invoke_result_t<const KeyFn&, const T&>>;

// The emitter's pool for envelopes of T, one return channel per worker (nullptr: heap).
template <class T>
std::unique_ptr<memory::slab_pool> make_tuple_pool(tuple_memory m, std::uint32_t workers) {
  if (m != tuple_memory::slab) return nullptr;
  return std::make_unique<memory::slab_pool>(
      memory::slab_options{.block_size = memory::envelope_block_size<T>,
                           .alignment = memory::envelope_alignment<T>,
                           .blocks_per_slab = 1024,
                           .releasers = workers});
}

}  // namespace detail
}  // namespace spate::window
