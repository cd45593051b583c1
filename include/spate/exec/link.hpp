#pragma once
// The link: the one bounded hand-off of a stream from one producer to one consumer. Flow
// edges between node replicas, the input ring of a graph behind an actor's mailbox, and the
// ring between a socket or Kafka reader thread and its source node are all links. A link is
// a single-producer ring (channel/spsc_ring.hpp, FastFlow's SWSR buffer in the
// high-throughput-actors paper, Sect. 3) plus end-of-stream and the two wake-ups:
// "items arrived" to the consumer and "room freed" to a producer that waits for it.
//
// Each end is a `link_end`: a unit (a task: a node replica, an actor; waking it is the wake
// handshake, unit.hpp) or a waiter (a thread: a reader; waking it is the waiter's handshake,
// waiter.hpp). The link does not care which: both are "publish, then notify", and both
// idle checks re-read the link's atomics.
//
// # Protocol
//
// Items (producer -> consumer):
//   I1. The producer publishes items: try_push(), or reserve() then commit() (a release
//       store of the ring's tail).
//   I2. It wakes the consumer end (wake_consumer(): unit P1, P2 or waiter N1, N2). A running
//       producer may batch: it wakes after every `notify_batch` items and when it stops.
//       A producer of several links commits all of them, then wakes their consumers after
//       one fence (wake_consumers()).
//   The consumer's idle re-check (unit C3, waiter W3) reads size_approx() and is_closed().
//
// End of stream:
//   E1. The producer commits its last items, then close(): closed = true (release), then I2.
//   The consumer reads `closed` before the ring (closed_and_drained()), so it never takes a
//   closed link for drained while items pushed before close() are still unread.
//
// Room (consumer -> producer):
//   R1. A producer that found the ring full calls request_room(): waiting = true (seq_cst).
//   R2. It then goes idle or sleeps with has_room_to_resume() or has_room() in its re-check
//       (unit C1..C4, waiter W1..W3), each behind a seq_cst fence that follows R1. (A graph
//       actor makes its request while it handles messages and again inside its re-check;
//       the first one precedes the fence.) has_room() is the weaker test: whenever the
//       consumer's level test holds, it holds too.
//   R3. The consumer, after its pops, calls release_producer() (or release_producers() for
//       several inputs, one fence): handshake fence; if waiting and the ring has drained to
//       the resume level, notify the producer end (after the fence). A consumer that pops
//       one item at a time may also call pop_and_release(), which runs R3 early, at the pop
//       that it sees bring the ring down to the resume level; it must still call
//       release_producer() once it finds the link empty, before it idles.
//   R4. Only the producer clears `waiting` (withdraw_room_request()), once it no longer
//       waits for room.
//
// # Why nothing is stranded
//
// Items, markers and end-of-stream: I2 is the wake handshake (or the waiter's), whose argument is
// in wake_handshake.hpp (waiter.hpp): the consumer either sees the published items in its re-check
// or is notified after them.
//
// Room: R1 then the producer's fence (C2/W2) then its load of the ring's head; the
// consumer's pop (a store of the head) then R3's fence then its load of `waiting`. Both are
// seq_cst fences, so one precedes the other: if the consumer's comes second it reads
// `waiting` and notifies; if the producer's does, the re-check sees the pops. The level test
// in R3 implies the producer's re-check (has_room_to_resume, or the weaker has_room), so when
// the consumer declines to notify, the producer's re-check holds. pop_and_release() alone is
// not enough: its size test may read the producer's tail late (a push still on its way), see
// the ring one lower than it is and miss the crossing; the ring then drains to empty with
// the producer asleep (tests/exec link thread_to_task hung about once in eight runs). The
// full R3 at "empty" closes that: every drain ends there, and the Dekker pair above holds
// for it.
//
// Markers (producer -> consumer): a marker is a point in the stream that carries no item,
// such as a checkpoint barrier (docs/state.md). It travels beside the ring, so links keep
// their item type and a stream without markers pays nothing for them.
//   M1. The producer posts {id, position}: the marker stands after the first `position`
//       items the producer ever sends on this link, those committed and those it still
//       buffers and will push first (so it may post while items wait for room).
//       post_marker() writes the slot, then stores the count of posted markers (release).
//       At most marker_capacity markers are queued; when all are, post_marker() returns
//       false and posts nothing.
//   M2. It wakes the consumer end (I2; one fence may serve several links, as for items).
//       The consumer's idle re-check compares markers_posted() with the count it read
//       before it last examined its markers. (A re-check reads atomics only: it may run while the
//       unit's next activation already pops elsewhere. A marker seen before and not yet due waits
//       for items still to come, whose I2 wakes the consumer.)
//   M3. The consumer reads front_marker() (acquire load of the count). readable_before_marker()
//       ends a batch at the front marker, so at_marker() tells when exactly `position` items
//       were popped. It loads the ring's tail before the marker count: the producer posts a
//       marker before it pushes the items after it, so every marker standing before an item
//       the consumer sees is then visible to it. Having acted on it, the consumer pop_marker()s
//       (release store of its count, read by the producer's M1 to reuse the slot). Only the
//       consumer removes markers.
//   Markers are the consumer's business: closed_and_drained() looks at items only. A
//   consumer that takes part in checkpoints ends on ended() instead: closed, drained and no
//   marker due. A marker posted before close() at the last item is due, so it is met first;
//   one standing beyond the last item (it counted buffered items that a cancelled producer
//   then dropped) is never due, and the stream ends without it: ended_before_marker(). Such
//   a stream was cut short, so it must not count as aligned with that barrier (its producer
//   snapshotted state that counts the dropped items; flow/detail/barrier_alignment.hpp A3).
//
// Abandon (consumer -> producer): a consumer that will never read again (its graph was
// cancelled) calls abandon(): abandoned = true, then R3 unconditionally. A producer's re-check
// includes is_abandoned() (push_waiting_for_room does), so it stops waiting for room that
// will never come; the same Dekker pair as R1..R3 makes sure one side sees the other.
//
// Why only the producer clears `waiting`: a consumer that cleared it could swallow a request
// the producer made after refilling the ring — the notify lands while the producer still
// runs, its re-check then sees a full ring, and nobody wakes it again.
//
// Why a producer is woken at the resume level (half the ring by default), not at the first
// free slot: it then refills half a ring in one activation instead of trickling one consumer
// batch at a time through a saturated pipeline.
//
// # Threading contract
//
// Producer methods (try_push, reserve, commit, pushed, post_marker, close, request_room,
// withdraw_room_request, push_waiting_for_room): the producer only. Consumer methods (front,
// readable, readable_before_marker, pop, pop_n, pop_and_release, popped, front_marker,
// at_marker, pop_marker, release_producer, closed_and_drained, ended, abandon): the consumer
// only.
// size_approx(), markers_posted(), markers_queued(), is_closed(), has_room(),
// has_room_to_resume(),
// producer_waits(): any thread.
// set_consumer() may race with the producer's wake-ups (a source node learns its task when it
// starts); set_producer() is called before the consumer may release the producer, or by the
// consumer's own thread, or once the consumer no longer runs.
//
// tests/exec (link) runs the producer end as a waiter and as a unit, the consumer end as a
// waiter and as a unit; tests/stress injects delays between each publish and the other side's
// re-check.
#include <array>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "spate/channel/spsc_ring.hpp"
#include "spate/exec/detail/handshake_fence.hpp"
#include "spate/exec/unit.hpp"
#include "spate/exec/waiter.hpp"
#include "spate/platform/cache_line.hpp"
#include "spate/platform/export.hpp"
#include "spate/platform/stress_point.hpp"

