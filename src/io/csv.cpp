#include "spate/io/csv.hpp"

namespace spate::io {

bool split_csv_line(std::string_view line, char separator, std::vector<std::string>& fields,
                    std::string& error) {
  fields.clear();
  std::string field;
  std::size_t i = 0;
  while (true) {
    field.clear();
    if (i < line.size() && line[i] == '"') {
      const std::size_t opened_at = i;
      ++i;
      while (true) {
        if (i >= line.size()) {
          error = "quote opened at byte " + std::to_string(opened_at + 1) + " is not closed";
          return false;
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += line[i++];
      }
      if (i < line.size() && line[i] != separator) {
        error = "text after a closing quote at byte " + std::to_string(i + 1);
        return false;
      }
    } else {
      const std::size_t end = line.find(separator, i);
      field.assign(line.substr(i, end == std::string_view::npos ? line.size() - i : end - i));
      i = end == std::string_view::npos ? line.size() : end;
    }
    fields.push_back(field);
    if (i >= line.size()) return true;
    ++i;  // the separator; a line ending in one has an empty last field
    if (i == line.size()) {
      fields.emplace_back();
      return true;
    }
  }
}

}  // namespace spate::io
