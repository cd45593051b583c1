// The slab pool and multicast envelopes: options checked with names, blocks recycled
// through the return channels, no allocation in the steady state, every tuple delivered
// once to each receiver of its group and freed exactly once, across threads.
#include <spate/channel/spsc_ring.hpp>
#include <spate/memory/multicast_envelope.hpp>
#include <spate/memory/slab_pool.hpp>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "allocation_counter.hpp"

namespace spate::memory {
namespace {

// A 64-byte token, as the paper's benchmark: a sequence number and a checksum of it.
struct token {
  std::uint64_t sequence;
  std::array<std::uint64_t, 7> payload;
  explicit token(std::uint64_t s) : sequence(s) {
    for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = s * 31 + i;
  }
  bool intact() const {
    for (std::size_t i = 0; i < payload.size(); ++i)
      if (payload[i] != sequence * 31 + i) return false;
    return true;
  }
};
static_assert(sizeof(token) == 64);

slab_options envelope_pool(std::size_t releasers, std::size_t blocks_per_slab = 64) {
  return slab_options{.block_size = envelope_block_size<token>,
                      .alignment = envelope_alignment<token>,
                      .blocks_per_slab = blocks_per_slab,
                      .releasers = releasers};
}

TEST(slab_pool, rejects_options_out_of_range_naming_them) {
  auto message_of = [](slab_options o) {
    try {
      slab_pool pool{o};
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message_of({.block_size = 0}).find("block_size"), std::string::npos);
  EXPECT_NE(message_of({.alignment = 24}).find("alignment"), std::string::npos);
  EXPECT_NE(message_of({.blocks_per_slab = 0}).find("blocks_per_slab"), std::string::npos);
  EXPECT_NE(message_of({.releasers = 0}).find("releasers"), std::string::npos);
  slab_pool pool{{.releasers = 2}};
  void* block = pool.allocate();
  EXPECT_THROW(pool.deallocate(2, block), std::out_of_range);
  pool.deallocate(1, block);
}

TEST(slab_pool, hands_out_distinct_aligned_blocks_and_reuses_released_ones) {
  slab_pool pool{{.block_size = 40, .alignment = 64, .blocks_per_slab = 8, .releasers = 2}};
  EXPECT_EQ(pool.block_size(), 64u);
  std::set<void*> seen;
  std::vector<void*> held;
  for (int i = 0; i < 24; ++i) {  // three whole slabs
    void* b = pool.allocate();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % 64, 0u);
    EXPECT_TRUE(seen.insert(b).second) << "a block was handed out twice";
    held.push_back(b);
  }
  EXPECT_EQ(pool.stats().slabs, 3u);
  for (std::size_t i = 0; i < held.size(); ++i) pool.deallocate(i % 2, held[i]);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(seen.count(pool.allocate()), 1u);
  EXPECT_EQ(pool.stats().slabs, 3u);  // served from the return channels
  EXPECT_EQ(pool.stats().reclaimed, 24u);
}

TEST(multicast_envelope, the_last_release_frees_once_whatever_the_order) {
  slab_pool pool{envelope_pool(3)};
  for (std::uint32_t group = 1; group <= 3; ++group) {
    auto* e = multicast_envelope<token>::make(&pool, group, 7);
    EXPECT_EQ(e->value().sequence, 7u);
    for (std::uint32_t r = 0; r < group; ++r) e->release(r);
  }
  // Three envelopes made, all released: the next three come back from the channels.
  for (int i = 0; i < 3; ++i) multicast_envelope<token>::make(&pool, 1, i)->release(0);
  EXPECT_EQ(pool.stats().slabs, 1u);
  EXPECT_THROW(multicast_envelope<token>::make(&pool, 0, 1), std::invalid_argument);
  slab_pool small{{.block_size = 16}};
  EXPECT_THROW(multicast_envelope<token>::make(&small, 1, 1), std::invalid_argument);
}

TEST(multicast_envelope, shares_release_on_destruction_and_move) {
  slab_pool pool{envelope_pool(2, 1)};  // one block per slab: reuse is visible
  auto* e = multicast_envelope<token>::make(&pool, 2, 5);
  {
    envelope_share<token> a{e, 0};
    envelope_share<token> b{e, 1};
    envelope_share<token> moved = std::move(b);
    EXPECT_FALSE(b);  // NOLINT(bugprone-use-after-move): checking the moved-from state
    EXPECT_EQ(moved->sequence, 5u);
    EXPECT_TRUE((*a).intact());
  }
  EXPECT_EQ(multicast_envelope<token>::make(&pool, 1, 6), e);  // freed, then reused
}

// The paper's claim for the slab variant: after warm-up no per-tuple allocation at all.
TEST(multicast_envelope, slab_envelopes_allocate_nothing_in_the_steady_state) {
  slab_pool pool{envelope_pool(4)};
  auto cycle = [&](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      auto* e = multicast_envelope<token>::make(&pool, 3, i);
      for (std::size_t r = 0; r < 3; ++r) e->release((i + r) % 4);
    }
  };
  cycle(10'000);  // warm-up: slabs and channel segments reach their working size
  const std::size_t before = spate::test::global_allocations();
  cycle(100'000);
  EXPECT_EQ(spate::test::global_allocations() - before, 0u);
  // The same loop with operator new allocates once per tuple: the counter does count.
  const std::size_t heap_before = spate::test::global_allocations();
  for (std::uint64_t i = 0; i < 1000; ++i) {
    auto* e = multicast_envelope<token>::make(nullptr, 2, i);
    e->release(0);
    e->release(1);
  }
  EXPECT_EQ(spate::test::global_allocations() - heap_before, 1000u);
}

// One emitter thread, `workers` receiver threads, each tuple multicast to a group of
// consecutive workers: every receiver sees exactly its tuples, intact and in order, and the
// pool stops growing once blocks circulate.
TEST(multicast_envelope, threads_receive_every_tuple_of_their_group_once_and_all_are_freed) {
  constexpr std::size_t workers = 4, group = 3;
  constexpr std::uint64_t tuples = 60'000;
  slab_pool pool{envelope_pool(workers, 128)};
  std::vector<std::unique_ptr<spsc_ring<multicast_envelope<token>*>>> inboxes;
  for (std::size_t w = 0; w < workers; ++w)
    inboxes.push_back(std::make_unique<spsc_ring<multicast_envelope<token>*>>(256));
  std::vector<std::uint64_t> received(workers, 0);
  std::atomic<bool> failed{false};
  std::vector<std::thread> receivers;
  for (std::size_t w = 0; w < workers; ++w) {
    receivers.emplace_back([&, w] {
      std::uint64_t expected = 0;
      for (;;) {
        multicast_envelope<token>* e = nullptr;
        if (!inboxes[w]->try_pop(e)) {
          std::this_thread::yield();
          continue;
        }
        if (e == nullptr) return;  // end of stream
        // Tuple i goes to workers i % workers, +1, +2: find the next one that is ours.
        while ((w + workers - expected % workers) % workers >= group) ++expected;
        if (e->value().sequence != expected || !e->value().intact()) failed = true;
        ++expected;
        ++received[w];
        e->release(w);
      }
    });
  }
  for (std::uint64_t i = 0; i < tuples; ++i) {
    auto* e = multicast_envelope<token>::make(&pool, group, i);
    for (std::size_t k = 0; k < group; ++k)
      while (!inboxes[(i + k) % workers]->try_push(e)) std::this_thread::yield();
  }
  for (auto& inbox : inboxes)
    while (!inbox->try_push(nullptr)) std::this_thread::yield();
  for (auto& t : receivers) t.join();
  EXPECT_FALSE(failed.load());
  for (std::size_t w = 0; w < workers; ++w) EXPECT_EQ(received[w], tuples * group / workers);
  // At most the blocks in flight (4 inboxes of 256, and each channel's backlog) were ever
  // live at once, a small multiple of the inboxes, never one per tuple.
  EXPECT_LT(pool.stats().slabs * 128, tuples / 4);
}

}  // namespace
}  // namespace spate::memory