namespace spate {

/// How a link buffers and wakes (embedded by flow::graph_options, the TCP and Kafka sources).
struct link_options {
  /// Items the link holds (rounded up to a power of two).
  std::size_t capacity = 1024;
  /// A producer waiting for room is woken once the link has drained to this many items;
  /// 0 means half the capacity. Must be below the capacity.
  std::size_t resume_level = 0;
  /// A running producer wakes its consumer every this many items and whenever it stops or
  /// blocks; a graph stage also writes into the ring through windows of this size. 0 is
  /// taken as 1.
  std::uint32_t notify_batch = 128;
};

/// A point in a link's stream that carries no item (protocol M1..M3 at the top of this file).
struct link_marker {
  /// What the producer numbered it (a checkpoint's id).
  std::uint64_t id = 0;
  /// It stands after this many items sent on the link since it was made.
  std::size_t position = 0;
  /// Markers are equal when their id and position are.
  friend bool operator==(const link_marker&, const link_marker&) = default;
};

/// One end of a link: the unit or the waiter to wake, or nobody.
class link_end {
 public:
  link_end() = default;
  /// A task: waking it schedules it if it was idle.
  link_end(unit* u) noexcept : unit_(u) {}  // NOLINT(google-explicit-constructor)
  /// A thread: waking it ends its wait.
  link_end(waiter* w) noexcept : waiter_(w) {}  // NOLINT(google-explicit-constructor)
  /// A copy (ends are values; the atomics only let a consumer end be set while read).
  link_end(const link_end& other) noexcept
      : unit_(other.unit_.load(std::memory_order_acquire)),
        waiter_(other.waiter_.load(std::memory_order_acquire)) {}
  /// Points this end where `other` points.
  link_end& operator=(const link_end& other) noexcept {
    unit_.store(other.unit_.load(std::memory_order_acquire), std::memory_order_release);
    waiter_.store(other.waiter_.load(std::memory_order_acquire), std::memory_order_release);
    return *this;
  }

