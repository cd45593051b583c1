#pragma once
// What both word-count demos share: options, tokenising, reading the text, progress,
// ranking and checking.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "apps/word_count/words.hpp"
#include "demo_options.hpp"
#include "spate/exec/scheduler_config.hpp"

namespace wordcount {

using apps::word_count::for_each_word;
using apps::word_count::is_valid_utf8;

using word_counts = std::unordered_map<std::string, std::uint64_t>;

// The options both demos take.
struct text_options {
  std::string file = "data/wordcount/book.dat";
  int replay = 100;
  std::size_t top = 10;
};
inline void add_text_options(demo_options& options, text_options& o) {
  options.add("--file", o.file, "text to count, one paragraph per line");
  options.add("--replay", o.replay, "count the text this many times", 1, 1000000);
  options.add("--top", o.top, "how many of the most frequent words to print", std::size_t(0),
              std::size_t(1000000));
}

// Reads the scheduler's settings (SPATE_* variables, then --spate.KEY=V arguments), then
// the demo's own options from what is left. Returns an exit code when the program should
// stop: after --help, or with a message naming a bad option.
inline std::optional<int> parse_command_line(demo_options& options,
                                             spate::scheduler_config& scheduler, int argc,
                                             char** argv) {
  try {
    scheduler.apply_environment();
    return options.parse(scheduler.apply_command_line(argc, argv));
  } catch (const spate::config_error& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
}

// Total words, distinct words and rates.
inline void print_summary(const word_counts& total, double seconds, std::size_t lines) {
  std::uint64_t words = 0;
  for (const auto& [w, n] : total) words += n;
  std::cout << "counted " << words << " words (" << total.size() << " distinct) in " << std::fixed
            << std::setprecision(3) << seconds << " s: " << std::setprecision(2)
            << words / seconds / 1e6 << " M words/s, " << lines / seconds / 1e6 << " M lines/s\n";
}

// One line of the text with its number in the file (from 1), so that a malformed line can be
// named.
struct text_line {
  std::size_t number;
  std::string text;
};

// Lines that are not valid UTF-8 are malformed records. The demos leave their words out
// (splitting them would make words of byte garbage), and count and name them instead of
// dropping them silently. Shared by the replicas of a splitter farm; the lock is taken
// only for malformed lines.
class malformed_lines {
 public:
  void record(std::size_t line_number) {
    const std::lock_guard lock(mutex_);
    ++records_;
    line_numbers_.insert(line_number);
  }
  std::uint64_t records() const {
    const std::lock_guard lock(mutex_);
    return records_;
  }
  // Nothing when every line was well-formed.
  void report(std::ostream& out) const {
    const std::lock_guard lock(mutex_);
    if (records_ == 0) return;
    out << "skipped " << records_ << " malformed records (lines that are not valid UTF-8): line"
        << (line_numbers_.size() == 1 ? "" : "s");
    constexpr std::size_t named = 10;
    std::size_t shown = 0;
    for (const std::size_t n : line_numbers_) {
      if (shown == named) {
        out << " and " << line_numbers_.size() - named << " more";
        break;
      }
      out << (shown++ == 0 ? " " : ", ") << n;
    }
    out << " of the file\n";
  }

 private:
  mutable std::mutex mutex_;
  std::uint64_t records_ = 0;
  std::set<std::size_t> line_numbers_;
};

// The text's lines, or nothing (after a message naming the file) when it cannot be read:
// CLI11 checks --file only when it is given, not the default path.
inline std::optional<std::vector<std::string>> read_lines(const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    std::cerr << "cannot read '" << file << "' (run from the repository root, or pass --file)\n";
    return std::nullopt;
  }
  std::vector<std::string> lines;
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

// Compares with a plain sequential count of the same text: the same words, and every line
// accounted for (counted, or reported as malformed). Prints the verdict, returns the exit code.
inline int check_against_sequential(const std::vector<std::string>& lines, int replay,
                                    const word_counts& total, std::uint64_t malformed_records) {
  word_counts expected;
  std::uint64_t expected_malformed = 0;
  for (const auto& l : lines) {
    if (!for_each_word(l, [&](const std::string& w) { expected[w] += replay; })) {
      expected_malformed += static_cast<std::uint64_t>(replay);
    }
  }
  if (expected != total || expected_malformed != malformed_records) {
    std::cout << "check: MISMATCH against a sequential count of the same text\n";
    return 1;
  }
  std::cout << "check: identical to a sequential count of the same text\n";
  return 0;
}

}  // namespace wordcount
