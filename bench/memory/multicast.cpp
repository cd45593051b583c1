// `multicast` (impl `spate`): the dynamic-memory paper's Fig. 5a benchmark. One emitter
// thread sends n 64-byte tokens, each to a group of `group` consecutive workers out of
// `workers` (each worker reads the token and lets go of it), through spate's spsc_ring
// channels. Only the way a token is allocated, shared and freed changes (--variant):
//   slab            one multicast_envelope per token from a slab_pool (spate's default)
//   new             the same envelope from operator new / delete (the paper's wrap-std)
//   shared_ptr      std::make_shared, one shared_ptr copy per receiver (shp-std)
//   allocate_shared std::allocate_shared from a pre-allocated arena (shp-static)
//   copy            a separate heap copy for each receiver
// jemalloc and mimalloc are compared by preloading them (tools/bench-memory).
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "spate/channel/spsc_ring.hpp"
#include "spate/memory/multicast_envelope.hpp"
#include "spate/memory/slab_pool.hpp"

namespace spate_bench {
namespace {

using spate::spsc_ring;
using spate::memory::multicast_envelope;
using spate::memory::slab_pool;

struct token {
  std::uint64_t sequence;
  std::array<std::uint64_t, 7> payload;
  explicit token(std::uint64_t s) : sequence(s) {
    for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = s + i;
  }
  std::uint64_t sum() const {
    std::uint64_t total = sequence;
    for (auto v : payload) total += v;
    return total;
  }
};
static_assert(sizeof(token) == 64);

// shp-static's allocator: one arena reserved up front, nothing freed before the end.
struct arena {
  std::unique_ptr<unsigned char[]> bytes;
  std::size_t size, used = 0;
};
template <class T>
struct arena_allocator {
  using value_type = T;
  arena* shared;
  explicit arena_allocator(arena* a) noexcept : shared(a) {}
  template <class U>
  arena_allocator(const arena_allocator<U>& other) noexcept : shared(other.shared) {}
  T* allocate(std::size_t n) {
    const std::size_t aligned = (shared->used + alignof(T) - 1) / alignof(T) * alignof(T);
    if (aligned + n * sizeof(T) > shared->size) throw std::bad_alloc();
    shared->used = aligned + n * sizeof(T);
    return reinterpret_cast<T*>(shared->bytes.get() + aligned);
  }
  void deallocate(T*, std::size_t) noexcept {}
  template <class U>
  bool operator==(const arena_allocator<U>& o) const noexcept {
    return shared == o.shared;
  }
};

// Runs the emitter on this thread and the workers on their own; returns the elapsed
// seconds from the first emission to the last worker's end. `emit(i, k)` gives the message
// for the k-th receiver of token i; `take(message, worker)` reads and lets go of it and
// returns the token's sum; `Message{}` is the end of the stream.
template <class Message, class Emit, class Take>
double run(std::size_t workers, std::size_t group, std::uint64_t n, Emit emit, Take take,
           std::uint64_t& checksum) {
  std::vector<std::unique_ptr<spsc_ring<Message>>> inboxes;
  for (std::size_t w = 0; w < workers; ++w)
    inboxes.push_back(std::make_unique<spsc_ring<Message>>(4096));
  std::vector<std::uint64_t> sums(workers, 0);
  std::atomic<std::size_t> ready{0};
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      ready.fetch_add(1);
      std::uint64_t sum = 0;
      for (;;) {
        Message m{};
        if (!inboxes[w]->try_pop(m)) {
          std::this_thread::yield();
          continue;
        }
        if (!m) break;
        sum += take(m, w);
      }
      sums[w] = sum;
    });
  while (ready.load() != workers) std::this_thread::yield();
  const auto begin = now_ns();
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < group; ++k) {
      Message m = emit(i, k);
      while (!inboxes[(i + k) % workers]->try_push(std::move(m))) std::this_thread::yield();
    }
  for (auto& inbox : inboxes)
    while (!inbox->try_push(Message{})) std::this_thread::yield();
  for (auto& t : threads) t.join();
  const double elapsed = double(now_ns() - begin) / 1e9;
  checksum = 0;
  for (auto s : sums) checksum += s;
  return elapsed;
}