  /// The unit at this end, or null.
  unit* as_unit() const noexcept { return unit_.load(std::memory_order_acquire); }
  /// The waiter at this end, or null.
  waiter* as_waiter() const noexcept { return waiter_.load(std::memory_order_acquire); }

  /// Wakes this end after the caller published what it waits for. The fence comes before
  /// the end is read: a consumer end set while the producer publishes (a source starting)
  /// then either is seen here or sees the items in its own idle re-check.
  void notify() const noexcept {
    stress_point();
    handshake_fence();
    notify_after_fence();
  }
  /// The same, for a caller that passed handshake_fence() itself.
  void notify_after_fence() const noexcept {
    if (unit* u = as_unit()) {
      u->notify_after_fence();
    } else if (waiter* w = as_waiter()) {
      w->notify_after_fence();
    }
  }

 private:
  std::atomic<unit*> unit_{nullptr};
  std::atomic<waiter*> waiter_{nullptr};
};

/// What every link has whatever it carries: its state and wake-ups (see the top of this file).
class SPATE_API link_base {
 public:
  link_base(const link_base&) = delete;
  link_base& operator=(const link_base&) = delete;
  virtual ~link_base() = default;

  // ---- ends ----

  /// Sets who consumes (see the threading contract).
  void set_consumer(link_end end) noexcept { consumer_ = end; }
  /// Sets who produces (see the threading contract). The link does not keep it alive: the
  /// owner of the producer makes sure it outlives the consumer's wake-ups, or clears it.
  void set_producer(link_end end) noexcept { producer_ = end; }
  /// The consumer end.
  const link_end& consumer() const noexcept { return consumer_; }
  /// The producer end.
  const link_end& producer() const noexcept { return producer_; }

  // ---- any thread ----

