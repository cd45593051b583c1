#pragma once
// A node replica as a task on the pool. One activation: flush buffered output; consume up
// to the budget (merging the input edges round-robin); wake consumers of what was sent and
// producers that were waiting for room; then go idle, or end the stream: on_stop() once
// all inputs are closed and drained, flush, close the outputs, finish.
#include <algorithm>
#include <cassert>
#include <concepts>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "spate/flow/checkpoints.hpp"
#include "spate/flow/detail/barrier_alignment.hpp"
#include "spate/flow/detail/chain_node.hpp"
#include "spate/flow/detail/node_task_base.hpp"
#include "spate/flow/detail/output_port.hpp"
#include "spate/flow/detail/unaligned_barrier.hpp"
#include "spate/flow/node.hpp"
#include "spate/platform/type_name.hpp"
#include "spate/state/backend_keyed_store.hpp"
#include "spate/state/keyed_store.hpp"

namespace spate::flow::detail {

// How a replica receives its input.
struct plain_input {};      // edges of In
struct shared_input {};     // edges of shared_ptr<const In> (broadcast farms)
struct sequenced_input {};  // edges of sequenced<In> (ordered farms; output is tagged)

template <class In, class Mode>
struct input_element {
  using type = In;
};
template <class In>
struct input_element<In, shared_input> {
  using type = std::shared_ptr<const In>;
};
template <class In>
struct input_element<In, sequenced_input> {
  using type = sequenced<In>;
};
struct no_input {};  // sources
template <class Mode>
struct input_element<void, Mode> {
  using type = no_input;
};

// What a keyed node's task keeps: its by_key function and its rows, in memory
// (state/keyed_store.hpp) or in a backend's table (state/backend_keyed_store.hpp, chosen by
// graph_options::keyed_state_backend); nothing for other nodes. For checkpoints: a view of
// the rows as they were at the barrier, encoded later on the coordinator's thread, and the
// restore of a part.
template <class N, class KeyFn, bool Keyed = state::keyed_node<N> && !std::is_void_v<KeyFn>>
struct key_binding {
  struct rows {
    std::string encode(std::uint32_t) { return {}; }
  };
  key_binding(const void*, N&, state::keyed_state_backend*, const std::string&) {}
  rows snapshot(N&) { return {}; }
  static std::string layout(N&) { return {}; }
  void restore(std::string_view, N&, std::uint32_t) {}
};
template <class N, class KeyFn>
struct key_binding<N, KeyFn, true> {
  using key_type = std::decay_t<std::invoke_result_t<const KeyFn&, const typename N::input_type&>>;
  using fields_type = decltype(std::declval<N&>().state_fields());
  using memory_store = state::keyed_store<key_type, fields_type>;
  using backend_store = state::backend_keyed_store<key_type, fields_type>;
  struct rows {
    std::optional<typename memory_store::snapshot_type> in_memory;
    typename backend_store::snapshot_type on_backend;
    std::string layout;
    std::string encode(std::uint32_t key_groups) {
      std::string bytes = on_backend ? backend_store::encode(*on_backend, layout, key_groups)
                                     : memory_store::encode(*in_memory, layout, key_groups);
      in_memory.reset();  // S4 at once: the node stops copying for it
      on_backend.reset();
      return bytes;
    }
  };
  // `backend`: the graph's keyed state backend (null: memory), which opens a table named
  // after the replica.
  key_binding(const KeyFn* f, N& node, state::keyed_state_backend* backend,
              const std::string& replica)
      : key(*f), stores(make_store(backend, replica)) {
    memory_store::check_names(node.state_fields());
  }
  template <class F>
  void with_key(const key_type& k, N& node, F&& f) {
    if (auto* m = std::get_if<memory_store>(&stores)) {
      m->with_key(k, node.state_fields(), std::forward<F>(f));
    } else {
      std::get<backend_store>(stores).with_key(k, node.state_fields(), std::forward<F>(f));
    }
  }
  rows snapshot(N& node) {
    rows r;
    r.layout = layout(node);
    if (auto* m = std::get_if<memory_store>(&stores)) {
      r.in_memory.emplace(m->snapshot());
    } else {
      r.on_backend = std::get<backend_store>(stores).snapshot();
    }
    return r;
  }
  static std::string layout(N& node) { return memory_store::layout(node.state_fields()); }
  // The task ended: a backend's table is closed (deleted once no snapshot reads it).
  void release() noexcept {
    if (auto* b = std::get_if<backend_store>(&stores)) b->close();
  }
  // The rows of the key groups this replica owns (state/key_groups.hpp: the farm routes
  // by key group when checkpoints are on).
  void restore(std::string_view bytes, N& node, std::uint32_t key_groups) {
    const auto owned = [&](std::uint32_t group) {
      return state::replica_of_group(group, node.replica_count(), key_groups) ==
             node.replica_index();
    };
    std::visit([&](auto& s) { s.restore(bytes, layout(node), key_groups, owned); }, stores);
  }
  KeyFn key;
  std::variant<memory_store, backend_store> stores;

