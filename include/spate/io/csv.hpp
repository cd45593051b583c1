#pragma once
// CSV files as typed streams: csv_source<int, std::string, double>(path, errors) emits one
// std::tuple<int, std::string, double> per row.
//
// Fields follow RFC 4180: separated by `separator`, optionally quoted, a quote inside a
// quoted field doubled (""); a quoted field may not span lines. Columns are std::string,
// integers, floating point or bool (true/false/1/0); numbers may be padded with spaces. A
// row with the wrong number of fields, a field that does not convert, or bytes that are not
// UTF-8 is recorded in the input_errors with its line number, column and reason, and left
// out; the rows around it go on. So is a line longer than max_line_bytes (1 MiB by
// default), whose error names the file, the line and its length.
#include <charconv>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/io/file.hpp"
#include "spate/platform/export.hpp"

namespace spate::io {

/// How csv_source reads.
struct csv_options {
  char separator = ',';    ///< between fields
  bool header = true;      ///< the first line names the columns (used in error messages)
  bool check_utf8 = true;  ///< rows that are not UTF-8 are malformed records
  /// Longer lines are malformed records, skipped without being held in memory.
  std::size_t max_line_bytes = 1u << 20;
};

template <class T>
concept csv_column = std::is_same_v<T, std::string> || std::is_same_v<T, bool> ||
    std::is_integral_v<T> || std::is_floating_point_v<T>;

/// Splits one line into fields; false with `error` set when a quote is not closed or text
/// follows a closing quote.
SPATE_API bool split_csv_line(std::string_view line, char separator, std::vector<std::string>& fields,
                    std::string& error);

namespace detail {

inline std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// Converts a field; returns what is wrong with it, or an empty string.
template <csv_column T>
std::string convert_field(const std::string& field, T& out) {
  if constexpr (std::is_same_v<T, std::string>) {
    out = field;
    return {};
  } else if constexpr (std::is_same_v<T, bool>) {
    const auto s = trim_spaces(field);
    if (s == "true" || s == "1") {
      out = true;
    } else if (s == "false" || s == "0") {
      out = false;
    } else {
      return "'" + field + "' is not a bool (true, false, 1 or 0)";
    }
    return {};
  } else {
    const auto s = trim_spaces(field);
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (error == std::errc::result_out_of_range) {
      return "'" + field + "' is out of range for its column";
    }
    if (error != std::errc{} || end != s.data() + s.size() || s.empty()) {
      return "'" + field + "' is not " + (std::is_integral_v<T> ? "an integer" : "a number");
    }
    return {};
  }
}

template <csv_column... Columns>
class csv_reader : public flow::source<std::tuple<Columns...>> {
 public:
  using row = std::tuple<Columns...>;
  csv_reader(std::string path, std::shared_ptr<input_errors> errors, csv_options options)
      : lines_(std::move(path), errors, options.check_utf8, options.max_line_bytes),
        errors_(std::move(errors)),
        options_(options) {}

  void on_start() { lines_.open("spate::io::csv_source"); }
  bool produce() {
    for (std::size_t i = 0; i < 256; ++i) {
      std::optional<text_line> line = lines_.next_line();
      if (!line) return false;
      if (options_.header && !header_read_) {
        header_read_ = true;
        std::string error;
        if (!split_csv_line(line->text, options_.separator, names_, error)) {
          errors_->record(line->number, "header: " + error);
        }
        continue;
      }
      row r;
      if (parse(*line, r)) this->send_next(std::move(r));
    }
    return true;
  }

 private:
  bool parse(const text_line& line, row& r) {
    std::string error;
    if (!split_csv_line(line.text, options_.separator, fields_, error)) {
      errors_->record(line.number, error);
      return false;
    }
    if (fields_.size() != sizeof...(Columns)) {
      errors_->record(line.number, "expected " + std::to_string(sizeof...(Columns)) +
                                       " fields, found " + std::to_string(fields_.size()));
      return false;
    }
    return convert_all(line.number, r, std::index_sequence_for<Columns...>{});
  }
  template <std::size_t... I>
  bool convert_all(std::uint64_t number, row& r, std::index_sequence<I...>) {
    std::string error;
    std::size_t column = 0;
    /// Stops at the first bad field (&& short-circuits).
    const bool ok =
        ((column = I, error = convert_field(fields_[I], std::get<I>(r)), error.empty()) && ...);
    if (!ok) {
      std::string name = column < names_.size() ? " ('" + names_[column] + "')" : "";
      errors_->record(number, "field " + std::to_string(column + 1) + name + ": " + error);
    }
    return ok;
  }

  line_input lines_;  ///< the line source's reader: UTF-8 checks included
  std::shared_ptr<input_errors> errors_;
  csv_options options_;
  bool header_read_ = false;
  std::vector<std::string> names_;
  std::vector<std::string> fields_;
};

}  // namespace detail

template <csv_column... Columns>
auto csv_source(std::string path, std::shared_ptr<input_errors> errors, csv_options options = {}) {
  static_assert(sizeof...(Columns) > 0, "spate::io::csv_source: name at least one column type");
  if (!errors) throw std::invalid_argument("spate::io::csv_source: errors must not be null");
  return flow::make_stage<detail::csv_reader<Columns...>>(path, errors, options)
      .named("csv(" + path + ")");
}

}  // namespace spate::io