  /// Items queued (exact on the producer's or consumer's thread while the other is idle).
  virtual std::size_t size_approx() const noexcept = 0;
  /// Items the link holds.
  virtual std::size_t capacity() const noexcept = 0;
  /// The link options it was made with (capacity as asked, not rounded).
  const link_options& options() const noexcept { return options_; }
  /// End of stream was published (items pushed before it may still be queued).
  bool is_closed() const noexcept { return closed_.load(std::memory_order_acquire); }
  /// The consumer will never read again (abandon()): waiting for room is pointless.
  bool is_abandoned() const noexcept { return abandoned_.load(std::memory_order_acquire); }
  /// A producer asked to be woken when room is freed (R1) and has not withdrawn.
  bool producer_waits() const noexcept { return waiting_.load(std::memory_order_relaxed); }
  /// At least one free slot.
  bool has_room() const noexcept { return size_approx() < capacity(); }
  /// The items a waiting producer is woken at (R3).
  std::size_t resume_level() const noexcept { return resume_level_; }
  /// Drained to the resume level: what a waiting producer's re-check asks (R2).
  bool has_room_to_resume() const noexcept { return size_approx() <= resume_level_; }
  /// Markers posted since the link was made (M2's re-check).
  std::size_t markers_posted() const noexcept {
    return markers_posted_.load(std::memory_order_acquire);
  }
  /// Markers posted and not yet popped.
  std::size_t markers_queued() const noexcept {
    const std::size_t taken = markers_taken_.load(std::memory_order_acquire);
    return markers_posted_.load(std::memory_order_acquire) - taken;
  }
  /// Markers a link holds at once (M1).
  static constexpr std::size_t marker_capacity = 4;

  // ---- producer ----

  /// I2: wakes the consumer after items or end-of-stream were published.
  void wake_consumer() const noexcept { consumer_.notify(); }
  /// E1: end of stream, after the last items were committed; wakes the consumer.
  void close() noexcept {
    closed_.store(true, std::memory_order_release);
    wake_consumer();
  }
  /// R1: the ring was full; the producer will re-check has_room_to_resume() after a fence.
  void request_room() noexcept { waiting_.store(true, std::memory_order_seq_cst); }
  /// M1: posts a marker after the first `position` items sent on this link (at least the
  /// items committed so far, and no fewer than the previous marker's); false, posting
  /// nothing, when marker_capacity markers are queued. Wake the consumer after (M2).
  bool post_marker(const link_marker& marker) noexcept {
    const std::size_t posted = markers_posted_.load(std::memory_order_relaxed);
    if (posted - markers_taken_.load(std::memory_order_acquire) == marker_capacity) return false;
    assert(posted == 0 ||
           marker.position >= marker_slots_[(posted - 1) % marker_capacity].position);
    marker_slots_[posted % marker_capacity] = marker;
    markers_posted_.store(posted + 1, std::memory_order_release);
    return true;
  }
  /// R4: the producer no longer waits for room (cheap when it did not).
  void withdraw_room_request() noexcept {
    if (waiting_.load(std::memory_order_relaxed)) waiting_.store(false, std::memory_order_relaxed);
  }

  // ---- consumer ----

  /// R3 for one input: wakes a waiting producer once the link drained to the resume level
  /// (or at once when `unconditionally`: a consumer that ends early).
  void release_producer(bool unconditionally = false) noexcept {
    handshake_fence();
    release_producer_after_fence(unconditionally);
  }
  /// The consumer stops reading for good (a cancelled graph's source): a producer waiting
  /// for room is woken and sees is_abandoned(). Items pushed later are dropped with the link.
  void abandon() noexcept {
    abandoned_.store(true, std::memory_order_release);
    release_producer(true);
  }
  /// M3: the oldest marker not yet popped, or null; valid until pop_marker().
  const link_marker* front_marker() const noexcept {
    const std::size_t taken = markers_taken_.load(std::memory_order_relaxed);
    if (markers_posted_.load(std::memory_order_acquire) == taken) return nullptr;
    return &marker_slots_[taken % marker_capacity];
  }
  /// M3: removes the front marker (there is one).
  void pop_marker() noexcept {
    const std::size_t taken = markers_taken_.load(std::memory_order_relaxed);
    assert(markers_posted_.load(std::memory_order_acquire) != taken);
    markers_taken_.store(taken + 1, std::memory_order_release);
  }
  /// R3's test and wake-up, for a caller that passed handshake_fence() itself.
  void release_producer_after_fence(bool unconditionally = false) noexcept {
    if (waiting_.load(std::memory_order_relaxed) && (unconditionally || has_room_to_resume())) {
      producer_.notify_after_fence();
    }
  }

