#pragma once
// Operator chaining: two stages joined by a forward edge (the first's every output goes to
// the second, in the same task) become one node, `chain_node<Up, Down>`, so that a run of
// stages runs as one task with no ring, no wake-up and no copy between them. Flink chains
// every forward edge of equal parallelism by default (its OperatorChain); WindFlow's
// `chain()` does the same for its operators.
//
// How an item crosses the chain: Up's send_next() goes to its output port, which here is a
// `forward_port` whose route() calls Down's consume() at once, on the same thread, with the
// item still on Up's stack. Down's port is the chain's real output port, so Down's sends
// are routed, buffered and flow-controlled exactly as they would be for an unchained Down:
// when the next ring is full, the item waits in that port's buffer and the chain's task
// suspends after the current item, as any node's does (flow/node.hpp, send_next).
//
// Which stages chain (builder.hpp, fold_chains): two adjacent node stages of a pipeline,
// when neither carries what a task must hold per node — keyed state, a snapshot, a two-phase
// commit, a refusal of checkpoints, or wake-ups from outside that are not a source's — and
// the pair would not be a source and a sink at once (a task has an input or an output).
// A positioned source (checkpoint_position / seek) may head a chain: the chain's position
// is its source's, and every item the source sent before a barrier has been handled by the
// whole chain when the barrier is injected, so the chain's other members hold nothing a
// checkpoint would miss. flow::unchained(stage) keeps a stage out of any chain.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/flow/checkpoints.hpp"
#include "spate/flow/detail/graph_state.hpp"
#include "spate/flow/node.hpp"
#include "spate/state/keyed.hpp"

namespace spate::flow::detail {

// A chained member threw: its own name, so that the graph's error names the operator that
// failed and not only its task. node_task's guarded() unwraps it; elsewhere it is an
// ordinary std::exception whose what() names the member.
class chained_member_failure : public std::exception {
 public:
  [[gnu::cold, gnu::noinline]] chained_member_failure(std::string member,
                                                      std::exception_ptr original)
      : member_(std::move(member)), original_(std::move(original)) {
    message_ = "node '" + member_ + "': ";
    try {
      std::rethrow_exception(original_);
    } catch (const std::exception& e) {
      message_ += e.what();
    } catch (...) {
      message_ += "an exception not derived from std::exception";
    }
  }
  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& member() const noexcept { return member_; }
  const std::exception_ptr& original() const noexcept { return original_; }

 private:
  std::string member_, message_;
  std::exception_ptr original_;
};

// Inside a catch block: rethrows what is being handled as the failure of the member named
// `name` (a failure already named, from a member further down, as it is). Out of line and
// cold: every chained call has a landing pad that only calls this.
[[noreturn, gnu::cold, gnu::noinline]] inline void rethrow_as_member(const std::string& name) {
  try {
    throw;
  } catch (const chained_member_failure&) {
    throw;
  } catch (...) {
    throw chained_member_failure(name, std::current_exception());
  }
}

// Runs `f`, a call into the member named `name`; what it throws leaves as that member's
// failure. Costs nothing unless something is thrown.
template <class F>
decltype(auto) as_member(const std::string& name, F&& f) {
  try {
    return f();
  } catch (...) {
    rethrow_as_member(name);
  }
}

// The port between two chained nodes: every item goes straight into Down's consume().
// Single-threaded by construction (only the chain's task sends), so it has no buffer,
// no edge and nothing to notify; the chain's task asks only its real port those things.
//
// Down's failure does not unwind through Up's code (which may catch it, or be noexcept):
// route() keeps the first one, drops the items after it, and the chain rethrows it once
// Up's call has returned (chain_node::rethrow_down_failure).
template <class Mid, class Down>
class forward_port final : public output_port<Mid> {
 public:
  forward_port(Down* down, const std::string* down_name) noexcept
      : down_(down), down_name_(down_name) {}