 private:
  static std::variant<memory_store, backend_store> make_store(state::keyed_state_backend* backend,
                                                              const std::string& replica) {
    if (backend == nullptr)
      return std::variant<memory_store, backend_store>(std::in_place_index<0>);
    return std::variant<memory_store, backend_store>(std::in_place_index<1>, backend->open(replica),
                                                     backend->cached_rows());
  }
};

// `KeyFn`: the by_key function of the farm whose worker this node is (void: none).
template <class N, class Mode, class KeyFn>
class node_task final : public node_task_base {
 public:
  using in_type = typename N::input_type;
  using out_type = typename N::output_type;
  using element = typename input_element<in_type, Mode>::type;
  static constexpr bool is_source = std::is_void_v<in_type>;
  static constexpr bool is_sink = std::is_void_v<out_type>;
  // Sources that know how many items are left and make them one by one (flow::generate).
  static constexpr bool counted_source = is_source && requires(N& n) {
    { n.remaining() } -> std::convertible_to<std::size_t>;
    { n.make_next() } -> std::same_as<out_type>;
  };
  // Nodes with keyed state (state/keyed.hpp): consume() runs with the item's key bound.
  static constexpr bool keyed = state::keyed_node<N>;
  static_assert(
      !requires(N& n) { n.state_fields(); } || keyed,
      "spate::flow: state_fields() must return std::tie(...) of spate::state "
      "handles (value, map, list)");
  static_assert(!keyed || (!std::is_void_v<KeyFn> && std::is_same_v<Mode, plain_input>),
                "spate::flow: a node with keyed state (state_fields()) must be the worker of "
                "a by_key farm, itself and not a pipeline: flow::farm(stage, "
                "flow::by_key{key_fn}, replicas) (an ordered or broadcast farm cannot host it)");
  // Nodes with `Out apply(In&)` emit exactly one item per input (flow::map).
  static constexpr bool one_to_one = std::is_same_v<Mode, plain_input> && !is_source && !is_sink &&
                                     !keyed && requires(N& n, element& item) {
                                       { n.apply(item) } -> std::same_as<out_type>;
                                     };

  // A node that means to commit at checkpoints but misses part of it (a member hiding one
  // of the functions) would never commit: its output would never become visible.
  static_assert(
      !requires(N& n, std::uint64_t id) { n.prepare_commit(id); } || committing_node<N>,
      "spate::flow: a node with prepare_commit() must be a committing_node: "
      "bool commit(const checkpoint_commit&), abort_commit(id) and "
      "std::optional<std::uint64_t> last_committed(const checkpoint_commit&) const "
      "(flow/checkpoints.hpp)");

  // Nodes woken from outside as well as by input (flow/wake_timer.hpp).
  static constexpr bool woken_from_outside = !is_source && requires(N& n, const N& c) {
    { c.has_news() } -> std::convertible_to<bool>;
    n.on_news();
  };

  static_assert(
      !std::is_same_v<Mode, shared_input> ||
          requires(N& n, const in_type& item) { n.consume(item); },
      "spate::flow: workers of a broadcast farm share one copy of each item, so "
      "their consume() must take `const In&`");

  node_task(N node, node_stats& stats, std::size_t replica, std::size_t replicas,
            const KeyFn* key = nullptr, state::keyed_state_backend* backend = nullptr)
      : node_task_base(stats), node_(std::move(node)), key_(key, node_, backend, stats.name) {
    node_access::bind(node_, replica, replicas, this);
  }

  // The node it runs (the builder names a chain's members through it).
  N& node() noexcept { return node_; }
  // A chain's members' counters, first (this task's own) to last (builder).
  void set_chain_members(std::vector<node_stats*> members) {
    assert(members.size() == chain_size());
    chain_members_ = std::move(members);
  }

  void add_input(link<element>* e) {
    inputs_.push_back(e);
    alignment_.add_input();
    unaligned_.add_input();
  }

  std::string describe() const override {
    std::ostringstream out;
    out << name() << " state=" << state_for_diagnostics() << " inputs" << describe_edges(inputs_)
        << counters_for_diagnostics();
    if (has_port()) out << " out" << port_->describe();
    return out.str();
  }

  template <class Port>
  void set_output(std::unique_ptr<Port> port) {
    if constexpr (!is_sink) {
      if constexpr (std::is_same_v<Port, tagging_port<out_type>>) tagging_ = port.get();
      node_access::set_port(node_, static_cast<output_port<out_type>*>(port.get()));
      port_ = std::move(port);
    }
  }

  // The node's optional interrupt(): thread-safe, must not block (flow/node.hpp).
  void interrupt() noexcept override {
    if constexpr (requires(N& n) { n.interrupt(); }) node_.interrupt();
  }