 protected:
  /// For the derived link: its options (set_capacity() completes them).
  explicit link_base(const link_options& options) : options_(options) {
    if (options_.notify_batch == 0) options_.notify_batch = 1;
  }
  /// The derived link's constructor, once the ring's (rounded) capacity is known.
  void set_capacity(std::size_t rounded_capacity) noexcept {
    resume_level_ = options_.resume_level != 0 && options_.resume_level < rounded_capacity
                        ? options_.resume_level
                        : rounded_capacity / 2;
  }

 private:
  link_options options_;
  std::size_t resume_level_ = 0;
  link_end producer_;
  link_end consumer_;
  alignas(cache_line_size) std::atomic<bool> closed_{false};
  std::atomic<std::size_t> markers_posted_{0};  // producer-written, rarely: shares closed_'s line
  alignas(cache_line_size) std::atomic<bool> waiting_{false};
  std::atomic<bool> abandoned_{false};  // written once, read when waiting: shares waiting_'s line
  alignas(cache_line_size) std::array<link_marker, marker_capacity> marker_slots_{};  // M1 writes
  alignas(cache_line_size) std::atomic<std::size_t> markers_taken_{0};  // consumer-written (M3)
};

/// A bounded link carrying `T` (see the top of this file).
template <class T>
class link final : public link_base {
 public:
  /// The producer's view of free slots (spsc_ring::write_window).
  using write_window = typename spsc_ring<T>::write_window;
  /// The consumer's view of queued items (spsc_ring::read_batch).
  using read_batch = typename spsc_ring<T>::read_batch;

  /// A link sized by `options`, between `producer` and `consumer` (either may be set later).
  explicit link(const link_options& options = {}, link_end producer = {}, link_end consumer = {})
      : link_base(options), ring_(options.capacity) {
    set_capacity(ring_.capacity());
    set_producer(producer);
    set_consumer(consumer);
  }

  std::size_t size_approx() const noexcept override { return ring_.size_approx(); }
  std::size_t capacity() const noexcept override { return ring_.capacity(); }

  // ---- producer (I1) ----

  /// One item; false (item untouched) when the ring is full. Wake the consumer after.
  template <class U = T>
  bool try_push(U&& item) noexcept(std::is_nothrow_constructible_v<T, U&&>) {
    return ring_.try_push(std::forward<U>(item));
  }
  /// Up to `max` free slots to write into; commit() publishes them.
  write_window reserve(std::size_t max) noexcept { return ring_.reserve(max); }
  /// Publishes what was written into `window`; returns how many items were new.
  std::size_t commit(write_window& window) noexcept { return ring_.commit(window); }
  /// Items committed since the link was made (a marker's position counts from here).
  std::size_t pushed() const noexcept { return ring_.pushed(); }

  /// A producer thread whose end is a waiter: pushes `item`, sleeping while the ring is full
  /// (R1, R2, R4). The consumer is woken every `notify_batch` items, before the thread
  /// sleeps for room, and by publish(), which the thread calls before it blocks elsewhere
  /// (on a socket, a broker): items are never left unannounced while it waits. Returns false,
  /// dropping the item, once `stopping()` holds (whoever makes it true must notify the
  /// waiter) or the consumer abandoned the link.
  template <class Stopping>
  bool push_waiting_for_room(T item, Stopping&& stopping) {
    waiter* w = producer().as_waiter();
    assert(w != nullptr && "link::push_waiting_for_room: the producer end is not a waiter");
    while (!ring_.try_push(std::move(item))) {
      if (stopping() || is_abandoned()) return false;
      publish();  // the consumer must know of the full ring it is to drain
      request_room();
      stress_point();  // between R1 and the waiter's re-check
      w->wait_until([&] { return has_room() || is_abandoned() || stopping(); });
      withdraw_room_request();
    }
    if (++unannounced_ >= options().notify_batch) publish();
    return true;
  }
  /// A producer thread: wakes the consumer for the items pushed since it was last woken (I2).
  void publish() noexcept {
    if (unannounced_ == 0) return;
    unannounced_ = 0;
    wake_consumer();
  }

