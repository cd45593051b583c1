#pragma once
// The sending side of a node: routes items onto the edges to the next stage by that
// stage's policy, buffers what does not fit, and tells consumers about new items in
// batches (one wake-up per link_options::notify_batch items or per activation, not per item).
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "spate/exec/link.hpp"
#include "spate/flow/detail/node_task_base.hpp"
#include "spate/flow/policies.hpp"
#include "spate/platform/export.hpp"
#include "spate/state/codec.hpp"
#include "spate/state/key_groups.hpp"

namespace spate::flow {

namespace detail {
template <class E>
class edge_writers;
}  // namespace detail

template <class Out>
class output_port {
 public:
  virtual ~output_port() = default;

  // The hot path is not virtual: while a run is open (the port's only edge, or the
  // replica a round-robin port sends its current burst to), an item is written straight
  // into that edge's window; otherwise the port's policy routes it. Always inlined: GCC
  // kept it out of line in a hand-written node's consume(), and the call cost more than
  // the send (64 forwarding nodes on one worker: 3.3 M items/s out of line, 5.5 inlined).
  [[gnu::always_inline]] void send(Out&& item) {
    if (run_left_ != 0 && !run_->full()) {
      run_->emplace(std::move(item));
      --run_left_;
      return;
    }
    route(std::move(item));
  }
  // For one-to-one operators: sends up to `n` items, the k-th made by `make(k)`, straight
  // into the open run's window, in loops over neighbouring slots; returns how many were
  // sent. 0 means no run has room: use send(). If make() throws, the items already made
  // stay in the window (they are committed, and destroyed, with the ring).
  template <class Make>
  std::size_t send_many(std::size_t n, Make&& make) {
    if (run_left_ == 0) return 0;
    auto& window = *run_;
    const std::size_t count = std::min({n, run_left_, window.room()});
    std::size_t sent = 0;
    while (sent < count) {
      const std::size_t first = sent;
      sent +=
          window.emplace_contiguous(count - sent, [&](std::size_t k) { return make(first + k); });
    }
    run_left_ -= count;
    return count;
  }
  virtual bool send_if(Out& item, std::size_t max_queue_length) = 0;
  // Items buffered because their edge was full; the node suspends when there are any.
  bool has_pending() const noexcept { return pending_ != 0; }
  // Whether items sent now would wait (a chained node's send_next_if asks its chain's port).
  bool downstream_full() const noexcept { return has_pending(); }

  // Producer-side maintenance, called by the node's task.
  virtual bool flush() = 0;  // true: nothing left in the buffer
  virtual void notify_consumers() noexcept = 0;
  virtual void request_space_notification() noexcept = 0;
  // The edges whose buffered items wait for room; read before going idle, so that the idle
  // check can look at those rings' atomic indices only.
  virtual void blocked_edges(std::vector<link_base*>& out) const = 0;
  virtual void close() noexcept = 0;
  // Link step M1 on every edge, then M2: marker `id` stands after everything sent so far,
  // including items still buffered for a full edge. False, posting nothing, when an edge
  // already holds link_base::marker_capacity markers.
  virtual bool post_marker(std::uint64_t id) noexcept = 0;
  // Unaligned checkpoints (flow/detail/unaligned_barrier.hpp U2): marker `id` on every edge
  // after the items in the ring and before those still buffered for a full edge, which are
  // appended, encoded (state/codec.hpp), to `buffered`: they belong to the snapshot, and a
  // restore sends them first. Returns how many; nullopt, posting nothing, when an edge
  // already holds link_base::marker_capacity markers. Only for stores_buffered_items() ports.
  virtual std::optional<std::size_t> post_marker_before_buffered(std::uint64_t id,
                                                                 std::string& buffered) = 0;
  // Buffered items can be stored: plain routing of a type with a codec.
  virtual bool stores_buffered_items() const noexcept = 0;
  virtual std::uint64_t sent() const noexcept = 0;
  // Diagnostics: each edge's queue length and whether its producer waits (atomics only: it is
  // read from another thread while the node runs).
  virtual std::string describe() const = 0;

 protected:
  virtual void route(Out&& item) = 0;

