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
// graph with another count does not fit it; flow/checkpoints.hpp). A keeper also refuses a
// window it does not own, which only a foreign checkpoint could hold.
//
// A stage whose state has no codec (state/codec.hpp) for its tuple, key, accumulator or
// result type refuses checkpoints, and so do processing-time windows, whose clock starts
// again with the process.
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
  template <class... Args>
  void make_keeper(Args&&... args) {
    keeper_.emplace(std::forward<Args>(args)...);
    if (restored_) keeper_->restore(std::move(*std::exchange(restored_, std::nullopt)));
  }
  std::optional<Keeper> keeper_;

 private:
  std::optional<kept> restored_;
};

// A window in a restored keeper's state that this keeper does not own.
[[noreturn]] inline void foreign_window(std::uint64_t window, std::uint64_t owner,
                                        std::uint64_t owners) {
  throw std::runtime_error("window " + std::to_string(window) +
                           " is not this worker's (it owns w % " + std::to_string(owners) +
                           " == " + std::to_string(owner) +
                           "): the checkpoint was taken with another worker count");
}

}  // namespace spate::window::detail
