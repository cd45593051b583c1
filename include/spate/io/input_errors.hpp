#pragma once
// Malformed input records, counted and named, never dropped silently: every source of the
// io layer records each record it cannot read here (with its line number and why), keeps
// going, and the job reports them at the end.
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>
#include "spate/platform/export.hpp"

namespace spate::io {

/// One malformed record: where it was and what is wrong with it.
struct input_error {
  std::uint64_t line;  ///< its line number, from 1
  std::string reason;  ///< what is wrong, e.g. "not valid UTF-8 at byte 5"
};

/// Malformed records: a count and the first few, with line numbers and reasons.
/// Threading: record() from any thread (the lock is taken only for malformed records);
/// readers take a consistent copy.
class input_errors {
 public:
  /// Keeps the first `examples_kept` records in full; counts all of them.
  explicit input_errors(std::size_t examples_kept = 5) : examples_kept_(examples_kept) {}

  /// Records one malformed record (any thread).
  void record(std::uint64_t line, std::string reason) {
    const std::lock_guard lock(mutex_);
    ++count_;
    if (examples_.size() < examples_kept_) examples_.push_back({line, std::move(reason)});
  }
  /// Malformed records so far.
  std::uint64_t count() const {
    const std::lock_guard lock(mutex_);
    return count_;
  }
  /// The first few, in the order they were recorded.
  std::vector<input_error> examples() const {
    const std::lock_guard lock(mutex_);
    return examples_;
  }
  /// "3 malformed records skipped; the first: line 7: ..." (or "no malformed records").
  void report(std::ostream& out, const std::string& what) const {
    const std::lock_guard lock(mutex_);
    if (count_ == 0) {
      out << what << ": no malformed records\n";
      return;
    }
    out << what << ": " << count_ << " malformed record" << (count_ == 1 ? "" : "s")
        << " skipped and counted:\n";
    for (const auto& e : examples_) out << "  line " << e.line << ": " << e.reason << '\n';
    if (count_ > examples_.size()) out << "  ...\n";
  }

 private:
  mutable std::mutex mutex_;
  std::uint64_t count_ = 0;
  std::vector<input_error> examples_;
  std::size_t examples_kept_;
};

/// The byte offset of the first byte that breaks UTF-8 (overlong forms, surrogates and code
/// points past U+10FFFF included), or npos when `text` is valid.
SPATE_API std::size_t first_invalid_utf8(const std::string& text) noexcept;

}  // namespace spate::io