  std::size_t pending_ = 0;  // kept by the port's edge_writers
  typename link<Out>::write_window* run_ = nullptr;
  std::size_t run_left_ = 0;  // items that may still go to run_ without asking the policy
};

namespace detail {

// An item with its position in the input order (ordered farms). A worker's outputs for
// input `seq` carry `seq`; an empty value marks "input `seq` is complete". Outputs a worker
// sends outside consume() (from on_start or on_stop) belong to no input: they carry
// `unordered_seq`, and the collector passes them on as they come.
inline constexpr std::uint64_t unordered_seq = UINT64_MAX;
template <class T>
struct sequenced {
  std::uint64_t seq;
  std::optional<T> value;
};

// The edges of one producer, with the buffer and notification state of each.
//
// Items go into a write window on the edge's link (link::reserve): a push is a slot
// store and an increment. Every `notify_batch` items (the link's), and whenever the task notifies,
// flushes or closes, the window is committed (one release store) and the consumer is told.
// Only when the ring is full do items go to the edge's pending buffer, and from then on
// everything for that edge does, until flush() has moved it all into the ring: order is
// kept.
template <class E>
class edge_writers {
 public:
  edge_writers(std::vector<link<E>*> edges, std::size_t& pending_count)
      : writers_(edges.size()), pending_count_(pending_count) {
    // Sized once and never grown: growing would need `writer` (a deque of E) to be
    // copyable, and items may be move-only.
    for (std::size_t i = 0; i < edges.size(); ++i) {
      writers_[i].target = edges[i];
      writers_[i].notify_batch = edges[i]->options().notify_batch;
    }
  }
  std::size_t size() const noexcept { return writers_.size(); }
  typename link<E>::write_window& window(std::size_t i) noexcept { return writers_[i].window; }
  std::size_t queue_length(std::size_t i) const noexcept {
    const writer& w = writers_[i];
    return w.target->size_approx() + w.window.written() + w.pending.size();
  }

  // A run of items to edge i is over: publish them now rather than when the window fills
  // (the next run goes elsewhere, and the window might not fill before the activation ends).
  // Its consumer is woken once a run's worth has built up, even when the link's notify batch
  // is larger: it should start on the run while the producer fills the next replica's.
  void end_run(std::size_t i) noexcept {
    writer& w = writers_[i];
    publish(w, std::min<std::uint32_t>(w.notify_batch, round_robin::run_length));
  }

  void push(std::size_t i, E&& item) {
    writer& w = writers_[i];
    if (!w.window.full()) {
      w.window.emplace(std::move(item));
      return;
    }
    push_slow(w, std::move(item));
  }

  bool flush() {
    if (pending_count_ == 0) return true;
    for (auto& w : writers_) {
      if (w.pending.empty()) continue;
      commit(w);
      while (!w.pending.empty() && w.target->try_push(std::move(w.pending.front()))) {
        w.pending.pop_front();
        --pending_count_;
        ++w.unnotified;
      }
      w.window = {};  // try_push moved the tail past it
      // Our request for room on this edge is satisfied: withdraw it (link step R4).
      if (w.pending.empty()) w.target->withdraw_room_request();
    }
    return pending_count_ == 0;
  }

  // Every edge is committed before the one fence of wake_consumers (link step I2): a commit
  // made after it would not be ordered before the consumer checks that follow it, and a
  // consumer going idle at that moment could miss its items.
  void notify_consumers() noexcept {
    for (auto& w : writers_) commit(w);
    wake_consumers(writers_, [](writer& w) -> const link_base* {
      if (w.unnotified == 0) return nullptr;
      w.unnotified = 0;
      return w.target;
    });
  }
  // Link step R1 for every edge whose items wait in the pending buffer.
  void request_space_notification() noexcept {
    for (auto& w : writers_) {
      if (!w.pending.empty()) w.target->request_room();
    }
  }
  void blocked_edges(std::vector<link_base*>& out) const {
    for (const auto& w : writers_) {
      if (!w.pending.empty()) out.push_back(w.target);
    }
  }
  void close() noexcept {
    for (auto& w : writers_) {
      commit(w);
      w.target->close();
    }
  }
  // A marker goes on every edge or on none.
  bool post_marker(std::uint64_t id) noexcept {
    if (!room_for_marker()) return false;
    post_on_every_edge(id, true);
    return true;
  }
  // output_port::post_marker_before_buffered (E has a codec).
  std::optional<std::size_t> post_marker_before_buffered(std::uint64_t id, std::string& buffered) {
    if (!room_for_marker()) return std::nullopt;
    // Encoded first: an encoder that throws leaves no marker on any edge.
    std::string encoded;
    state::byte_writer out(encoded);
    std::size_t count = 0;
    for (const auto& w : writers_) {
      for (const E& item : w.pending) state::encode(item, out);
      count += w.pending.size();
    }
    buffered += encoded;
    post_on_every_edge(id, false);
    return count;
  }
  std::uint64_t sent() const noexcept {
    std::uint64_t in_windows = 0;
    for (const auto& w : writers_) in_windows += w.window.written();
    return sent_ + in_windows;
  }
  std::string describe() const {
    std::string out;
    for (const auto& w : writers_) {
      out += " [" + std::to_string(w.target->size_approx()) + "/" +
             std::to_string(w.target->capacity()) + (w.target->producer_waits() ? " waiting" : "") +
             "]";
    }
    return out;
  }