  // ---- checkpoints (flow/checkpoints.hpp)

  std::string checkpoint_refusal() override {
    if constexpr (refusing_checkpoints<N>) {
      return N::refuses_checkpoints;
    } else if constexpr (is_source && !positioned_source<N>) {
      return "is a source without checkpoint_position() and seek()";
    } else {
      return {};
    }
  }
  std::string unaligned_refusal() override {
    if constexpr (!is_source && !state::encodable<element>) {
      return "receives items it could not store in flight (" + spate::type_name<element>() +
             " has no codec: an ordered, broadcast or window farm's routing, or a type without "
             "one)";
    } else if constexpr (committing_node<N>) {
      return "commits output at checkpoints, and holds it back until the barrier's checkpoint "
             "completes, which with unaligned barriers waits for this node's other inputs";
    } else if constexpr (!is_sink && !state::encodable<out_type>) {
      return "sends items it could not store in flight (" + spate::type_name<out_type>() +
             " has no codec)";
    } else {
      if (has_port() && !port_->stores_buffered_items()) {
        return "sends through an ordered or broadcast farm's router, whose buffered items "
               "unaligned checkpoints cannot store";
      }
      return {};
    }
  }
  // U5 (flow/detail/unaligned_barrier.hpp): before the graph starts.
  void restore_in_flight(std::string_view outputs, std::string_view inputs) override {
    if constexpr (!is_sink && state::encodable<out_type>) {
      resend_ = decode_stored_items<out_type>(outputs);
    } else if (!outputs.empty()) {
      throw std::runtime_error("it holds outputs in flight, but sends none it could store");
    }
    if constexpr (!is_source && state::encodable<element>) {
      for (auto& item : decode_stored_items<element>(inputs)) replay_.push_back(std::move(item));
    } else if (!inputs.empty()) {
      throw std::runtime_error("it holds inputs in flight, but receives none it could store");
    }
  }
  std::string chain_layout() const override {
    std::string out;
    for (const node_stats* m : chain_members_) out += (out.empty() ? "" : ", ") + m->name;
    return out;
  }
  std::string keyed_layout() override {
    if constexpr (keyed) {
      return key_.layout(node_);
    } else {
      return {};
    }
  }
  std::string own_layout() override {
    if constexpr (snapshotting_node<N>) {
      return spate::type_name<own_state>();
    } else {
      return {};
    }
  }
  void restore_keyed(std::string_view bytes, std::uint32_t key_groups) override {
    if constexpr (keyed) key_.restore(bytes, node_, key_groups);
  }
  void restore_own(std::string_view bytes) override {
    if constexpr (snapshotting_node<N>) node_.restore_state(state::from_bytes<own_state>(bytes));
  }
  void restore_position(std::string_view bytes) override {
    if constexpr (positioned_source<N>) node_.seek(state::from_bytes<position_type>(bytes));
  }
  bool commits() const noexcept override { return committing_node<N>; }
  // T2 on the coordinator's thread, T4 on this task's (commit_at_end).
  bool commit(const checkpoint_commit& done) override {
    if constexpr (committing_node<N>) {
      return node_.commit(done);
    } else {
      return true;
    }
  }
  void abort_commit(std::uint64_t id) override {
    if constexpr (committing_node<N>) node_.abort_commit(id);
  }
  std::optional<std::uint64_t> last_committed(const checkpoint_commit& newest) override {
    if constexpr (committing_node<N>) {
      return std::as_const(node_).last_committed(newest);
    } else {
      return std::nullopt;
    }
  }

  resume_result activate(std::size_t budget) override {
    add_single_writer(stats_.activations);
    if (graph().cancelled()) return end_as_cancelled();
    if (!started_) {
      started_ = true;
      if (!guarded([&] { node_.on_start(); })) return end_as_cancelled();
      if (!resend_outputs()) return end_as_cancelled();
    }
    if (unaligned_mode_ && !input_done_) {
      // U2 before the flush: a node whose outputs are full still takes the barrier (not
      // once its input is done: a source's on_stop output would be counted twice).
      if constexpr (!is_source) {
        alignment_.begin(inputs_);  // A1: the idle re-checks' markers
      }
      if (!take_unaligned_barriers()) return end_as_cancelled();
    }
    if (has_port() && !port_->flush()) return wait_for_room();
    if (!input_done_) {
      const std::size_t handled = consume_some(budget);
      if (failed_) return end_as_cancelled();
      release_producers(inputs_);  // link R3, one fence for every input
      if (has_port()) port_->notify_consumers();
      if (has_port() && port_->has_pending()) return wait_for_room();
      if (!input_done_) {
        if (handled == budget || std::exchange(run_again_, false)) {
          return resume_result::resume_later;
        }
        const std::size_t closed_before = closed_seen_;
        if constexpr (!is_source) {
          if (checkpoints_ != nullptr) {
            // A4 (flow/detail/barrier_alignment.hpp): inputs held at the barrier are not
            // news however much they hold.
            return go_idle([&, check = typename barrier_alignment<element>::idle_check(
                                   alignment_, inputs_, closed_before)] {
              if constexpr (woken_from_outside) {
                if (node_.has_news()) return true;
              }
              return check();
            });
          }
        }
        const std::uint64_t injected = injected_;
        return go_idle(
            [&] { return inputs_have_news(closed_before) || source_checkpoint_news(injected); });
      }
    }
    if (!stopped_) {
      // A cancel during this activation ends the upstream nodes at once, and their closed
      // outputs look like the end of the stream: the stream did not end, so no on_stop.
      if (graph().cancelled()) return end_as_cancelled();
      stopped_ = true;
      if (checkpoints_ != nullptr) {
        const end_commit ended = at_end_of_input();
        if (ended == end_commit::failed) return end_as_cancelled();
        if (ended == end_commit::not_committed) return end_as_cancelled();
      }
      if (!guarded([&] { node_.on_stop(); })) return end_as_cancelled();
      count_out();
      if (has_port() && !port_->flush()) return wait_for_room();
    }
    if (has_port()) port_->close();
    return finish();
  }

