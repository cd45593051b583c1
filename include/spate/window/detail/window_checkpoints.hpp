#pragma once
// How the window patterns' stages take part in checkpoints (flow/checkpoints.hpp).
//
// Every stage keeps its windows as state of its own: snapshot_state() copies it, on the
// stage's thread, when the barrier passes (the barrier is aligned, so the copy holds exactly
// the tuples before it), and restore_state() gives it back before on_start(). The copy is
// what each stage holds: open windows' accumulators (incremental) or tuples (not), the
// emitter's positions or watermark, the collector's results not yet released. It is not
// copy-on-write, unlike keyed state: a stage pauses for the copy, which is as large as its
// open windows.
//
// Parts go by replica name, so a checkpoint restores onto the same number of workers (a
// graph with another count does not fit it; flow/checkpoints.hpp). Each worker and the pane
// combiner also record their windows' shape (length, slide, lateness) and refuse a restore
// into windows of another shape; a keeper refuses a window it does not own and, under Key
// Partitioning, a key whose tuples go to another worker (a key hash that differs from the
// checkpoint's run).
//
// A stage whose state has no codec (state/codec.hpp) for its tuple, key, accumulator or
// result type refuses checkpoints, and so do processing-time windows, whose clock starts
// again with the process.
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace spate::window::detail {

struct takes_checkpoints {};
struct refuses_without_codec {
  static constexpr const char* refuses_checkpoints =
      "keeps windows of a type without a codec: give the tuple, key, accumulator and result "
      "types a spate::state::codec (state/codec.hpp)";
};
struct refuses_processing_time {
  static constexpr const char* refuses_checkpoints =
      "keeps processing-time windows, whose clock starts again with the process (checkpoint "
      "event-time windows instead)";
};

// A stage's base: nothing when its state has a codec, a refusal otherwise.
template <bool Encodable>
using codec_stance = std::conditional_t<Encodable, takes_checkpoints, refuses_without_codec>;

// A window worker's keeper and its part in checkpoints, for both window kinds: the keeper is
// made in on_start(), once the worker's share is known, and a restored copy (restore_state()
// runs before on_start()) waits for it there.
template <class Keeper>
class keeper_slot : public codec_stance<Keeper::checkpointable> {
 public:
  /// What a checkpoint holds of the keeper.
  using kept = typename Keeper::kept;
  /// The keeper's open windows (flow/checkpoints.hpp).
  kept snapshot_state() const
    requires Keeper::checkpointable
  {
    return keeper_->snapshot();
  }
  /// Kept until make_keeper().
  void restore_state(kept k)
    requires Keeper::checkpointable
  {
    restored_ = std::move(k);
  }

 protected:
  // `owns_key(key)`: this worker gets the key's tuples (a restored key must be one).
  template <class OwnsKey, class... Args>
  void make_keeper(const OwnsKey& owns_key, Args&&... args) {
    keeper_.emplace(std::forward<Args>(args)...);
    if (restored_) keeper_->restore(std::move(*std::exchange(restored_, std::nullopt)), owns_key);
  }
  std::optional<Keeper> keeper_;

 private:
  std::optional<kept> restored_;
};

// What a checkpoint records of a stage's windows: length, slide and lateness (count
// windows, panes: 0), checked at restore.
using window_shape = std::array<std::uint64_t, 3>;

inline void check_window_shape(const window_shape& checkpoint, const window_shape& graph) {
  if (checkpoint == graph) return;
  const auto text = [](const window_shape& w) {
    return "length " + std::to_string(w[0]) + ", slide " + std::to_string(w[1]) + ", lateness " +
           std::to_string(w[2]);
  };
  throw std::runtime_error("the checkpoint's windows are " + text(checkpoint) +
                           "; this graph's are " + text(graph));
}

// A key in a restored keeper's state whose tuples this worker does not get.
[[noreturn]] inline void foreign_key() {
  throw std::runtime_error(
      "a key whose tuples go to another worker (Key Partitioning routes by the key's "
      "std::hash, which differs from the run that took the checkpoint)");
}

// A window in a restored keeper's state that this keeper does not own.
[[noreturn]] inline void foreign_window(std::uint64_t window, std::uint64_t owner,
                                        std::uint64_t owners) {
  throw std::runtime_error("window " + std::to_string(window) +
                           " is not this worker's (it owns w % " + std::to_string(owners) +
                           " == " + std::to_string(owner) +
                           "): the checkpoint was taken with another worker count");
}

}  // namespace spate::window::detail
