#pragma once
// The checkpoint part of a keyed node replica, whichever store holds its rows (the memory
// table of state/keyed_store.hpp, a backend's row_table of state/backend_keyed_store.hpp):
// both write and read parts through these two functions, so a checkpoint taken with one
// backend restores into the other.
//
//   layout (string: key type; each state's name and type)
//   key-group count (varint)
//   sections (varint count), in increasing key-group order, each: key group, rows, bytes
//   (varints), then the rows: key, then each state's slot, by their codecs
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "spate/state/codec.hpp"
#include "spate/state/key_groups.hpp"

namespace spate::state::detail {

/// Rows of one key group, encoded (key, then slots), and how many.
struct keyed_section {
  std::string bytes;
  std::uint64_t rows = 0;
};

/// A part from `sections`, one per key group (empty ones are left out).
inline std::string write_keyed_part(std::string_view layout,
                                    const std::vector<keyed_section>& sections) {
  std::string bytes;
  byte_writer out(bytes);
  state::encode(std::string(layout), out);
  out.write_varint(sections.size());
  out.write_varint(static_cast<std::uint64_t>(std::count_if(
      sections.begin(), sections.end(), [](const keyed_section& s) { return s.rows != 0; })));
  for (std::size_t group = 0; group < sections.size(); ++group) {
    const keyed_section& s = sections[group];
    if (s.rows == 0) continue;
    out.write_varint(group);
    out.write_varint(s.rows);
    out.write_varint(s.bytes.size());
    out.write(s.bytes.data(), s.bytes.size());
  }
  return bytes;
}

/// Reads part `bytes`: checks its layout and key-group count against this node's, then for
/// each row of every key group `wanted(group)` accepts, calls row(group, section), which
/// must decode exactly one row from `section`. Throws std::runtime_error for another layout
/// or key-group count, decode_error for bytes that do not decode (naming the byte).
template <class Wanted, class Row>
void read_keyed_part(std::string_view bytes, std::string_view layout, std::uint32_t key_groups,
                     Wanted&& wanted, Row&& row) {
  byte_reader in(bytes);
  const auto recorded = state::decode<std::string>(in);
  if (recorded != layout) {
    throw std::runtime_error("spate::state: the part's states are '" + recorded +
                             "'; this node's are '" + std::string(layout) + "'");
  }
  const std::uint64_t groups = in.read_varint("the key-group count");
  if (groups != key_groups) {
    throw std::runtime_error("spate::state: the part has " + std::to_string(groups) +
                             " key groups; this graph has " + std::to_string(key_groups));
  }
  const std::size_t sections = in.read_count("the section count");
  std::uint64_t next_group = 0;  // sections come in increasing key-group order
  for (std::size_t i = 0; i < sections; ++i) {
    const std::uint64_t group = in.read_varint("a key group");
    if (group < next_group || group >= key_groups) {
      throw decode_error("spate::state: key group " + std::to_string(group) +
                         " out of order or range at byte " + std::to_string(in.position()));
    }
    next_group = group + 1;
    const std::uint64_t rows = in.read_varint("a key group's row count");
    const std::string_view body = in.take(in.read_count("a key group's size"), "a key group");
    if (!wanted(static_cast<std::uint32_t>(group))) continue;
    byte_reader section(body);
    for (std::uint64_t r = 0; r < rows; ++r) row(static_cast<std::uint32_t>(group), section);
    if (section.left() != 0) {
      throw decode_error("spate::state: key group " + std::to_string(group) + " has " +
                         std::to_string(section.left()) + " bytes left over");
    }
  }
  if (in.left() != 0) {
    throw decode_error("spate::state: " + std::to_string(in.left()) +
                       " bytes left over after the last key group");
  }
}

/// Throws std::runtime_error when a key restored in key group `group` hashes (mixed) to
/// `mixed`, of another group: the part was written by a build with another hash.
inline void check_key_group(std::uint64_t mixed, std::uint32_t group, std::uint32_t key_groups) {
  if (const std::uint32_t actual = key_group_of(mixed, key_groups); actual != group) {
    throw std::runtime_error("spate::state: a key of key group " + std::to_string(group) +
                             " hashes to group " + std::to_string(actual) +
                             " (was the part written by another build?)");
  }
}

}  // namespace spate::state::detail
