#pragma once
// Reading an application's records from text: one record per line, parsed by the app's
// `parse(std::string_view) -> std::optional<Record>`. Lines that do not parse are counted
// and the first few are quoted, never dropped silently.
#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace apps {

template <class Record>
struct parsed_input {
  std::vector<Record> records;
  std::uint64_t lines = 0;
  std::uint64_t malformed = 0;
  std::vector<std::string> malformed_examples;  // the first five, with their line numbers
};

template <class Record, class Parse>
void parse_line_into(parsed_input<Record>& out, std::string_view line, Parse&& parse) {
  ++out.lines;
  if (line.empty() || line == "\r") return;  // blank lines (LF or CRLF) are not records
  if (std::optional<Record> r = parse(line)) {
    out.records.push_back(std::move(*r));
    return;
  }
  ++out.malformed;
  if (out.malformed_examples.size() < 5) {
    std::string example = "line ";
    example += std::to_string(out.lines);
    example += ": ";
    example += line.substr(0, 120);
    out.malformed_examples.push_back(std::move(example));
  }
}

template <class Record, class Parse>
parsed_input<Record> parse_lines(const std::vector<std::string>& lines, Parse&& parse) {
  parsed_input<Record> out;
  for (const auto& line : lines) parse_line_into(out, line, parse);
  return out;
}

template <class Record, class Parse>
parsed_input<Record> parse_file(const std::string& path, Parse&& parse) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  parsed_input<Record> out;
  std::string line;
  while (std::getline(in, line)) parse_line_into(out, line, parse);
  return out;
}

}  // namespace apps