  // The port the chain's items finally leave on (its real port, or for a chain inside a
  // chain the outer chain's forward port): send_if refuses while that one holds items back.
  template <class Port>
  void watch(const Port* port) noexcept {
    watched_ = port;
    watched_full_ = [](const void* p) noexcept {
      return static_cast<const Port*>(p)->downstream_full();
    };
  }
  bool downstream_full() const noexcept {
    return watched_full_ != nullptr && watched_full_(watched_);
  }

  // send_next_if (flow control at sources): the next stage takes the item unless the
  // chain's output is already holding items back for a full link; `max_queue_length` has
  // no queue to measure here.
  bool send_if(Mid& item, std::size_t /*max_queue_length*/) override {
    if (downstream_full()) return false;
    route(std::move(item));
    return true;
  }
  bool flush() override { return true; }
  void notify_consumers() noexcept override {}
  void request_space_notification() noexcept override {}
  void blocked_edges(std::vector<link_base*>& /*out*/) const override {}
  void close() noexcept override {}
  bool post_marker(std::uint64_t /*id*/) noexcept override { return true; }
  std::optional<std::size_t> post_marker_before_buffered(std::uint64_t /*id*/,
                                                         std::string& /*buffered*/) override {
    return 0;
  }
  bool stores_buffered_items() const noexcept override { return true; }
  std::uint64_t sent() const noexcept override { return sent_; }
  // An item the chain passed on without this port (apply, make_next): counted all the same.
  void count_passed() noexcept { ++sent_; }
  std::string describe() const override { return " [chained]"; }

  // Down's first failure since the last call, if any (the chain's thread).
  void rethrow_failure() {
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  }

 protected:
  void route(Mid&& item) override {
    if (failure_) return;  // Down failed: the graph is failing, nothing more goes in
    ++sent_;
    Mid& held = item;  // consume() takes an lvalue, as it does from a ring
    try {
      as_member(*down_name_, [&] { down_->consume(held); });
    } catch (...) {
      failure_ = std::current_exception();
    }
  }

 private:
  Down* down_;
  const std::string* down_name_;
  std::uint64_t sent_ = 0;
  std::exception_ptr failure_;
  const void* watched_ = nullptr;
  bool (*watched_full_)(const void*) noexcept = nullptr;
};

// `Out apply(In&)`: one output per input, the form node_task moves whole batches through.
template <class N, class In>
concept one_to_one_node = requires(N& n, In& item) {
  { n.apply(item) } -> std::same_as<typename N::output_type>;
};

// A node held per task that a chain could not carry for it (see the top of this file).
// (Nodes that only half-declare keyed state or a commit stay apart too, so that node_task's
// checks name them.)
template <class N>
concept chainable_node =
    !state::keyed_node<N> && !requires(N& n) { n.state_fields(); } &&
    !requires(N& n, std::uint64_t id) { n.prepare_commit(id); } && !snapshotting_node<N> &&
    !committing_node<N> && !refusing_checkpoints<N> && !requires { requires N::unchained; } &&
    !(!std::is_void_v<typename N::input_type> && requires(const N& c) { c.has_news(); });

template <class Up, class Down>
class chain_node : public node<typename Up::input_type, typename Down::output_type> {
  using mid_type = typename Up::output_type;
  static_assert(std::is_same_v<mid_type, typename Down::input_type>);
  static_assert(!std::is_void_v<mid_type>, "a sink cannot head a chain");
  static_assert(!std::is_void_v<typename Down::input_type>, "a source cannot follow a stage");

 public:
  using in_type = typename Up::input_type;
  using out_type = typename Down::output_type;

 private:
  // Stand-ins for void in the signatures of members that a source or a sink chain does not
  // have (their constraints remove them; the declarations must still be well-formed).
  struct absent {};
  using in_or_absent = std::conditional_t<std::is_void_v<in_type>, absent, in_type>;
  using out_or_absent = std::conditional_t<std::is_void_v<out_type>, absent, out_type>;