 private:
  auto* port_ptr() const noexcept { return port_.get(); }

  // The graph was cancelled, or this node failed (its own exception, or a step of its own
  // that failed the graph): a started node that holds something outside the graph (a
  // reader thread, a consumer-group membership) lets go of it now, not when the graph is
  // destroyed; on_cancel, never on_stop. A chain's members (chain_node.hpp) that did not
  // fail hear of it this way too.
  resume_result end_as_cancelled() noexcept {
    if constexpr (requires(N& n) { n.on_cancel(); }) {
      if (started_) guarded([&] { node_.on_cancel(); });
    }
    return end_cancelled(port_ptr(), inputs_);
  }

  bool has_port() const noexcept {
    if constexpr (is_sink) {
      return false;
    } else {
      return port_ != nullptr;
    }
  }

  template <class F>
  bool guarded(F&& f) noexcept {
    try {
      f();
      return true;
    } catch (const chained_member_failure& f) {
      failed_ = true;  // a chain's member: named after it (chain_node.hpp)
      graph().fail(f.member(), f.original());
      return false;
    } catch (...) {
      failed_ = true;
      graph().fail(name(), std::current_exception());
      return false;
    }
  }

  std::size_t consume_some(std::size_t budget) {
    std::size_t handled = 0;
    if constexpr (is_source) {
      if (checkpoints_ != nullptr && !inject_barrier()) return 0;
      while (handled < budget) {
        if constexpr (counted_source) {
          // Straight into the output window while a run has room; one item through the
          // policy (produce) when none has.
          if (node_.remaining() != 0) {
            std::size_t sent = 0;
            if (!guarded([&] {
                  sent = port_->send_many(std::min(node_.remaining(), budget - handled),
                                          [&](std::size_t) { return node_.make_next(); });
                })) {
              return handled;
            }
            handled += sent;
            if (sent != 0) continue;
          }
        }
        produce_status status = produce_status::more;
        if (!guarded([&] { status = produce_once(); })) return handled;
        if (status == produce_status::ended) {
          input_done_ = true;
          break;
        }
        if (status == produce_status::wait) break;
        ++handled;
        if (port_->has_pending()) break;
      }
      count_out();
      return handled;
    } else {
      // Inputs are merged a batch at a time: everything readable on one edge (up to the
      // budget), then the next edge. Each batch costs one read of the producer's index and
      // one store of ours.
      if constexpr (woken_from_outside) {
        if (node_.has_news()) {
          if (!guarded([&] { node_.on_news(); })) return 0;
          if (has_port() && port_->has_pending()) {
            count_out();
            return 0;
          }
        }
      }
      // U5: items restored in flight come before anything on the inputs.
      while (!replay_.empty() && handled < budget) {
        if (!guarded([&] { deliver(replay_.front()); })) return handled;
        replay_.pop_front();
        ++handled;
        if (has_port() && port_->has_pending()) break;
      }
      if (!replay_.empty()) {
        add_single_writer(stats_.items_in, handled);
        count_out();
        return handled;
      }
      const std::size_t n = inputs_.size();
      const bool aligning = checkpoints_ != nullptr && !unaligned_mode_;
      const bool unaligned = unaligned_mode_;
      if (aligning) alignment_.begin(inputs_);  // A1: before examining them
      std::size_t empty_in_a_row = 0;
      bool blocked = false;
      while (handled < budget && empty_in_a_row < n && !blocked) {
        const std::size_t index = next_input_;
        link<element>* e = inputs_[index];
        next_input_ = next_input_ + 1 == n ? 0 : next_input_ + 1;
        if (aligning && alignment_.held(index)) {
          ++empty_in_a_row;
          continue;
        }
        const auto batch = checkpoints_ != nullptr ? e->readable_before_marker(budget - handled)
                                                   : e->readable(budget - handled);
        if (batch.size() == 0) {
          ++empty_in_a_row;
          if (unaligned && e->front_marker() != nullptr) {
            if (!take_unaligned_barriers()) return handled;  // U2, U4
            empty_in_a_row = 0;
          }
          if (aligning && (e->at_marker() || (alignment_.aligning() && e->ended()))) {
            // At the barrier, or ended while others wait at it (an ended input counts as
            // aligned).
            if (!barrier_reached(index)) return handled;
            if (!alignment_.aligning()) empty_in_a_row = 0;  // passed: every input reads again
          }
          continue;
        }
        empty_in_a_row = 0;
        std::size_t done = 0;
        const bool record = unaligned && unaligned_.recording(index);  // U3
        while (done < batch.size()) {
          if constexpr (one_to_one) {
            // Straight from the input batch into the output window; one item through
            // the policy (send) when no run has room. Not while recording (U3).
            std::size_t sent = 0;
            if (!record && !guarded([&] {
                  element* in = batch.contiguous_data(done);
                  sent = port_->send_many(batch.contiguous(done),
                                          [&](std::size_t k) { return node_.apply(in[k]); });
                })) {
              e->pop_n(done);  // the failed run's inputs stay, moved-from, in the ring
              return handled + done;
            }
            done += sent;
            if (sent != 0) continue;
          }
          if (record && !guarded([&] { record_in_flight(batch[done]); })) {
            e->pop_n(done);
            return handled + done;
          }
          if (!guarded([&] { deliver(batch[done]); })) {
            e->pop_n(done);
            return handled + done;
          }
          ++done;
          if (has_port() && port_->has_pending()) {
            blocked = true;
            break;
          }
        }
        e->pop_n(done);
        handled += done;
        if (unaligned && e->front_marker() != nullptr && !take_unaligned_barriers()) {
          return handled;
        }
        if (aligning && e->at_marker()) {
          if (!barrier_reached(index)) return handled;
          if (!alignment_.aligning()) empty_in_a_row = 0;  // passed: every input reads again
        }
      }
      add_single_writer(stats_.items_in, handled);
      count_out();
      // Count closures before testing for the end: one that lands in between is news.
      closed_seen_ = closed_inputs(inputs_);
      if (aligning && alignment_.aligning()) {
        // An input that ended after the loop looked at it, while others wait at the
        // barrier: its closure is counted above, so the idle re-check would not see it as
        // news. Complete the alignment now, and run again to read on.
        if (!complete_alignment()) return handled;
        if (!alignment_.aligning()) run_again_ = true;
      }
      // U4: inputs that ended after the loop looked at them stop recording.
      if (unaligned && !take_unaligned_barriers()) return handled;
      if (handled < budget &&
          (checkpoints_ != nullptr ? all_ended() : all_closed_and_drained(inputs_))) {
        // Unaligned: an input may have ended since the take above; every input has now,
        // so this one completes the barrier (U5) before the input is done.
        if (unaligned && !take_unaligned_barriers()) return handled;
        if (!unaligned_.taking()) input_done_ = true;
      }
      return handled;
    }
  }

