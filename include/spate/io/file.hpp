#pragma once
// Files as streams: a line source and a line sink.
//
//   auto errors = std::make_shared<spate::io::input_errors>();
//   flow::graph job(flow::pipeline(
//       spate::io::line_source("input.txt", errors),            // text_line{number, text}
//       flow::map([](spate::io::text_line& l) { return to_upper(l.text); }),
//       spate::io::file_sink("output.txt")));
//   job.run();
//   errors->report(std::cerr, "input.txt");
//
// The source reads as fast as the graph takes lines: send_next suspends it on a full edge,
// so a file of any size streams through a bounded amount of memory. A line that is not
// valid UTF-8 (when checked), or longer than max_line_bytes (1 MiB by default: the rest of
// such a line is skipped, never held in memory), is recorded in the input_errors, with its
// number, and left out; reading goes on with the next line. Errors opening or reading a
// file name it and carry the system's reason ("cannot open 'x.csv': No such file or
// directory").
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "spate/flow/node.hpp"
#include "spate/flow/stages.hpp"
#include "spate/io/input_errors.hpp"
#include "spate/state/codec.hpp"

namespace spate::io {

/// A line of text and its number in the input.
struct text_line {
  std::uint64_t number;  ///< from 1
  std::string text;      ///< without the line break ("\r\n" counts as one)
};

}  // namespace spate::io

/// A line's bytes in a checkpoint: unaligned checkpoints store the lines in flight.
template <>
struct spate::state::codec<spate::io::text_line> {
  /// Appends the line's number, then its text.
  static void encode(const io::text_line& line, byte_writer& out) {
    state::encode(line.number, out);
    state::encode(line.text, out);
  }
  /// Reads one line; throws decode_error on corrupt or truncated input.
  static io::text_line decode(byte_reader& in) {
    const auto number = state::decode<std::uint64_t>(in);
    return {number, state::decode<std::string>(in)};
  }
};

namespace spate::io {

/// How line_source reads.
struct line_source_options {
  bool check_utf8 = true;                 ///< lines that are not UTF-8 are malformed records
  std::size_t lines_per_produce = 256;    ///< lines read per produce() call (between yields)
  std::size_t max_line_bytes = 1u << 20;  ///< longer lines are malformed records (skipped)
};

/// `what` and the system's reason for the last failed call (errno), e.g. "cannot open
/// 'x.csv': No such file or directory".
inline std::string with_os_reason(const std::string& what, int error) {
  return what + ": " + (error != 0 ? std::strerror(error) : "unknown reason");
}

namespace detail {

/// Reads a file's lines one at a time, recording (and skipping) those that are not UTF-8 or
/// longer than the limit. A long line is read in chunks and its excess skipped, so memory
/// stays bounded by the limit whatever the file holds.
class line_input {
 public:
  line_input(std::string path, std::shared_ptr<input_errors> errors, bool check_utf8,
             std::size_t max_line_bytes = 1u << 20)
      : path_(std::move(path)),
        errors_(std::move(errors)),
        check_utf8_(check_utf8),
        max_line_bytes_(max_line_bytes) {}

  void open(const char* who) {
    errno = 0;
    file_.open(path_, std::ios::binary);
    if (!file_) {
      throw std::runtime_error(
          with_os_reason(std::string(who) + ": cannot open '" + path_ + "'", errno));
    }
    chunk_.resize(64 * 1024);
  }
  /// Bytes read and lines counted so far (checkpoint positions).
  std::uint64_t offset() const noexcept { return offset_; }
  std::uint64_t line_number() const noexcept { return number_; }
  /// After open(): goes on after `offset` bytes, the first `line` lines. An offset past the
  /// end of the file (it shrank since the checkpoint) is an error naming both.
  void seek(std::uint64_t offset, std::uint64_t line, const char* who) {
    file_.seekg(0, std::ios::end);
    const auto size = static_cast<std::uint64_t>(file_.tellg());
    if (offset > size) {
      throw std::runtime_error(std::string(who) + ": the checkpoint's position, byte " +
                               std::to_string(offset) + " (line " + std::to_string(line) +
                               "), is past the end of '" + path_ + "' (" + std::to_string(size) +
                               " bytes): the file changed since");
    }
    file_.seekg(static_cast<std::streamoff>(offset));
    offset_ = offset;
    number_ = line;
  }
  /// The next well-formed line, or nullopt at the end of the file.
  std::optional<text_line> next_line() {
    std::string text;
    while (read_line(text)) {
      ++number_;
      if (length_ > max_line_bytes_) {
        errors_->record(number_, "'" + path_ + "' line " + std::to_string(number_) + ": " +
                                     std::to_string(length_) + " bytes, longer than the limit of " +
                                     std::to_string(max_line_bytes_) + " (max_line_bytes)");
        continue;
      }
      if (!text.empty() && text.back() == '\r') text.pop_back();
      if (check_utf8_) {
        const std::size_t bad = first_invalid_utf8(text);
        if (bad != std::string::npos) {
          errors_->record(number_, "not valid UTF-8 at byte " + std::to_string(bad + 1));
          continue;
        }
      }
      return text_line{number_, std::move(text)};
    }
    if (file_.bad()) {
      throw std::runtime_error(with_os_reason(
          "spate::io: read error in '" + path_ + "' after line " + std::to_string(number_), errno));
    }
    return std::nullopt;
  }

