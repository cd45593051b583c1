#pragma once
// A slab allocator for the shape of a stream: one thread allocates (the emitter), several
// release (the workers), and blocks go back to the allocating side without locks. After the
// dynamic-memory paper, Sect. 4.2.1 (FastFlow's allocator):
//
// - A slab is one allocation of `blocks_per_slab` equal blocks. Free blocks are kept in an
//   intrusive list on the owner's side; a request is served from that list, then from the
//   blocks the releasers sent back, and only then by a new slab.
// - Each releaser has its own single-producer / single-consumer return channel (the paper's
//   Fig. 3): a release is one push on the releaser's own channel, never contended by other
//   releasers. The owner drains the channels when its own list is empty.
// - Slabs are kept until the pool is destroyed: in the steady state no memory is requested
//   from or returned to the system; at the end it is all released.
//
// Threading contract (as folly's ProducerConsumerQueue, per method):
// - allocate(), deallocate(block) and the statistics: the owner, one thread at a time (a
//   flow node's activations qualify: they never overlap and each happens-before the next).
// - deallocate(releaser, block): the releaser with that index, one thread at a time per
//   index. Different indices may release concurrently with each other and with the owner.
// The only cross-thread handshake is the return channel's (unbounded_spsc_queue: a release
//   store of the producer's count, an acquire load by the consumer), so a block's contents
//   written by a releaser happen-before the owner hands the block out again.
#include <cstddef>
#include <memory>
#include <vector>

#include "spate/channel/unbounded_spsc_queue.hpp"
#include "spate/platform/export.hpp"

namespace spate::memory {

/// The blocks a slab_pool hands out.
struct slab_options {
  std::size_t block_size = 64;                        ///< bytes; rounded up to `alignment`
  std::size_t alignment = alignof(std::max_align_t);  ///< a power of two
  /// Blocks allocated from the system at a time.
  std::size_t blocks_per_slab = 256;
  std::size_t releasers = 1;  ///< return channels, indices 0 .. releasers - 1
};

/// Fixed-size blocks from slabs, freed through per-releaser return channels (see the top
/// of this file).
class SPATE_API slab_pool {
 public:
  /// Throws std::invalid_argument naming the option when one is out of range.
  explicit slab_pool(slab_options options);
  slab_pool(const slab_pool&) = delete;
  slab_pool& operator=(const slab_pool&) = delete;
  /// Releases every slab. Blocks still held by someone become invalid with it.
  ~slab_pool();

  /// Owner: a block of block_size() bytes, aligned to the pool's alignment.
  [[nodiscard]] void* allocate();
  /// Owner: gives a block back directly.
  void deallocate(void* block) noexcept;
  /// Releaser `releaser`: sends a block back through its return channel.
  void deallocate(std::size_t releaser, void* block);

  /// Bytes per block.
  std::size_t block_size() const noexcept { return block_size_; }
  /// Alignment of every block.
  std::size_t alignment() const noexcept { return alignment_; }
  /// Return channels (one per releasing thread).
  std::size_t releaser_count() const noexcept { return returns_.size(); }

  /// Owner: how requests were served, for tests and benchmarks.
  struct statistics {
    std::size_t slabs = 0;           ///< slabs allocated from the system
    std::size_t from_free_list = 0;  ///< allocations served by the owner's list
    std::size_t reclaimed = 0;       ///< blocks taken back from return channels
  };
  /// The counts so far (owner).
  statistics stats() const noexcept { return stats_; }

 private:
  struct free_block {
    free_block* next;
  };
  bool reclaim();  ///< drains the return channels into the free list; false when all empty
  void grow();     ///< one more slab

  std::size_t block_size_, alignment_, blocks_per_slab_;
  free_block* free_ = nullptr;
  std::vector<void*> slabs_;
  std::vector<std::unique_ptr<unbounded_spsc_queue<void*>>> returns_;
  statistics stats_;
};

}  // namespace spate::memory