 private:
  struct writer {
    link<E>* target = nullptr;
    typename link<E>::write_window window;
    std::deque<E> pending;
    std::uint32_t unnotified = 0;
    std::uint32_t notify_batch = 0;  // the link's: items per window and per wake-up
  };

  // Every edge can take one more marker; only this producer adds markers, so room seen here
  // is still there when it posts.
  bool room_for_marker() const noexcept {
    for (const auto& w : writers_) {
      if (w.target->markers_queued() == link_base::marker_capacity) return false;
    }
    return true;
  }
  // M1 on every edge, after the items in the ring and, if `after_buffered`, after those still
  // buffered for it too; then M2. room_for_marker() was true.
  void post_on_every_edge(std::uint64_t id, bool after_buffered) noexcept {
    for (auto& w : writers_) {
      commit(w);
      const std::size_t buffered = after_buffered ? w.pending.size() : 0;
      [[maybe_unused]] const bool posted =
          w.target->post_marker({.id = id, .position = w.target->pushed() + buffered});
      assert(posted);
    }
    stress_point();  // between M1 and the consumers' re-check
    wake_consumers(writers_, [](writer& w) -> const link_base* {
      w.unnotified = 0;
      return w.target;
    });
  }

  void commit(writer& w) noexcept {
    const std::size_t added = w.target->commit(w.window);
    sent_ += added;
    w.unnotified += static_cast<std::uint32_t>(added);
  }

  // Commits, and wakes the consumer once `batch` items (the link's notify batch unless
  // said) have built up since it was last told (the producer keeps running; the rest is
  // told at the end of its activation).
  void publish(writer& w) noexcept { publish(w, w.notify_batch); }
  void publish(writer& w, std::uint32_t batch) noexcept {
    commit(w);
    if (w.unnotified >= batch) {
      w.unnotified = 0;
      w.target->wake_consumer();
    }
  }

  [[gnu::noinline]] void push_slow(writer& w, E&& item) {
    publish(w);
    if (w.pending.empty()) {
      w.window = w.target->reserve(w.notify_batch);
      if (!w.window.full()) {
        w.window.emplace(std::move(item));
        return;
      }
    }
    w.pending.push_back(std::move(item));
    ++pending_count_;
    ++sent_;
  }

  std::vector<writer> writers_;
  std::size_t& pending_count_;  // the port's, so that has_pending() needs no virtual call
  std::uint64_t sent_ = 0;
};

// Picks a replica for an item under a policy.
template <class T, class Policy>
class replica_chooser {
 public:
  explicit replica_chooser(Policy policy, std::size_t seed = 0)
      : policy_(std::move(policy)), rng_(0x9E3779B97F4A7C15ull ^ (seed * 0xBF58476D1CE4E5B9ull)) {}

  template <class Writers>
  std::size_t choose(const T& item, const Writers& writers) {
    const std::size_t n = writers.size();
    if (n == 1) return 0;
    if constexpr (std::is_same_v<Policy, round_robin>) {
      // Runs of round_robin::run_length items per replica, as routing_port sends them
      // (this per-item form serves the ports whose elements are not plain items).
      const std::size_t i = next_;
      if (++burst_ == round_robin::run_length) {
        burst_ = 0;
        next_ = next_ + 1 == n ? 0 : next_ + 1;
      }
      return i;
    } else if constexpr (std::is_same_v<Policy, random_choice>) {
      rng_ ^= rng_ << 13;
      rng_ ^= rng_ >> 7;
      rng_ ^= rng_ << 17;
      return static_cast<std::size_t>(rng_ % n);
    } else if constexpr (std::is_same_v<Policy, least_loaded>) {
      std::size_t best = 0, best_length = writers.queue_length(0);
      for (std::size_t i = 1; i < n && best_length != 0; ++i) {
        const auto length = writers.queue_length(i);
        if (length < best_length) {
          best = i;
          best_length = length;
        }
      }
      return best;
    } else if constexpr (requires { policy_.key(item); }) {
      using key_type = std::decay_t<decltype(policy_.key(item))>;
      const std::size_t h = std::hash<key_type>{}(policy_.key(item));
      if (key_groups_ == 0) return h % n;
      const std::uint32_t group = state::key_group_of(state::mixed_hash(h), key_groups_);
      return state::replica_of_group(group, n, key_groups_);
    } else {
      return static_cast<std::size_t>(policy_.choose(item, n)) % n;
    }
  }
  // by_key with checkpoints on: a key goes to the replica that owns its key group
  // (state/key_groups.hpp), so a restore may change the replica count. 0: hash % replicas.
  void route_by_key_group(std::uint32_t key_groups) noexcept { key_groups_ = key_groups; }
  // Round-robin and random may try the other replicas when the chosen one is too long.
  static constexpr bool may_try_others =
      std::is_same_v<Policy, round_robin> || std::is_same_v<Policy, random_choice>;

