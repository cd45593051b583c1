#pragma once
// One worker's session windows, for every key routed to it: the sequential core of
// window::sessions (sessions.hpp; the semantics are in session_window.hpp).
//
// A key's open sessions are disjoint and sorted by start, so their ends increase too. A tuple
// at t belongs with every open session [s, e] of its key with s - gap <= t <= e (its own
// interval [t, t + gap] touches theirs); those are consecutive in start order: the ones from
// the first whose end reaches t up to the last whose start is at most t + gap. They merge
// into the earliest, in start order, and the tuple joins it. Each merge is one call of the
// function's merge (incremental) or a merge of two arrival-ordered tuple lists (not), so a
// session's tuples stay in arrival order however it grew.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <queue>
#include <span>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spate/state/codec.hpp"
#include "spate/window/detail/time_math.hpp"
#include "spate/window/detail/window_checkpoints.hpp"
#include "spate/window/session_window.hpp"
#include "spate/window/window_function.hpp"

namespace spate::window::detail {

template <class Key, class T, class F>
class session_keeper {
  static constexpr bool incremental = is_incremental<F>::value;
  using accumulator_type = typename is_incremental<F>::accumulator;

 public:
  static_assert(!incremental || is_incremental<F>::mergeable,
                "window::sessions: sessions merge when a tuple bridges two of them; give the "
                "incremental function a merge: window::incremental<Acc>(update, result, "
                "merge) with merge(Acc& into, const Acc& from)");
  using value_type = typename window_result_of<F, Key, T>::type;
  using result_type = session_result<Key, value_type>;
  /// A checkpoint's copy of one session: its end, its accumulator (incremental) or its
  /// tuples and their arrival numbers, and its tuple count.
  using kept_session = std::conditional_t<
      incremental, std::tuple<std::uint64_t, accumulator_type, std::uint64_t>,
      std::tuple<std::uint64_t, std::vector<T>, std::vector<std::uint64_t>, std::uint64_t>>;
  /// The sessions' shape (gap, lateness, 0), the next arrival number, per key per session
  /// start its copy.
  using kept = std::tuple<window_shape, std::uint64_t,
                          std::unordered_map<Key, std::map<std::uint64_t, kept_session>>>;
  static constexpr bool checkpointable = state::encodable<kept>;

  session_keeper(session_window spec, F f) : spec_(spec), f_(std::move(f)) {}

  // A tuple at `time` for `key`: joins, and possibly merges, the key's open sessions.
  void add(const Key& key, const T& tuple, std::uint64_t time) {
    auto& sessions = keys_[key];
    std::uint64_t start = time, end = saturating_add(time, spec_.gap);
    auto last = sessions.upper_bound(end);  // after the last session starting at or before end
    auto first = last;
    while (first != sessions.begin() && std::prev(first)->second.end >= time) --first;
    open_session joined;
    // The earliest session joined keeps its entry in due_ when its start stays: the entry's
    // end may then lag the session's, and advance() pushes it again when it comes up.
    bool new_start = true;
    if (first != last) {
      new_start = time < first->first;
      start = std::min(start, first->first);
      joined = std::move(first->second);
      for (auto it = std::next(first); it != last; ++it) absorb(joined, std::move(it->second));
      sessions.erase(first, last);
    }
    joined.end = std::max(joined.end, end);
    ++joined.tuples;
    if constexpr (incremental) {
      f_.update(joined.accumulator, tuple);
    } else {
      joined.held.push_back(tuple);
      joined.arrivals.push_back(next_arrival_++);
    }
    if (new_start) due_.push({joined.end, start, key});
    sessions.emplace(start, std::move(joined));
  }

  // The watermark reached `watermark`: every session whose end is before it fires, in end
  // order, which per key is start order (a key's open sessions are disjoint). The sessions
  // due are found through `due_`, not by a scan of the keys: a watermark that moves with
  // every tuple costs only the sessions it fires.
  //
  // due_ holds, for every open session, an entry with its start and an end no later than
  // its own (a session that grows keeps its entry); an entry that comes up early is pushed
  // again with the session's end. So a session is found once its end passes, and due_
  // holds about one entry per session (plus one per merge, skipped when it comes up),
  // not one per tuple.
  template <class Emit>
  void advance(std::uint64_t watermark, Emit&& emit) {
    while (!due_.empty() && due_.top().end < watermark) {
      const due d = due_.top();
      due_.pop();
      const auto k = keys_.find(d.key);
      if (k == keys_.end()) continue;
      const auto s = k->second.find(d.start);
      if (s == k->second.end()) continue;  // merged into an earlier session since
      if (s->second.end != d.end) {        // grown since: due later
        due_.push({s->second.end, d.start, d.key});
        continue;
      }
      emit(close(k->first, s->first, s->second, true));
      k->second.erase(s);
      // A key without open sessions holds no memory: keys come and go (user ids, sessions).
      if (k->second.empty()) keys_.erase(k);
    }
  }

