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
// valid UTF-8 (when checked) is recorded in the input_errors, with its number, and left out.
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "spate/flow/node.hpp"
#include "spate/flow/stages.hpp"
#include "spate/io/input_errors.hpp"

namespace spate::io {

/// A line of text and its number in the input.
struct text_line {
  std::uint64_t number;  ///< from 1
  std::string text;      ///< without the line break ("\r\n" counts as one)
};

/// How line_source reads.
struct line_source_options {
  bool check_utf8 = true;                  ///< lines that are not UTF-8 are malformed records
  std::size_t lines_per_activation = 256;  ///< lines read per activation of the source
};

namespace detail {

/// Reads a file's lines one at a time, recording (and skipping) those that are not UTF-8.
class line_input {
 public:
  line_input(std::string path, std::shared_ptr<input_errors> errors, bool check_utf8)
      : path_(std::move(path)), errors_(std::move(errors)), check_utf8_(check_utf8) {}

  void open(const char* who) {
    file_.open(path_, std::ios::binary);
    if (!file_) throw std::runtime_error(std::string(who) + ": cannot open '" + path_ + "'");
  }
  /// The next well-formed line, or nullopt at the end of the file.
  std::optional<text_line> next_line() {
    std::string text;
    while (std::getline(file_, text)) {
      ++number_;
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
      throw std::runtime_error("spate::io: read error in '" + path_ + "' after line " +
                               std::to_string(number_));
    }
    return std::nullopt;
  }

 private:
  std::string path_;
  std::shared_ptr<input_errors> errors_;
  bool check_utf8_;
  std::ifstream file_;
  std::uint64_t number_ = 0;
};

class line_reader : public flow::source<text_line> {
 public:
  line_reader(std::string path, std::shared_ptr<input_errors> errors, line_source_options options)
      : input_(std::move(path), std::move(errors), options.check_utf8),
        lines_per_activation_(options.lines_per_activation) {}

  void on_start() { input_.open("spate::io::line_source"); }
  bool produce() {
    for (std::size_t i = 0; i < lines_per_activation_; ++i) {
      std::optional<text_line> line = input_.next_line();
      if (!line) return false;
      send_next(std::move(*line));
    }
    return true;
  }

 private:
  line_input input_;
  std::size_t lines_per_activation_;
};

class line_writer : public flow::node<std::string, void> {
 public:
  explicit line_writer(std::string path) : path_(std::move(path)) {}
  void on_start() {
    file_.open(path_, std::ios::binary | std::ios::trunc);
    if (!file_) throw std::runtime_error("spate::io::file_sink: cannot create '" + path_ + "'");
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
    throw std::runtime_error("spate::io::file_sink: cannot write to '" + path_ +
                             "' (disk full or file gone?)");
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