 public:
  // `up_name`: Up's stage name (unused when Up is itself a chain, which names its own).
  chain_node(Up up, Down down, std::string up_name, std::string down_name)
      : up_(std::move(up)),
        down_(std::move(down)),
        up_name_(std::move(up_name)),
        down_name_(std::move(down_name)),
        forward_(&down_, &down_name_) {
    node_access::set_port(up_, &forward_);
  }
  // The forward port points into this object: copies and moves wire their own.
  chain_node(const chain_node& other)
      : chain_node(other.up_, other.down_, other.up_name_, other.down_name_) {}
  chain_node(chain_node&& other) noexcept(
      std::is_nothrow_move_constructible_v<Up>&& std::is_nothrow_move_constructible_v<Down>)
      : chain_node(std::move(other.up_), std::move(other.down_), std::move(other.up_name_),
                   std::move(other.down_name_)) {}
  chain_node& operator=(const chain_node&) = delete;
  chain_node& operator=(chain_node&&) = delete;

  // ---- the members' identities, for errors and counters (the builder's)

  static constexpr bool up_is_chain = requires { Up::member_count; };
  // How many nodes the chain runs, first to last.
  static constexpr std::size_t member_count = [] {
    if constexpr (up_is_chain) {
      return Up::member_count + 1;
    } else {
      return std::size_t{2};
    }
  }();
  // Their names, first to last.
  void member_names(std::vector<std::string>& out) const {
    if constexpr (up_is_chain) {
      up_.member_names(out);
    } else {
      out.push_back(up_name_);
    }
    out.push_back(down_name_);
  }
  // Appends a replica's suffix ("#2") to every member's name.
  void name_replica(const std::string& suffix) {
    if constexpr (up_is_chain) up_.name_replica(suffix);
    up_name_ += suffix;
    down_name_ += suffix;
  }
  // The counters of the links the chain does not have: what each member sent on to the next
  // (and so what the next received). `members`: member_count of them, first to last. The
  // first's items_in and the last's items_out are the task's own.
  void publish_counts(node_stats* const* members) const noexcept {
    if constexpr (up_is_chain) up_.publish_counts(members);
    members[member_count - 2]->items_out.store(forward_.sent(), std::memory_order_relaxed);
    members[member_count - 1]->items_in.store(forward_.sent(), std::memory_order_relaxed);
  }

  // node_access (flow/node.hpp) hands these on to the members: the replica index and the
  // running task to both, the real output port to the last.
  void bind_members(std::size_t replica, std::size_t replicas, node_task_base* task) {
    node_access::bind(up_, replica, replicas, task);
    node_access::bind(down_, replica, replicas, task);
  }
  template <class Port>
  void set_member_port(Port* port) {
    node_access::set_port(down_, port);
    forward_.watch(port);
  }