 private:
  // One line into `text` (without the break) and its full length into length_; `text` stays
  // empty past the limit. False at the end of the file.
  bool read_line(std::string& text) {
    text.clear();
    length_ = 0;
    bool any = false;
    while (true) {
      errno = 0;
      file_.getline(chunk_.data(), static_cast<std::streamsize>(chunk_.size()));
      const auto got = static_cast<std::size_t>(file_.gcount());
      offset_ += got;
      const bool chunk_full = file_.fail() && !file_.eof() && !file_.bad();
      if (!chunk_full) {
        // The line ended: at a break (extracted, counted in gcount) or at the end of file.
        if (!any && got == 0 && file_.eof()) return false;
        if (file_.bad()) return false;
        const std::size_t stored = got - (file_.eof() ? 0 : 1);
        length_ += stored;
        if (length_ <= max_line_bytes_) text.append(chunk_.data(), stored);
        if (!file_.eof()) file_.clear();
        return true;
      }
      // chunk_.size() - 1 bytes and no break yet: the line goes on.
      file_.clear();
      any = true;
      length_ += got;
      if (length_ <= max_line_bytes_) {
        text.append(chunk_.data(), got);
      } else {
        text.clear();
      }
    }
  }

  std::string path_;
  std::shared_ptr<input_errors> errors_;
  bool check_utf8_;
  std::size_t max_line_bytes_;
  std::ifstream file_;
  std::vector<char> chunk_;
  std::size_t length_ = 0;
  std::uint64_t number_ = 0;
  std::uint64_t offset_ = 0;  // bytes extracted, line breaks included
};

class line_reader : public flow::source<text_line> {
 public:
  line_reader(std::string path, std::shared_ptr<input_errors> errors, line_source_options options)
      : input_(std::move(path), std::move(errors), options.check_utf8, options.max_line_bytes),
        lines_per_produce_(options.lines_per_produce) {}

  void on_start() {
    input_.open("spate::io::line_source");
    if (resume_at_) input_.seek(resume_at_->first, resume_at_->second, "spate::io::line_source");
  }
  /// Checkpoints (flow/checkpoints.hpp): bytes read and lines counted; a restore goes on
  /// after them.
  std::pair<std::uint64_t, std::uint64_t> checkpoint_position() const {
    return {input_.offset(), input_.line_number()};
  }
  void seek(const std::pair<std::uint64_t, std::uint64_t>& position) { resume_at_ = position; }
  bool produce() {
    for (std::size_t i = 0; i < lines_per_produce_; ++i) {
      std::optional<text_line> line = input_.next_line();
      if (!line) return false;
      send_next(std::move(*line));
    }
    return true;
  }

 private:
  line_input input_;
  std::size_t lines_per_produce_;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> resume_at_;
};

class line_writer : public flow::node<std::string, void> {
 public:
  explicit line_writer(std::string path) : path_(std::move(path)) {}
  void on_start() {
    errno = 0;
    file_.open(path_, std::ios::binary | std::ios::trunc);
    if (!file_) {
      throw std::runtime_error(
          with_os_reason("spate::io::file_sink: cannot create '" + path_ + "'", errno));
    }
  }
  void consume(std::string& line) {
    file_.write(line.data(), static_cast<std::streamsize>(line.size()));
    file_.put('\n');
    if (!file_) fail();
  }
  void on_stop() {
    file_.flush();
    if (!file_) fail();
  }

 private:
  [[noreturn]] void fail() {
    throw std::runtime_error(
        with_os_reason("spate::io::file_sink: cannot write to '" + path_ + "'", errno));
  }
  std::string path_;
  std::ofstream file_;
};

}  // namespace detail

/// A source of the file's lines in order; one replica (a file is read sequentially).
inline auto line_source(std::string path, std::shared_ptr<input_errors> errors,
                        line_source_options options = {}) {
  if (!errors) throw std::invalid_argument("spate::io::line_source: errors must not be null");
  return flow::make_stage<detail::line_reader>(path, errors, options).named("lines(" + path + ")");
}

/// A sink writing each string as a line (truncates the file first). Write errors fail the
/// graph with the path named.
inline auto file_sink(std::string path) {
  return flow::make_stage<detail::line_writer>(path).named("file(" + path + ")");
}

}  // namespace spate::io
