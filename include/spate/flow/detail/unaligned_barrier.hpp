#pragma once
// Unaligned barriers (checkpoint_alignment::unaligned; flow/checkpoints.hpp): a node takes
// barrier n as soon as it is posted on any input, ahead of the items queued before it, and
// stores those items with its snapshot. Flink's unaligned checkpoints do the same over
// network buffers; here the markers travel beside each link's ring (exec/link.hpp M1..M3),
// so a consumer sees one the moment it is posted, however many items are ahead of it.
//
// # Protocol (markers as in exec/link.hpp; the coordinator's C1..C4 unchanged)
//
//   U1. A source asked for checkpoint n posts marker n on every output edge after the items
//       in the ring and before those its port still buffers for a full edge
//       (output_port::post_marker_before_buffered); it stores the buffered items with its
//       position (which counts them as made) and acknowledges at once.
//   U2. A node that finds a marker at the front of any input's marker queue, at the start of
//       an activation (even with its outputs full) or between batches, and is not taking a
//       barrier: posts the marker on its outputs as in U1, storing its buffered outputs,
//       snapshots its state (prepare_commit first, for a committing node), and begins: every
//       input records. Items restored in flight (U5) and not yet consumed are recorded first.
//   U3. While input i records, each item the node consumes from it is encoded before
//       consume(). The node reads with readable_before_marker(), so it never consumes an
//       item behind a marker it has not looked at.
//   U4. When marker n is at the front of input i's queue, the node encodes the items from
//       its read position up to the marker's position without popping them
//       (link::readable_up_to_front_marker: they were committed before the marker was
//       posted, M1), pops the marker, and input i stops recording. An input that ends
//       without the marker (closed, drained, none queued) stops too. The items stay in the
//       ring and are consumed as usual, not recorded again.
//   U5. When no input records, the node acknowledges n with its part: its state, its stored
//       outputs and the recorded inputs. A restore sends a node's stored outputs first (after
//       what its on_start() sends), then consumes its stored inputs before reading its links.
//
// Committing nodes (two-phase commit sinks) are refused: one holds new output back from
// prepare_commit (U2) until the checkpoint completes, which needs its own U5, so it would
// wait for itself. A node waiting for room on a full output is woken by a marker posted on
// its inputs (a source: by a checkpoint request) as well as by room (node_task
// wait_for_room, the same re-check as going idle), so it takes the barrier at once.
//
// # Why the cut is consistent
//
// Take an edge u -> v whose marker n stands at position m. u's snapshot counts the first m
// items as sent and stores the ones it still buffered (U1, U2). v read the edge up to r when
// it snapshotted; r <= m, since reads stop at a marker (M3: the ring's tail is loaded before
// the marker count, and u posts the marker before it pushes anything after it). v's
// snapshot holds items below r in its state, and items r..m-1 as recorded (U3 for those it
// consumed before it saw the marker, U4 for the rest). So every item u sent before its
// barrier is in exactly one place, items after it are in none (u makes them again after a
// restore), and a restore keeps each edge's order: v's recorded items, u's buffered items,
// then what u makes anew. C1 sends one barrier at a time and completes it only once every
// task acknowledged, which v does after popping marker n on every input (U4, U5): so a
// marker at the front during a barrier is that barrier's.
//
// The node's thread alone uses this class.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "spate/exec/link.hpp"
#include "spate/platform/type_name.hpp"
#include "spate/state/codec.hpp"

namespace spate::flow::detail {

// Items of type T stored in flight, as a part holds them: T's name, their count, then each
// one encoded (empty when there are none). The name is checked on restore: the graph's
// fingerprint covers state, not the types on its edges, and bytes of another type could
// decode into nonsense.
template <class T>
std::string stored_items(std::uint64_t count, std::string_view encoded) {
  if (count == 0) return {};
  std::string out = state::to_bytes(spate::type_name<T>());
  out += state::to_bytes(count);
  out += encoded;
  return out;
}
template <class T>
std::vector<T> decode_stored_items(std::string_view bytes) {
  std::vector<T> items;
  if (bytes.empty()) return items;
  state::byte_reader in(bytes);
  const auto type = state::decode<std::string>(in);
  if (type != spate::type_name<T>()) {
    throw std::runtime_error("its items in flight are " + type + ", but it now takes " +
                             spate::type_name<T>());
  }
  const auto count = state::decode<std::uint64_t>(in);
  if (count > bytes.size()) in.fail("items in flight", std::to_string(count) + " is too many");
  items.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t k = 0; k < count; ++k) items.push_back(state::decode<T>(in));
  if (!in.at_end()) in.fail("items in flight", std::to_string(in.left()) + " bytes left over");
  return items;
}

template <class E>
class unaligned_barrier {
 public:
  void add_input() { recording_.push_back(0); }

  // A barrier is being taken (U2 to U5).
  bool taking() const noexcept { return id_ != 0; }
  std::uint64_t id() const noexcept { return id_; }
  // U3: input `index` records the items consumed from it.
  bool recording(std::size_t index) const noexcept { return recording_[index] != 0; }

  // U2: barrier `id` begins; every input records.
  void begin(std::uint64_t id) {
    id_ = id;
    recording_.assign(recording_.size(), 1);
    recording_count_ = recording_.size();
    encoded_.clear();
    count_ = 0;
  }
  // U2, U3: an item in flight.
  void record(const E& item) {
    state::byte_writer out(encoded_);
    state::encode(item, out);
    ++count_;
  }
  // U4: the marker at the front of `input` (number `index`) is the barrier's.
  void reach_marker(std::size_t index, link<E>& input) {
    const link_marker* m = input.front_marker();
    if (m->id != id_) {
      throw std::logic_error("spate::flow: barrier " + std::to_string(m->id) +
                             " arrived while taking " + std::to_string(id_));
    }
    const auto batch = input.readable_up_to_front_marker();
    for (std::size_t k = 0; k < batch.size(); ++k) record(batch[k]);
    input.pop_marker();
    stop(index);
  }
  // U4: `index` ended without the marker.
  void input_ended(std::size_t index) noexcept { stop(index); }
  // U5: no input records.
  bool complete() const noexcept { return taking() && recording_count_ == 0; }
  // U5: the recorded items, as a part stores them; the barrier is over.
  std::string finish(std::uint64_t& count) {
    count = count_;
    std::string out = stored_items<E>(count_, encoded_);
    id_ = 0;
    encoded_.clear();
    encoded_.shrink_to_fit();  // in-flight items are rare: hold no memory between barriers
    count_ = 0;
    return out;
  }

 private:
  void stop(std::size_t index) noexcept {
    if (recording_[index] == 0) return;
    recording_[index] = 0;
    --recording_count_;
  }

  std::uint64_t id_ = 0;
  std::vector<char> recording_;  // per input
  std::size_t recording_count_ = 0;
  std::string encoded_;
  std::uint64_t count_ = 0;
};

}  // namespace spate::flow::detail
