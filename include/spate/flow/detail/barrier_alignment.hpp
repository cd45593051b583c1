#pragma once
// Barrier alignment on a consumer's input links (flow/checkpoints.hpp, step 2; [ABS]
// Carbone et al. 2015, Sect. 3.1): which inputs are held at the barrier being aligned, when
// the barrier may pass, and the idle re-check while some are held. Every consumer that takes
// part in checkpoints (node_task, collector_task) aligns through this class.
//
// # Protocol (the consumer's activation; markers as in exec/link.hpp M1..M3)
//
//   A1. begin(): before it examines any input, the consumer reads the sum of its inputs'
//       markers_posted() (M2).
//   A2. An input whose next element is the barrier (at_marker()) is held: the consumer
//       reads it no more until the barrier passes, and reads the others on.
//   A3. ready(): every input is held or has ended (closed, drained, no marker due: an input
//       that ends without the barrier counts as aligned, as in Flink's checkpoints after
//       tasks finish). An input that ended before a marker it holds (link M3,
//       ended_before_marker()) does not: its producer passed the barrier and snapshotted
//       state that counts items it then dropped when it was cancelled, so a barrier passed
//       here would complete a checkpoint without them (tests/state rocksdb_backend
//       a_restart_resumes_... lost one update in about ten loaded runs before this rule).
//       The graph is being cancelled, and the consumer ends as cancelled instead. Once
//       ready, the consumer posts the barrier downstream, snapshots its state, and
//       release()s: the markers are popped and every input is read again.
//   A4. Going idle while inputs are held, the re-check (idle_check()) reports news when a
//       marker was posted since A1, an input closed since the consumer counted closures, or
//       an input that is not held has items. Items on a held input are not news: the
//       consumer would not read them.
//
// # Why nothing is stranded
//
// The re-check reads atomics and copies only (held flags and counts copied when it is made):
// it may run beside the consumer's next activation. A held input needs nothing from its
// producer to pass. An input not held gets news by items (I2), a marker (counted from A1, so
// one posted while the consumer examined its inputs is news), or its close (counted by the
// consumer after its last read; a consumer that counts closures must check ready() again
// after counting, since an input may have ended between its read and the count: node_task
// does).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "spate/exec/link.hpp"

namespace spate::flow::detail {

template <class E>
class barrier_alignment {
 public:
  using inputs_type = std::vector<link<E>*>;

  void add_input() { held_.push_back(0); }

  // A1.
  void begin(const inputs_type& inputs) noexcept { markers_seen_ = markers_posted(inputs); }
  // The count A1 read (unaligned barriers' wait for room re-checks against it too).
  std::size_t markers_seen() const noexcept { return markers_seen_; }

  bool held(std::size_t input) const noexcept { return held_[input] != 0; }
  // Some input is held: a barrier is being aligned.
  bool aligning() const noexcept { return held_count_ != 0; }
  // The barrier being aligned.
  std::uint64_t id() const noexcept { return id_; }

  // A2: input `index`, at its marker, is held. Throws std::logic_error for a barrier of
  // another id than the one being aligned (the coordinator sends one at a time, C1).
  void hold(std::size_t index, const link<E>& input) {
    const std::uint64_t id = input.front_marker()->id;
    if (held_count_ == 0) {
      id_ = id;
    } else if (id != id_) {
      throw std::logic_error("spate::flow: barrier " + std::to_string(id) +
                             " arrived while aligning " + std::to_string(id_));
    }
    held_[index] = 1;
    ++held_count_;
  }

  // A3. (ended() is a consumer method: the activation only.)
  bool ready(const inputs_type& inputs) {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (held_[i]) continue;
      if (!inputs[i]->ended() || inputs[i]->ended_before_marker()) return false;
    }
    return true;
  }
  // A3, once the barrier went downstream and the state was snapshotted.
  void release(const inputs_type& inputs) noexcept {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (held_[i]) inputs[i]->pop_marker();
      held_[i] = 0;
    }
    held_count_ = 0;
  }

  // A4: the idle re-check, with copies of what the next activation may change.
  class idle_check {
   public:
    idle_check(const barrier_alignment& a, const inputs_type& inputs, std::size_t closed_before)
        : inputs_(&inputs),
          held_(a.held_count_ != 0 ? a.held_ : std::vector<char>()),
          markers_(a.markers_seen_),
          closed_before_(closed_before) {}
    bool operator()() const noexcept {
      if (markers_posted(*inputs_) != markers_) return true;
      std::size_t closed = 0;
      for (auto* e : *inputs_) closed += e->is_closed() ? 1 : 0;
      if (closed != closed_before_) return true;
      for (std::size_t i = 0; i < inputs_->size(); ++i) {
        if ((held_.empty() || !held_[i]) && (*inputs_)[i]->size_approx() != 0) return true;
      }
      return false;
    }

   private:
    const inputs_type* inputs_;  // fixed once the graph is built
    std::vector<char> held_;     // empty: none held
    std::size_t markers_;
    std::size_t closed_before_;
  };

  static std::size_t markers_posted(const inputs_type& inputs) noexcept {
    std::size_t total = 0;
    for (auto* e : inputs) total += e->markers_posted();
    return total;
  }

 private:
  std::vector<char> held_;  // per input
  std::size_t held_count_ = 0;
  std::uint64_t id_ = 0;
  std::size_t markers_seen_ = 0;  // A1
};

}  // namespace spate::flow::detail
