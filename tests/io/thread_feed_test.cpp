// A live stream (no end in sight) must deliver every item without help from the items after
// it: a reader thread pushes a burst, publishes and blocks as a Kafka or socket reader does,
// and the burst must reach the sink before the reader sends the next one. A lost wake-up
// anywhere between the reader and the sink leaves an item in a ring until more input comes,
// which a test ending with an end of stream never sees (the end flushes every ring).
#include <gtest/gtest.h>
#include "../test_runtime.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <random>
#include <thread>

#include "spate/flow.hpp"
#include "spate/io/thread_feed.hpp"

namespace flow = spate::flow;
namespace io = spate::io;
using namespace std::chrono_literals;

namespace {

// What the reader and the sink share: the sink counts, the reader waits for the count.
struct burst_state {
  std::mutex mutex;
  std::condition_variable changed;
  std::uint64_t received = 0;
  std::uint64_t sum = 0;
  std::atomic<bool> stuck{false};  ///< a burst did not arrive in full
  std::atomic<int> bursts_done{0};

  void arrived(std::uint64_t value) {
    const std::lock_guard lock(mutex);
    ++received;
    sum += value;
    changed.notify_all();
  }
  // Waits until `count` items arrived; false when they did not within `limit`, which is
  // the failure being tested for (an item stuck in a ring), not a schedule.
  bool wait_for(std::uint64_t count, std::chrono::seconds limit) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, limit, [&] { return received >= count; });
  }
};

// A source whose reader thread sends `bursts` bursts of 1..200 items, each only once the
// previous one has reached the sink (or, when one does not, it records that and stops);
// then it ends the stream.
class burst_source : public io::thread_fed_source<std::uint64_t> {
 public:
  burst_source(burst_state* state, int bursts)
      : thread_fed_source(spate::link_options{.capacity = 256}), state_(state), bursts_(bursts) {}
  burst_source(const burst_source& other) : burst_source(other.state_, other.bursts_) {}
  ~burst_source() { stop_reader(); }

  void on_start() {
    start_reader("burst-reader", [this](io::thread_feed<std::uint64_t>& feed) { read(feed); });
  }

 private:
  void read(io::thread_feed<std::uint64_t>& feed) {
    std::minstd_rand random(42);
    std::uint64_t sent = 0;
    for (int b = 0; b < bursts_ && !feed.stopping(); ++b) {
      const auto size = 1 + random() % 200;
      for (std::uint64_t i = 0; i < size; ++i) {
        if (!feed.push(sent++)) return;
      }
      feed.publish();  // about to block: what was pushed must be seen (thread_feed T1)
      if (!state_->wait_for(sent, 20s)) {
        state_->stuck.store(true);
        break;
      }
      state_->bursts_done.fetch_add(1);
    }
    feed.close();
  }

  burst_state* state_;
  int bursts_;
};

}  // namespace

TEST(thread_feed, every_burst_reaches_the_sink_without_later_input_to_push_it) {
  burst_state state;
  constexpr int bursts = 400;
  flow::graph job(flow::pipeline(
      flow::make_stage<burst_source>(&state, bursts),
      flow::farm(flow::map([](std::uint64_t v) {
                   if (v % 7 == 0) std::this_thread::sleep_for(20us);
                   return v;
                 }),
                 2, flow::custom_policy{[](const std::uint64_t& v, std::size_t replicas) {
                   return static_cast<std::size_t>(v / 3 % replicas);
                 }}),
      flow::sink([&](std::uint64_t& v) { state.arrived(v); }).on_dedicated_thread()));
  job.run(spate::test::shared_runtime());
  EXPECT_FALSE(state.stuck.load()) << "a burst stayed in the graph until the end of the stream";
  EXPECT_EQ(state.bursts_done.load(), bursts);
  EXPECT_EQ(state.sum, state.received * (state.received - 1) / 2);  // 0..n-1, each once
}

namespace {

// A source that notes each item it sends, as a Kafka source notes offsets for checkpoints:
// the noted mark must cover every item sent (an item sent unnoted would be read again
// after a restore from a checkpoint taken just after it).
class noting_source : public io::thread_fed_source<std::uint64_t> {
 public:
  noting_source(std::atomic<std::uint64_t>* noted_until, std::uint64_t count)
      : thread_fed_source(spate::link_options{.capacity = 64}),
        noted_until_(noted_until),
        count_(count) {}
  noting_source(const noting_source& other) : noting_source(other.noted_until_, other.count_) {}
  ~noting_source() { stop_reader(); }

  void on_start() {
    start_reader("noting-reader", [this](io::thread_feed<std::uint64_t>& feed) {
      // One item per publish: the reader keeps pushing while the source reads, which is
      // when a second read of the link could see an item the first did not.
      for (std::uint64_t i = 0; i < count_ && !feed.stopping(); ++i) {
        if (!feed.push(i)) return;
        feed.publish();
      }
      feed.close();
    });
  }
  spate::flow::produce_status produce() {
    return thread_fed_source::produce([this](const std::uint64_t& item) {
      noted_until_->store(item + 1, std::memory_order_relaxed);  // before the send publishes it
    });
  }

 private:
  std::atomic<std::uint64_t>* noted_until_;
  std::uint64_t count_;
};

}  // namespace

TEST(thread_feed, the_item_noted_is_the_item_sent_while_the_reader_pushes) {
  constexpr std::uint64_t count = 200'000;
  std::atomic<std::uint64_t> noted_until{0};
  std::uint64_t received = 0, unnoted = 0;
  flow::graph job(
      flow::pipeline(flow::make_stage<noting_source>(&noted_until, count).named("noting"),
                     // Chained to the source (flow::unchained is not used): it runs inside the
                     // source's send, so it sees the note as it stood when the item was sent.
                     flow::map([&](std::uint64_t& v) {
                       if (noted_until.load(std::memory_order_relaxed) != v + 1) ++unnoted;
                       return v;
                     }),
                     flow::sink([&](std::uint64_t&) { ++received; })));
  job.run(spate::test::shared_runtime());
  EXPECT_EQ(job.nodes().at(1).chain, "noting") << "the check must be chained";
  EXPECT_EQ(received, count);
  EXPECT_EQ(unnoted, 0u) << "items were sent before the source noted them";
}