 private:
  Policy policy_;
  std::size_t next_ = 0;
  std::size_t burst_ = 0;
  std::uint64_t rng_;
  std::uint32_t key_groups_ = 0;
};

// The maintenance half shared by every port: buffering, notification, closing.
template <class T, class E>
class port_base : public output_port<T> {
 public:
  bool flush() override { return writers_.flush(); }
  void notify_consumers() noexcept override { writers_.notify_consumers(); }
  void request_space_notification() noexcept override { writers_.request_space_notification(); }
  void blocked_edges(std::vector<link_base*>& out) const override { writers_.blocked_edges(out); }
  void close() noexcept override { writers_.close(); }
  bool post_marker(std::uint64_t id) noexcept override { return writers_.post_marker(id); }
  std::optional<std::size_t> post_marker_before_buffered(std::uint64_t id,
                                                         std::string& buffered) override {
    if constexpr (stores_buffered) {
      return writers_.post_marker_before_buffered(id, buffered);
    } else {
      throw std::logic_error("spate::flow: this port cannot store its buffered items");
    }
  }
  bool stores_buffered_items() const noexcept override { return stores_buffered; }
  std::uint64_t sent() const noexcept override { return writers_.sent(); }
  std::string describe() const override { return writers_.describe(); }

 protected:
  explicit port_base(std::vector<link<E>*> edges) : writers_(std::move(edges), this->pending_) {}
  // Plain routing (the buffered elements are the items), of a type with a codec.
  static constexpr bool stores_buffered = std::is_same_v<T, E> && state::encodable<T>;

  // send_if's search: the chosen replica, then (round-robin, random) the others in turn.
  template <class Policy, class Push>
  bool push_if_short(std::size_t first, std::size_t max_queue_length, Push&& push) {
    const std::size_t attempts = replica_chooser<T, Policy>::may_try_others ? writers_.size() : 1;
    for (std::size_t k = 0; k < attempts; ++k) {
      const std::size_t i = (first + k) % writers_.size();
      if (writers_.queue_length(i) < max_queue_length) {
        push(i);
        return true;
      }
    }
    return false;
  }

  edge_writers<E> writers_;
};

// Plain routing: one item to one replica.
//
// Round-robin sends runs of round_robin::run_length items to each replica in turn: the same
// share for every replica, but each edge receives batches instead of a trickle, so
// consumers wake once per batch, and the items of a run take output_port::send's inline
// path (this is what lets fused farms, with n x m edges, pay off).
template <class T, class Policy>
class routing_port final : public port_base<T, T> {
 public:
  // replica_chooser::route_by_key_group.
  void route_by_key_group(std::uint32_t key_groups) noexcept {
    chooser_.route_by_key_group(key_groups);
  }
  routing_port(std::vector<link<T>*> edges, Policy policy, std::size_t seed)
      : port_base<T, T>(std::move(edges)), chooser_(std::move(policy), seed) {
    if (this->writers_.size() == 1) {
      // Every policy picks the only edge (replica_chooser returns 0 without asking).
      open_run(0, std::numeric_limits<std::size_t>::max());
    } else if constexpr (uses_runs) {
      // Producers of a fused farm start their rounds at different replicas; starting
      // together, they would all fill the same replica's queues at the same time.
      open_run(seed % this->writers_.size(), round_robin::run_length);
    }
  }