json multicast(const bench_params& p) {
  const auto workers = std::size_t(p.integer("workers"));
  const auto group = std::size_t(p.integer("group"));
  const auto n = std::uint64_t(p.integer("n"));
  const std::string variant = p.text("variant");
  if (workers < 1 || group < 1 || group > workers)
    throw usage_error("multicast needs 1 <= group <= workers");
  std::uint64_t checksum = 0;
  double elapsed = 0;
  std::size_t slabs = 0;
  if (variant == "slab" || variant == "new") {
    std::unique_ptr<slab_pool> pool;
    if (variant == "slab")
      pool = std::make_unique<slab_pool>(
          spate::memory::slab_options{.block_size = spate::memory::envelope_block_size<token>,
                                      .alignment = spate::memory::envelope_alignment<token>,
                                      .blocks_per_slab = 1024,
                                      .releasers = workers});
    multicast_envelope<token>* current = nullptr;
    elapsed = run<multicast_envelope<token>*>(
        workers, group, n,
        [&](std::uint64_t i, std::size_t k) {
          if (k == 0) current = multicast_envelope<token>::make(pool.get(), group, i);
          return current;
        },
        [](multicast_envelope<token>* e, std::size_t w) {
          const auto sum = e->value().sum();
          e->release(w);
          return sum;
        },
        checksum);
    if (pool) slabs = pool->stats().slabs;
  } else if (variant == "shared_ptr" || variant == "allocate_shared") {
    // Each control block with its token is well under 128 bytes.
    arena storage{std::make_unique<unsigned char[]>(std::size_t(n) * 128 + 4096),
                  std::size_t(n) * 128 + 4096};
    const bool from_arena = variant == "allocate_shared";
    if (!from_arena) storage = arena{nullptr, 0};
    std::shared_ptr<const token> current;
    elapsed = run<std::shared_ptr<const token>>(
        workers, group, n,
        [&](std::uint64_t i, std::size_t k) {
          if (k == 0)
            current = from_arena ? std::allocate_shared<token>(arena_allocator<token>(&storage), i)
                                 : std::make_shared<token>(i);
          return k + 1 == group ? std::move(current) : current;
        },
        [](std::shared_ptr<const token>& t, std::size_t) {
          const auto sum = t->sum();
          t.reset();
          return sum;
        },
        checksum);
  } else if (variant == "copy") {
    token* original = nullptr;
    elapsed = run<token*>(
        workers, group, n,
        [&](std::uint64_t i, std::size_t k) {
          if (k == 0) original = new token(i);
          if (k + 1 == group) return std::exchange(original, nullptr);
          return new token(*original);
        },
        [](token* t, std::size_t) {
          const auto sum = t->sum();
          delete t;
          return sum;
        },
        checksum);
  } else {
    throw usage_error("--variant must be slab, new, shared_ptr, allocate_shared or copy, not '" +
                      variant + "'");
  }
  // Every receiver of every token: the sum of token(i).sum() over i, group times.
  std::uint64_t expected = 0;
  for (std::uint64_t i = 0; i < n; ++i) expected += token(i).sum();
  if (checksum != expected * group) throw std::runtime_error("multicast: tokens lost or damaged");
  json m;
  m["items_per_s"] = double(n) / elapsed;
  m["deliveries_per_s"] = double(n * group) / elapsed;
  m["wall_s"] = elapsed;
  if (variant == "slab") m["slabs"] = slabs;
  return m;
}

}  // namespace

void register_spate_memory_impls(bench_registry& r) {
  r.implement("multicast", "spate", multicast);
}

}  // namespace spate_bench
