#pragma once
// Word Count (StreamBenchmarks' WordCount; the CAF-PP paper's WC, Sect. 5): lines of text →
// a splitter (flat map: line → words) → a counter keyed by word, which emits each word with
// its running count → sink. The words are the demo's (`words.hpp`, shared with
// examples/wordcount.cpp); a line that is not valid UTF-8 is a malformed record, counted when
// the text is loaded.
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "../common/operator_node.hpp"
#include "words.hpp"

namespace apps::word_count {

struct line {
  std::string text;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
};

struct word {
  std::string text;
  std::size_t hash = 0;   // of text (std::hash<std::string_view>), made once by the splitter
  std::uint64_t seq = 0;  // the line's
  std::int64_t stamp_ns = 0;
};

// A word and how many times it has been counted so far, this one included.
struct word_count {
  std::string text;
  std::uint64_t count = 0;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
};

using word_counts = std::unordered_map<std::string, std::uint64_t>;

inline std::optional<line> parse(std::string_view text) {
  if (!is_valid_utf8(text)) return std::nullopt;
  return line{std::string(text)};
}

// The operators. Each one's work is `process(item, emit)`, which the flow node's consume(), the
// CAF actors of `spate-bench apps` and the sequential reference all call.
//
// A word is hashed once, by the splitter; the counter's farm routes on that hash and the
// counter looks the word up with it. Lines were checked for UTF-8 when they were read
// (`parse`), so the splitter does not check them again.
class splitter : public operator_node<splitter, line, word> {
 public:
  template <class Emit>
  void process(const line& l, Emit&& emit) {
    for_each_word_of_valid_utf8(l.text, [&](const std::string& w) {
      emit(word{w, std::hash<std::string_view>{}(w), l.seq, l.stamp_ns});
    });
  }
};

class counter : public operator_node<counter, word, word_count> {
 public:
  /// What the counter's farm routes on: the hash the splitter made.
  static std::size_t key_of(const word& w) noexcept { return w.hash; }

  /// The flow node's item is its own: the word's text moves into the output.
  template <class Emit>
  void process(word& w, Emit&& emit) {
    const std::uint64_t n = count(w);
    emit(word_count{std::move(w.text), n, w.seq, w.stamp_ns});
  }
  /// A CAF message is shared: the text is copied.
  template <class Emit>
  void process(const word& w, Emit&& emit) {
    const std::uint64_t n = count(w);
    emit(word_count{w.text, n, w.seq, w.stamp_ns});
  }

 private:
  // A word with the hash it carries, looked up without hashing it again.
  struct hashed_word {
    std::string_view text;
    std::size_t hash;
  };
  // Not noexcept on purpose: libstdc++ then keeps each node's hash, so a lookup compares
  // stored hashes and never hashes a stored word again (it would for a noexcept hash).
  struct carried_hash {
    using is_transparent = void;
    std::size_t operator()(const hashed_word& w) const { return w.hash; }
    std::size_t operator()(const std::string& s) const { return std::hash<std::string_view>{}(s); }
  };
  struct same_text {
    using is_transparent = void;
    bool operator()(const std::string& a, const std::string& b) const noexcept { return a == b; }
    bool operator()(const hashed_word& a, const std::string& b) const noexcept {
      return a.text == b;
    }
    bool operator()(const std::string& a, const hashed_word& b) const noexcept {
      return a == b.text;
    }
  };

  std::uint64_t count(const word& w) {
    const auto found = counts_.find(hashed_word{w.text, w.hash});
    if (found != counts_.end()) return ++found->second;
    // A new word (hashed once more, when inserted); emplace also finds a word whose carried
    // hash was wrong, so a bad hash costs a lookup, never a count.
    return ++counts_.emplace(w.text, 0).first->second;
  }

  std::unordered_map<std::string, std::uint64_t, carried_hash, same_text> counts_;
};

// The counter on spate's keyed state (docs/state.md): the count lives in the runtime's
// store, bound to the word before each item, so a checkpoint can take it. The same output
// as `counter`.
class keyed_counter : public spate::flow::node<word, word_count> {
 public:
  /// What the counter's farm routes on: the word itself, the key of its keyed state (a hash
  /// would merge the counts of two words that share one).
  static const std::string& key_of(const word& w) noexcept { return w.text; }
  auto state_fields() { return std::tie(count_); }
  void consume(word& w) {
    const std::uint64_t n = ++count_.get_or_init(0u);
    send_next(word_count{std::move(w.text), n, w.seq, w.stamp_ns});
  }

 private:
  spate::state::value<std::uint64_t> count_{"count"};
};

// The graph; `Counter` is `counter` (a map the node keeps) or `keyed_counter`.
template <class Counter = counter, class Source, class Sink>
auto pipeline(Source source, Sink sink, std::size_t splitters, std::size_t counters) {
  namespace flow = spate::flow;
  return flow::pipeline(
      std::move(source), flow::farm(flow::make_stage<splitter>().named("splitter"), splitters),
      flow::farm(flow::make_stage<Counter>().named("counter"), counters,
                 flow::by_key{[](const word& w) -> decltype(auto) { return Counter::key_of(w); }}),
      std::move(sink));
}

// One splitter and one counter without farms: with operator chaining (docs/patterns.md)
// the source, the splitter and the counter run as one task, handing each line and word on
// by a function call, as WindFlow's chain() does; `Apart` keeps each a task of its own.
template <bool Apart = false, class Source, class Sink>
auto single_pipeline(Source source, Sink sink) {
  namespace flow = spate::flow;
  auto split = flow::make_stage<splitter>().named("splitter");
  auto count = flow::make_stage<counter>().named("counter");
  if constexpr (Apart) {
    return flow::pipeline(flow::unchained(std::move(source)), flow::unchained(split),
                          flow::unchained(count), std::move(sink));
  } else {
    return flow::pipeline(std::move(source), split, count, std::move(sink));
  }
}

// The reference: every word of the first `total` lines of the replay (cycling through
// `lines`), counted on one thread.
inline word_counts sequential(const std::vector<line>& lines, std::uint64_t total) {
  word_counts counts;
  if (lines.empty()) return counts;
  const std::uint64_t passes = total / lines.size(), rest = total % lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::uint64_t times = passes + (i < rest ? 1 : 0);
    if (times != 0) for_each_word(lines[i].text, [&](const std::string& w) { counts[w] += times; });
  }
  return counts;
}

// What a sink checks as the running counts arrive: each word's counts come from one counter
// replica in the order it made them, so they must be 1, 2, 3, … with none missing or
// repeated, and end at the sequential count.
class running_counts_check {
 public:
  void add(const word_count& c) {
    std::uint64_t& last = last_[c.text];
    if (c.count != last + 1) ++out_of_sequence_;
    last = c.count;
    ++outputs_;
  }
  std::uint64_t outputs() const noexcept { return outputs_; }
  std::uint64_t out_of_sequence() const noexcept { return out_of_sequence_; }
  bool matches(const word_counts& expected) const {
    return out_of_sequence_ == 0 && last_ == expected;
  }

 private:
  word_counts last_;
  std::uint64_t outputs_ = 0, out_of_sequence_ = 0;
};

}  // namespace apps::word_count