  // ---- barriers (flow/checkpoints.hpp, steps 1 and 2)

  void release_state() noexcept override {
    if constexpr (keyed) key_.release();
  }
  void enable_checkpoints() override {
    unaligned_mode_ = checkpoints_->unaligned();
    if constexpr (requires(N& n) { n.enable_checkpoints(); }) node_.enable_checkpoints();
  }

  // The input ended (not cancelled), before on_stop: a source's last position goes to the
  // coordinator before its outputs close (so a committing node downstream, which sees the
  // close, finds it there), and a committing node commits what is left (T4); a commit
  // that did not happen (the graph is being cancelled) ends the node as cancelled.
  enum class end_commit { done, not_committed, failed };
  end_commit at_end_of_input() {
    bool committed = true;
    const bool ok = guarded([&] {
      if constexpr (positioned_source<N>) {
        checkpoints_->source_ended(checkpoint_index_,
                                   state::to_bytes(std::as_const(node_).checkpoint_position()));
      }
      if constexpr (committing_node<N>) committed = node_.commit(checkpoints_->commit_at_end());
    });
    if (!ok) return end_commit::failed;
    return committed ? end_commit::done : end_commit::not_committed;
  }

  template <class M>
  struct own_state_of {
    using type = void;
  };
  template <snapshotting_node M>
  struct own_state_of<M> {
    using type = std::decay_t<decltype(std::declval<const M&>().snapshot_state())>;
  };
  using own_state = typename own_state_of<N>::type;
  template <class M>
  struct position_of {
    using type = void;
  };
  template <positioned_source M>
  struct position_of<M> {
    using type = std::decay_t<decltype(std::declval<const M&>().checkpoint_position())>;
  };
  using position_type = typename position_of<N>::type;