  // ---- the lifecycle: Down is ready before Up may send (in its on_start), and hears of
  // the end after Up has sent its last (in its on_stop). on_cancel reaches the members that
  // started and did not stop, as it would reach them unchained.
  void on_start() {
    down_started_ = true;  // marked before the call, as node_task marks a node started
    as_member(down_name_, [&] { down_.on_start(); });
    up_started_ = true;
    as_member(up_name_, [&] { up_.on_start(); });
    rethrow_down_failure();
  }
  void on_stop() {
    as_member(up_name_, [&] { up_.on_stop(); });
    up_stopped_ = true;
    rethrow_down_failure();
    as_member(down_name_, [&] { down_.on_stop(); });
    down_stopped_ = true;
  }
  void on_cancel()
    requires(
        requires(Up& u) { u.on_cancel(); } || requires(Down& d) { d.on_cancel(); })
  {
    // Both let go of what they hold, whichever throws: the first error is the one reported.
    std::exception_ptr first;
    if constexpr (requires(Up& u) { u.on_cancel(); }) {
      if (up_started_ && !up_stopped_) {
        try {
          as_member(up_name_, [&] { up_.on_cancel(); });
        } catch (...) {
          first = std::current_exception();
        }
      }
    }
    if constexpr (requires(Down& d) { d.on_cancel(); }) {
      if (down_started_ && !down_stopped_) {
        try {
          as_member(down_name_, [&] { down_.on_cancel(); });
        } catch (...) {
          if (!first) first = std::current_exception();
        }
      }
    }
    if (first) std::rethrow_exception(first);
  }
  void interrupt() noexcept
    requires(
        requires(Up& u) { u.interrupt(); } || requires(Down& d) { d.interrupt(); })
  {
    if constexpr (requires(Up& u) { u.interrupt(); }) up_.interrupt();
    if constexpr (requires(Down& d) { d.interrupt(); }) down_.interrupt();
  }
  void enable_checkpoints()
    requires(
        requires(Up& u) { u.enable_checkpoints(); } ||
        requires(Down& d) { d.enable_checkpoints(); })
  {
    if constexpr (requires(Up& u) { u.enable_checkpoints(); }) {
      as_member(up_name_, [&] { up_.enable_checkpoints(); });
    }
    if constexpr (requires(Down& d) { d.enable_checkpoints(); }) {
      as_member(down_name_, [&] { down_.enable_checkpoints(); });
    }
  }

  // ---- a chain that does not start with a source
  void consume(in_or_absent& item)
    requires(!std::is_void_v<in_type>)
  {
    as_member(up_name_, [&] { up_.consume(item); });
    rethrow_down_failure();
  }
  out_or_absent apply(in_or_absent& item)
    requires(!std::is_void_v<in_type> && !std::is_void_v<out_type> &&
             one_to_one_node<Up, in_type> && one_to_one_node<Down, mid_type>)
  {
    mid_type mid = as_member(up_name_, [&] { return up_.apply(item); });
    forward_.count_passed();
    return as_member(down_name_, [&] { return down_.apply(mid); });
  }

  // ---- a chain headed by a source: its production, wake-ups and position are the source's
  auto produce()
    requires(std::is_void_v<in_type>)
  {
    auto status = as_member(up_name_, [&] { return up_.produce(); });
    rethrow_down_failure();
    return status;
  }
  bool has_news() const
    requires(std::is_void_v<in_type> && requires(const Up& u) { u.has_news(); })
  {
    return up_.has_news();
  }
  std::size_t remaining() const
    requires(std::is_void_v<in_type> && one_to_one_node<Down, mid_type> &&
             requires(Up& u, const Up& c) {
               { c.remaining() } -> std::convertible_to<std::size_t>;
               { u.make_next() } -> std::same_as<mid_type>;
             })
  {
    return up_.remaining();
  }
  out_or_absent make_next()
    requires(std::is_void_v<in_type> && one_to_one_node<Down, mid_type> &&
             requires(Up& u) {
               { u.make_next() } -> std::same_as<mid_type>;
             })
  {
    mid_type mid = as_member(up_name_, [&] { return up_.make_next(); });
    forward_.count_passed();
    return as_member(down_name_, [&] { return down_.apply(mid); });
  }
  auto checkpoint_position() const
    requires positioned_source<Up>
  {
    return up_.checkpoint_position();
  }
  template <class Position>
    requires positioned_source<Up>
  void seek(const Position& position) {
    up_.seek(position);
  }

 private:
  // What Down threw while Up was sending, once Up's call has returned (forward_port).
  void rethrow_down_failure() { forward_.rethrow_failure(); }

  Up up_;
  Down down_;
  std::string up_name_, down_name_;
  forward_port<mid_type, Down> forward_;
  // The lifecycle calls each member has had (on_cancel goes to those started, not stopped).
  bool up_started_ = false, down_started_ = false, up_stopped_ = false, down_stopped_ = false;
};

}  // namespace spate::flow::detail
