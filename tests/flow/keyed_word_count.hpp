#pragma once
// The word splitting and keyed counter the checkpoint kill tests' jobs share
// (flow/checkpoint_job.cpp, kafka/exactly_once_job.cpp): per word, its count after this occurrence,
// in keyed state.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "spate/flow.hpp"
#include "spate/state/keyed.hpp"

namespace spate::test {

using word_update = std::pair<std::string, std::int64_t>;  // a word, its count after this one

// Calls f(word) for each space-separated word of `text`, in order.
template <class F>
void for_each_word(const std::string& text, F&& f) {
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    if (end > start) f(text.substr(start, end - start));
    start = end + 1;
  }
}

struct keyed_word_count : flow::node<std::string, word_update> {
  state::value<std::int64_t> count{"count"};
  auto state_fields() { return std::tie(count); }
  void consume(std::string& word) {
    const std::int64_t n = ++count.get_or_init(0);
    send_next({std::move(word), n});
  }
};

}  // namespace spate::test