  // What the coordinator encodes and writes: the keyed rows as they were at the barrier
  // (a copy-on-write view) and the node's own state, encoded here.
  struct part final : snapshot_part {
    typename key_binding<N, KeyFn>::rows rows;
    std::string own;
    std::string outputs;  // unaligned: stored_items() of the buffered outputs (U1, U2)
    std::string inputs;   // unaligned: stored_items() of the recorded inputs (U3, U4)
    std::string encode(std::uint32_t key_groups) override {
      return encode_part(part_contents{rows.encode(key_groups), std::move(own), std::move(outputs),
                                       std::move(inputs)});
    }
  };

  // C2 for a source: barrier `id` on every output, then the position after everything sent
  // before it, on this thread, before the next produce(). False: the node failed.
  bool inject_barrier() {
    const std::uint64_t requested = requested_checkpoint_.load(std::memory_order_acquire);
    if (requested <= injected_) return true;
    injected_ = requested;
    return pass_barrier_with(requested);
  }

  // Input `index` is at the barrier (A2), or ended while others are: passes the barrier
  // once every input is at it or ended. False: the node failed.
  bool barrier_reached(std::size_t index) {
    link<element>* e = inputs_[index];
    if (e->at_marker() && !guarded([&] { alignment_.hold(index, *e); })) return false;
    return complete_alignment();
  }

  // A3: passes the barrier being aligned if every input is at it or has ended. False: the
  // node failed.
  bool complete_alignment() {
    if (!alignment_.ready(inputs_)) return true;
    if (!pass_barrier_with(alignment_.id())) return false;
    alignment_.release(inputs_);
    return true;
  }

  // Flink's order (SubtaskCheckpointCoordinatorImpl.checkpointState): the barrier goes
  // downstream first, then the state is snapshotted, with no item in between.
  // Unaligned (U1, U2): the barrier goes before the buffered outputs, which the part
  // stores, and every task sends a part; a node with inputs acknowledges only at U5.
  bool pass_barrier_with(std::uint64_t id) {
    return guarded([&] {
      std::string buffered;
      std::uint64_t buffered_count = 0;
      if (has_port()) {
        bool posted = false;
        if (unaligned_mode_) {
          const auto count = port_->post_marker_before_buffered(id, buffered);
          posted = count.has_value();
          buffered_count = count.value_or(0);
        } else {
          posted = port_->post_marker(id);
        }
        if (!posted) {
          throw std::logic_error(
              "an output edge holds 4 barriers (the coordinator sends one at "
              "a time)");
        }
      }
      if constexpr (committing_node<N>) node_.prepare_commit(id);  // T1
      checkpoint_ack ack{.id = id, .task = checkpoint_index_};
      if constexpr (positioned_source<N>) {
        ack.position = state::to_bytes(node_.checkpoint_position());
      }
      if (keyed || snapshotting_node<N> || unaligned_mode_) {
        auto p = std::make_unique<part>();
        p->rows = key_.snapshot(node_);
        if constexpr (snapshotting_node<N>) p->own = state::to_bytes(node_.snapshot_state());
        p->outputs =
            stored_items<std::conditional_t<is_sink, int, out_type>>(buffered_count, buffered);
        ack.part = std::move(p);
        ack.in_flight = buffered_count;
      }
      if constexpr (!is_source && state::encodable<element>) {
        if (unaligned_mode_) {
          unaligned_.begin(id);  // U2
          for (const element& item : replay_) unaligned_.record(item);
          unaligned_ack_ = std::move(ack);
          return;
        }
      }
      checkpoints_->acknowledge(std::move(ack));
    });
  }

  // U1 (sources) or U2..U5: false, the node failed.
  bool take_unaligned_barriers() {
    if constexpr (is_source) {
      return inject_barrier();
    } else if constexpr (state::encodable<element>) {
      for (std::size_t i = 0; i < inputs_.size(); ++i) {
        link<element>& input = *inputs_[i];
        const link_marker* m = input.front_marker();
        if (m == nullptr) continue;
        if (!unaligned_.taking() && !pass_barrier_with(m->id)) return false;     // U2
        if (!guarded([&] { unaligned_.reach_marker(i, input); })) return false;  // U4
      }
      if (!unaligned_.taking()) return true;
      for (std::size_t i = 0; i < inputs_.size(); ++i) {
        if (unaligned_.recording(i) && inputs_[i]->ended()) unaligned_.input_ended(i);  // U4
      }
      if (!unaligned_.complete()) return true;
      return guarded([&] {  // U5
        checkpoint_ack ack = std::move(*unaligned_ack_);
        unaligned_ack_.reset();
        std::uint64_t count = 0;
        static_cast<part&>(*ack.part).inputs = unaligned_.finish(count);
        ack.in_flight += count;
        checkpoints_->acknowledge(std::move(ack));
      });
    } else {
      return true;  // refused at start (unaligned_refusal)
    }
  }