  // The end of the stream: every open session fires, incomplete.
  template <class Emit>
  void flush(Emit&& emit) {
    for (auto& [key, sessions] : keys_)
      for (auto& [start, s] : sessions) emit(close(key, start, s, false));
    keys_.clear();
    due_ = {};
  }

  // Entries in the queue of sessions due: about one per open session (tests).
  std::size_t scheduled() const noexcept { return due_.size(); }

  kept snapshot() const {
    kept k{shape(), next_arrival_, {}};
    for (const auto& [key, sessions] : keys_) {
      auto& out = std::get<2>(k)[key];
      for (const auto& [start, s] : sessions) {
        if constexpr (incremental)
          out.emplace(start, kept_session{s.end, s.accumulator, s.tuples});
        else
          out.emplace(start, kept_session{s.end, s.held, s.arrivals, s.tuples});
      }
    }
    return k;
  }
  // Before the first tuple; throws for sessions of another shape or a key whose tuples
  // `owns_key` says go elsewhere.
  template <class OwnsKey>
  void restore(kept k, const OwnsKey& owns_key) {
    check_window_shape(std::get<0>(k), shape());
    next_arrival_ = std::get<1>(k);
    keys_.clear();
    due_ = {};
    for (auto& [key, sessions] : std::get<2>(k)) {
      if (!owns_key(key)) foreign_key();
      auto& open = keys_[key];
      for (auto& [start, ks] : sessions) {
        open_session& s = open[start];
        if constexpr (incremental) {
          std::tie(s.end, s.accumulator, s.tuples) = std::move(ks);
        } else {
          std::tie(s.end, s.held, s.arrivals, s.tuples) = std::move(ks);
        }
        due_.push({s.end, start, key});
      }
    }
  }

 private:
  window_shape shape() const noexcept { return {spec_.gap, spec_.lateness, 0}; }

  struct open_session {
    std::uint64_t end = 0;  // newest tuple's time + gap
    [[no_unique_address]] accumulator_type accumulator{};
    std::vector<T> held;                  // non-incremental: in arrival order
    std::vector<std::uint64_t> arrivals;  // non-incremental: held's arrival numbers
    std::uint64_t tuples = 0;
  };

  // `later` (a session starting after `into`'s) becomes part of `into`.
  void absorb(open_session& into, open_session&& later) {
    into.end = std::max(into.end, later.end);
    into.tuples += later.tuples;
    if constexpr (incremental) {
      f_.merge(into.accumulator, later.accumulator);
    } else {
      std::vector<T> held;
      std::vector<std::uint64_t> arrivals;
      held.reserve(into.held.size() + later.held.size());
      arrivals.reserve(held.capacity());
      std::size_t a = 0, b = 0;
      while (a < into.held.size() || b < later.held.size()) {
        const bool from_into = b == later.held.size() ||
                               (a < into.held.size() && into.arrivals[a] < later.arrivals[b]);
        auto& source = from_into ? into : later;
        std::size_t& at = from_into ? a : b;
        held.push_back(std::move(source.held[at]));
        arrivals.push_back(source.arrivals[at]);
        ++at;
      }
      into.held = std::move(held);
      into.arrivals = std::move(arrivals);
    }
  }

  result_type close(const Key& key, std::uint64_t start, open_session& s, bool complete) {
    if constexpr (incremental)
      return result_type{key, start, s.end, f_.result(key, s.accumulator), complete, s.tuples};
    else
      return result_type{key,      start,   s.end, f_(key, std::span<const T>(s.held)),
                         complete, s.tuples};
  }

  // A session's start and key and an end no later than its own, for the watermark to find
  // (see advance()).
  struct due {
    std::uint64_t end, start;
    Key key;
  };
  struct later_first {
    bool operator()(const due& a, const due& b) const noexcept { return a.end > b.end; }
  };

  session_window spec_;
  F f_;
  std::priority_queue<due, std::vector<due>, later_first> due_;  // earliest end on top
  std::uint64_t next_arrival_ = 0;  // non-incremental: numbers tuples in arrival order
  std::unordered_map<Key, std::map<std::uint64_t, open_session>> keys_;
};

}  // namespace spate::window::detail
