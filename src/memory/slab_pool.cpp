#include "spate/memory/slab_pool.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <string>

namespace spate::memory {

namespace {
std::size_t round_up(std::size_t n, std::size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}
}  // namespace

slab_pool::slab_pool(slab_options options)
    : alignment_(options.alignment), blocks_per_slab_(options.blocks_per_slab) {
  if (alignment_ == 0 || (alignment_ & (alignment_ - 1)) != 0 || alignment_ < alignof(free_block))
    throw std::invalid_argument(
        "slab_pool: alignment must be a power of two >= " + std::to_string(alignof(free_block)) +
        ", not " + std::to_string(alignment_));
  if (options.block_size == 0) throw std::invalid_argument("slab_pool: block_size must be > 0");
  if (blocks_per_slab_ == 0) throw std::invalid_argument("slab_pool: blocks_per_slab must be > 0");
  if (options.releasers == 0) throw std::invalid_argument("slab_pool: releasers must be > 0");
  block_size_ = round_up(std::max(options.block_size, sizeof(free_block)), alignment_);
  returns_.reserve(options.releasers);
  for (std::size_t i = 0; i < options.releasers; ++i)
    returns_.push_back(std::make_unique<unbounded_spsc_queue<void*>>(blocks_per_slab_));
}

slab_pool::~slab_pool() {
  for (void* slab : slabs_) ::operator delete (slab, std::align_val_t{alignment_});
}

void* slab_pool::allocate() {
  if (free_ != nullptr) {
    ++stats_.from_free_list;
  } else if (!reclaim()) {
    grow();
  }
  free_block* block = free_;
  free_ = block->next;
  return block;
}

void slab_pool::deallocate(void* block) noexcept {
  auto* b = static_cast<free_block*>(block);
  b->next = free_;
  free_ = b;
}

void slab_pool::deallocate(std::size_t releaser, void* block) {
  if (releaser >= returns_.size())
    throw std::out_of_range("slab_pool: releaser " + std::to_string(releaser) +
                            " does not exist (the pool has " + std::to_string(returns_.size()) +
                            ")");
  returns_[releaser]->push(block);
}

bool slab_pool::reclaim() {
  bool any = false;
  for (auto& channel : returns_) {
    void* block = nullptr;
    while (channel->try_pop(block)) {
      deallocate(block);
      ++stats_.reclaimed;
      any = true;
    }
  }
  return any;
}

void slab_pool::grow() {
  auto* slab = static_cast<unsigned char*>(
      ::operator new (block_size_* blocks_per_slab_, std::align_val_t{alignment_}));
  slabs_.push_back(slab);
  ++stats_.slabs;
  // Blocks go on the list in address order, so a fresh slab is handed out sequentially.
  for (std::size_t i = blocks_per_slab_; i-- > 0;) deallocate(slab + i * block_size_);
}

}  // namespace spate::memory