  // ---- consumer ----

  /// The oldest item, or null when none is queued; valid until the next pop.
  T* front() noexcept { return ring_.front(); }
  /// Up to `max` queued items, oldest first; pop_n() releases them.
  read_batch readable(std::size_t max) noexcept { return ring_.readable(max); }
  /// Up to `max` queued items before the front marker, oldest first (M3): a consumer that
  /// takes part in checkpoints reads with this, so it never reads past a barrier.
  read_batch readable_before_marker(std::size_t max) noexcept {
    // The items first, then the markers (M3): a marker posted before the last item seen is
    // then seen too. The other order could miss a marker posted between the two loads and
    // read past it (tests/stress caught exactly that).
    read_batch batch = ring_.readable(max);
    if (const link_marker* m = front_marker()) {
      assert(m->position >= ring_.popped() && "link: a consumer read past a marker");
      batch.keep_first(m->position - ring_.popped());
    }
    return batch;
  }
  /// Unaligned checkpoints (flow/detail/unaligned_barrier.hpp): every item before the front
  /// marker, oldest first, left in the ring (the consumer reads them on as usual). There must
  /// be a front marker. The marker count is loaded first: the producer committed the items
  /// before it posted the marker (M1), so they are all visible.
  read_batch readable_up_to_front_marker() noexcept {
    const link_marker* m = front_marker();
    assert(m != nullptr && m->position >= ring_.popped());
    const std::size_t due = m->position - ring_.popped();
    read_batch batch = ring_.readable_known(due);
    batch.keep_first(due);
    return batch;
  }
  /// Items popped since the link was made.
  std::size_t popped() const noexcept { return ring_.popped(); }
  /// The front marker is due: every item before it was popped (M3).
  bool at_marker() const noexcept {
    const link_marker* m = front_marker();
    return m != nullptr && m->position == ring_.popped();
  }
  /// Removes the oldest item (front() returned it).
  void pop() noexcept { ring_.pop(); }
  /// Removes the first `n` items of the last batch read.
  void pop_n(std::size_t n) noexcept { ring_.pop_n(n); }
  /// pop(), and R3 early at the pop seen to reach the resume level (see R3: the consumer
  /// still calls release_producer() once the link is empty).
  void pop_and_release() noexcept {
    ring_.pop();
    if (ring_.size_approx() == resume_level()) release_producer();
  }
  /// End of stream and nothing left (`closed` is read first: E1).
  bool closed_and_drained() noexcept { return is_closed() && ring_.front() == nullptr; }
  /// End of stream for a consumer of markers: closed, drained, and no marker due (M3; the
  /// markers are read after `closed`, so one posted before close() is seen).
  bool ended() noexcept { return closed_and_drained() && !at_marker(); }
  /// ended(), with a marker queued that no item will ever reach (M3: its producer was
  /// cancelled with items still buffered, which the marker counted).
  bool ended_before_marker() noexcept { return ended() && front_marker() != nullptr; }

 private:
  spsc_ring<T> ring_;
  std::uint32_t unannounced_ = 0;  // producer thread only: pushed since the last wake-up
};

/// I2 for a producer of several links: `link_of(x)` returns the link whose consumer to wake
/// (null: none) for each x in `range`, called once per element, after every link was
/// committed; one fence serves them all.
template <class Range, class LinkOf>
void wake_consumers(Range& range, LinkOf&& link_of) noexcept {
  bool fenced = false;
  for (auto& x : range) {
    if (const link_base* l = link_of(x)) {
      if (!fenced) {
        handshake_fence();
        fenced = true;
      }
      l->consumer().notify_after_fence();
    }
  }
}

/// R3 for a consumer of several links (pointers to link_base or a subclass), one fence.
template <class Links>
void release_producers(const Links& inputs, bool unconditionally = false) noexcept {
  if (inputs.empty()) return;
  handshake_fence();
  for (auto* l : inputs) l->release_producer_after_fence(unconditionally);
}

}  // namespace spate