  // The output is full. Unaligned, a barrier posted on an input (U2) or requested of a
  // source (U1) while the node waits for room wakes it: it takes the barrier, then waits
  // again. Not once its input is done (it takes no more barriers then).
  resume_result wait_for_room() {
    if (!unaligned_mode_ || input_done_) return wait_for_output(*port_, inputs_);
    if constexpr (is_source) {
      return wait_for_output(*port_, inputs_, [this, injected = injected_] {
        return requested_checkpoint_.load(std::memory_order_acquire) != injected;
      });
    } else {
      return wait_for_output(*port_, inputs_, [this, seen = alignment_.markers_seen()] {
        return barrier_alignment<element>::markers_posted(inputs_) != seen;
      });
    }
  }

  // U3.
  void record_in_flight(const element& item) {
    if constexpr (state::encodable<element>) unaligned_.record(item);
  }

  // U5 after a restore: the stored outputs go first. False: the node failed.
  bool resend_outputs() {
    if constexpr (!is_sink) {
      if (resend_.empty()) return true;
      const bool ok = guarded([&] {
        for (auto& item : resend_) port_->send(std::move(item));
      });
      resend_.clear();
      resend_.shrink_to_fit();
      return ok;
    } else {
      return true;
    }
  }

  // A source's idle re-check: a checkpoint requested since it last injected one (C1).
  bool source_checkpoint_news(std::uint64_t injected) const noexcept {
    if constexpr (is_source) {
      return checkpoints_ != nullptr &&
             requested_checkpoint_.load(std::memory_order_acquire) != injected;
    } else {
      return false;
    }
  }
  bool all_ended() {
    for (auto* e : inputs_) {
      if (!e->ended()) return false;
    }
    return true;
  }

  produce_status produce_once() {
    if constexpr (std::is_same_v<decltype(node_.produce()), bool>) {
      return node_.produce() ? produce_status::more : produce_status::ended;
    } else {
      return node_.produce();
    }
  }

  void deliver(element& item) {
    if constexpr (std::is_same_v<Mode, shared_input>) {
      const in_type& shared = *item;
      node_.consume(shared);
    } else if constexpr (std::is_same_v<Mode, sequenced_input>) {
      tagging_->begin_item(item.seq);
      node_.consume(*item.value);
      tagging_->end_item();
    } else if constexpr (keyed) {
      const auto key = key_.key(std::as_const(item));
      key_.with_key(key, node_, [&] { node_.consume(item); });
    } else {
      node_.consume(item);
    }
  }

  void count_out() noexcept {
    if constexpr (!is_sink && !requires { N::member_count; }) {
      if (port_) stats_.items_out.store(port_->sent(), std::memory_order_relaxed);
    }
    if constexpr (requires { N::member_count; }) {
      // A chain: its members' counters; what the task sends is its last member's.
      node_.publish_counts(chain_members_.data());
      if constexpr (!is_sink) {
        if (port_) {
          chain_members_.back()->items_out.store(port_->sent(), std::memory_order_relaxed);
        }
      }
    }
  }

  // After the idle store: atomics only. News: an item, or an input closed since we looked.
  bool inputs_have_news(std::size_t closed_before) const noexcept {
    if constexpr (is_source) {
      if constexpr (requires(const N& n) { n.has_news(); }) {
        return node_.has_news();
      } else {
        return true;
      }
    }
    if constexpr (woken_from_outside) {
      if (node_.has_news()) return true;
    }
    return any_queued(inputs_) || closed_inputs(inputs_) != closed_before;
  }

  static constexpr std::size_t chain_size() noexcept {
    if constexpr (requires { N::member_count; }) {
      return N::member_count;
    } else {
      return 1;
    }
  }

  N node_;
  [[no_unique_address]] key_binding<N, KeyFn> key_;
  std::vector<node_stats*> chain_members_;  // a chain's, first to last (empty: not a chain)
  std::vector<link<element>*> inputs_;
  std::size_t next_input_ = 0;
  std::unique_ptr<output_port<std::conditional_t<is_sink, int, out_type>>> port_;
  tagging_port<std::conditional_t<is_sink, int, out_type>>* tagging_ = nullptr;
  bool started_ = false;
  bool input_done_ = false;
  bool stopped_ = false;
  bool failed_ = false;
  std::size_t closed_seen_ = 0;
  // Checkpoints: the barrier being aligned (non-sources), the last one injected (sources).
  barrier_alignment<element> alignment_;
  std::uint64_t injected_ = 0;
  bool run_again_ = false;  // a barrier passed after the last read: read on before idling
  // Unaligned checkpoints (flow/detail/unaligned_barrier.hpp).
  bool unaligned_mode_ = false;
  unaligned_barrier<element> unaligned_;
  std::optional<checkpoint_ack> unaligned_ack_;                     // U2 to U5
  std::vector<std::conditional_t<is_sink, int, out_type>> resend_;  // U5, restored outputs
  std::deque<element> replay_;                                      // U5, restored inputs
};

// An ordered farm's collector: merges the workers' tagged outputs back into input order.
// Each worker sees its inputs in increasing sequence order, so the next sequence number is
// always at the head of exactly one worker's edge: a k-way merge without extra buffers.
// Outputs tagged unordered_seq (sent from a worker's on_start or on_stop) go on at once.
template <class T>
class collector_task final : public node_task_base {
 public:
  using element = sequenced<T>;
  explicit collector_task(node_stats& stats) : node_task_base(stats) {}