  void route(T&& item) override {
    if constexpr (uses_runs) {
      if (this->writers_.size() > 1) {
        // The window of the current run was full (the item may have to wait in the
        // edge's buffer), or the run is over.
        if (this->run_left_ == 0) switch_run(next_replica(current_));
        --this->run_left_;
        this->writers_.push(current_, std::move(item));
        return;
      }
    }
    this->writers_.push(chooser_.choose(item, this->writers_), std::move(item));
  }
  bool send_if(T& item, std::size_t max_queue_length) override {
    std::size_t first = 0;
    if constexpr (uses_runs) {
      first = this->run_left_ == 0 ? next_replica(current_) : current_;
    } else {
      first = chooser_.choose(item, this->writers_);
    }
    return this->template push_if_short<Policy>(first, max_queue_length, [&](std::size_t i) {
      if constexpr (uses_runs) {
        if (this->writers_.size() > 1) {
          if (i != current_ || this->run_left_ == 0) switch_run(i);
          --this->run_left_;
        }
      }
      this->writers_.push(i, std::move(item));
    });
  }

 private:
  static constexpr bool uses_runs = std::is_same_v<Policy, round_robin>;

  std::size_t next_replica(std::size_t i) const noexcept {
    return i + 1 == this->writers_.size() ? 0 : i + 1;
  }
  void open_run(std::size_t replica, std::size_t length) noexcept {
    current_ = replica;
    this->run_ = &this->writers_.window(replica);
    this->run_left_ = length;
  }
  // The current run is over (or the item goes elsewhere): publish it, start one at `replica`.
  void switch_run(std::size_t replica) noexcept {
    this->writers_.end_run(current_);
    open_run(replica, round_robin::run_length);
  }

  replica_chooser<T, Policy> chooser_;
  std::size_t current_ = 0;
};

// Broadcast: every replica gets the same item through one shared, immutable copy.
template <class T>
class broadcast_port final : public port_base<T, std::shared_ptr<const T>> {
 public:
  using element = std::shared_ptr<const T>;
  explicit broadcast_port(std::vector<link<element>*> edges)
      : port_base<T, element>(std::move(edges)) {}

  void route(T&& item) override {
    element shared = std::make_shared<const T>(std::move(item));  // one allocation
    for (std::size_t i = 0; i < this->writers_.size(); ++i) this->writers_.push(i, element(shared));
  }
  bool send_if(T& item, std::size_t max_queue_length) override {
    for (std::size_t i = 0; i < this->writers_.size(); ++i) {
      if (this->writers_.queue_length(i) >= max_queue_length) return false;
    }
    route(std::move(item));
    return true;
  }
};

// The router of an ordered farm: numbers the items, then routes by the policy.
template <class T, class Policy>
class sequencing_port final : public port_base<T, sequenced<T>> {
 public:
  using element = sequenced<T>;
  sequencing_port(std::vector<link<element>*> edges, Policy policy, std::size_t seed)
      : port_base<T, element>(std::move(edges)), chooser_(std::move(policy), seed) {}
  // replica_chooser::route_by_key_group.
  void route_by_key_group(std::uint32_t key_groups) noexcept {
    chooser_.route_by_key_group(key_groups);
  }

  void route(T&& item) override {
    const std::size_t i = chooser_.choose(item, this->writers_);
    this->writers_.push(i, element{next_seq_++, std::move(item)});
  }
  bool send_if(T& item, std::size_t max_queue_length) override {
    return this->template push_if_short<Policy>(
        chooser_.choose(item, this->writers_), max_queue_length, [&](std::size_t i) {
          this->writers_.push(i, element{next_seq_++, std::move(item)});
        });
  }

 private:
  replica_chooser<T, Policy> chooser_;
  std::uint64_t next_seq_ = 0;
};

// A worker of an ordered farm: tags outputs with the sequence number of the input being
// consumed and marks each input complete (the collector restores the order).
template <class T>
class tagging_port final : public port_base<T, sequenced<T>> {
 public:
  using element = sequenced<T>;
  explicit tagging_port(link<element>* to_collector)
      : port_base<T, element>(std::vector<link<element>*>{to_collector}) {}

  void begin_item(std::uint64_t seq) noexcept { current_ = seq; }
  void end_item() {
    this->writers_.push(0, element{current_, std::nullopt});
    current_ = unordered_seq;  // until the next item: on_stop's outputs belong to none
  }

  void route(T&& item) override { this->writers_.push(0, element{current_, std::move(item)}); }
  bool send_if(T& item, std::size_t max_queue_length) override {
    if (this->writers_.queue_length(0) >= max_queue_length) return false;
    route(std::move(item));
    return true;
  }

 private:
  std::uint64_t current_ = unordered_seq;  // on_start's outputs belong to no input
};

}  // namespace detail
}  // namespace spate::flow
