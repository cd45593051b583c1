#pragma once
// What both word-count demos share: tokenising, reading the text, ranking and checking.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wordcount {

using word_counts = std::unordered_map<std::string, std::uint64_t>;

// Words are runs of ASCII letters, lower-cased; anything else separates them.
template <class F>
void for_each_word(const std::string& line, F&& f) {
  std::string word;
  for (char c : line) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      word += static_cast<char>(c | 0x20);
    } else if (!word.empty()) {
      f(word);
      word.clear();
    }
  }
  if (!word.empty()) f(word);
}

inline std::vector<std::string> read_lines(const std::string& file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string l; std::getline(in, l);) lines.push_back(std::move(l));
  return lines;
}

inline void print_top(const word_counts& total, std::size_t top) {
  std::vector<std::pair<std::string, std::uint64_t>> ranked(total.begin(), total.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::cout << "top " << std::min(top, ranked.size()) << " words:\n";
  for (std::size_t i = 0; i < std::min(top, ranked.size()); ++i) {
    std::cout << "  " << std::setw(10) << ranked[i].second << "  " << ranked[i].first << '\n';
  }
}

// Compares with a plain sequential count; prints the verdict and returns the exit code.
inline int check_against_sequential(const std::vector<std::string>& lines, int replay,
                                    const word_counts& total) {
  word_counts expected;
  for (const auto& l : lines)
    for_each_word(l, [&](const std::string& w) { expected[w] += replay; });
  if (expected != total) {
    std::cout << "check: MISMATCH against a sequential count of the same text\n";
    return 1;
  }
  std::cout << "check: identical to a sequential count of the same text\n";
  return 0;
}

}  // namespace wordcount