  void add_input(link<element>* e) {
    inputs_.push_back(e);
    alignment_.add_input();
  }
  void set_output(std::unique_ptr<output_port<T>> port) { port_ = std::move(port); }
  std::string describe() const override {
    return name() + " state=" + std::to_string(state_for_diagnostics()) + " inputs" +
           describe_edges(inputs_) + counters_for_diagnostics() + " out" + port_->describe();
  }

  resume_result activate(std::size_t budget) override {
    if (graph().cancelled()) return end_cancelled(port_.get(), inputs_);
    if (!port_->flush()) return wait_for_output(*port_, inputs_);
    // Checkpoints: the router posted each barrier after the same sequence number on every
    // worker's edge, so every item before it (sequence numbers below it) comes before the
    // barrier on its edge, and the merge never waits for an item behind a held input.
    const bool aligning = checkpoints_ != nullptr;
    if (aligning) alignment_.begin(inputs_);  // A1
    std::size_t handled = 0;
    while (handled < budget) {
      if (aligning && !align()) return end_cancelled(port_.get(), inputs_);
      element* head = nullptr;
      link<element>* from = nullptr;
      for (std::size_t i = 0; i < inputs_.size(); ++i) {
        if (aligning && alignment_.held(i)) continue;
        element* candidate = inputs_[i]->front();
        // M3: the tail was loaded (front) before the markers: a barrier posted since align()
        // looked is seen here, and nothing behind it is taken. The next align() holds it.
        if (aligning && candidate != nullptr && inputs_[i]->at_marker()) continue;
        if (candidate != nullptr &&
            (candidate->seq == expected_ || candidate->seq == unordered_seq)) {
          head = candidate;
          from = inputs_[i];
          break;
        }
      }
      if (head == nullptr) break;
      if (head->value) {
        port_->send(std::move(*head->value));
      } else {
        ++expected_;  // input `expected_` is complete
      }
      from->pop();
      ++handled;
      if (port_->has_pending()) break;
    }
    stats_.items_out.store(port_->sent(), std::memory_order_relaxed);
    release_producers(inputs_);  // link R3
    port_->notify_consumers();
    if (port_->has_pending()) return wait_for_output(*port_, inputs_);
    if (handled == budget) return resume_result::resume_later;
    const std::size_t closed_before = closed_inputs(inputs_);
    if (aligning) {
      // An input may have ended since the loop looked (its closure counted above): A3 again.
      const bool was_aligning = alignment_.aligning();
      if (!align()) return end_cancelled(port_.get(), inputs_);
      if (was_aligning && !alignment_.aligning()) return resume_result::resume_later;
    }
    if (aligning ? all_ended() : all_closed_and_drained(inputs_)) {
      port_->close();
      return finish();
    }
    if (aligning) {
      return go_idle(
          typename barrier_alignment<element>::idle_check(alignment_, inputs_, closed_before));
    }
    return go_idle([&] { return any_queued(inputs_) || closed_inputs(inputs_) != closed_before; });
  }

 private:
  // A2 for every input whose barrier is next, and A3 when all are there: the barrier goes
  // downstream, and the collector (which keeps no state) answers at once. False: failed.
  bool align() noexcept {
    try {
      for (std::size_t i = 0; i < inputs_.size(); ++i) {
        if (!alignment_.held(i) && inputs_[i]->at_marker()) alignment_.hold(i, *inputs_[i]);
      }
      if (!alignment_.aligning() || !alignment_.ready(inputs_)) return true;
      const std::uint64_t id = alignment_.id();
      if (!port_->post_marker(id)) {
        throw std::logic_error(
            "an output edge holds 4 barriers (the coordinator sends one at "
            "a time)");
      }
      checkpoints_->acknowledge({.id = id, .task = checkpoint_index_});
      alignment_.release(inputs_);
      return true;
    } catch (...) {
      graph().fail(name(), std::current_exception());
      return false;
    }
  }
  bool all_ended() {
    for (auto* e : inputs_) {
      if (!e->ended()) return false;
    }
    return true;
  }

  std::vector<link<element>*> inputs_;
  std::unique_ptr<output_port<T>> port_;
  std::uint64_t expected_ = 0;
  barrier_alignment<element> alignment_;
};

}  // namespace spate::flow::detail
