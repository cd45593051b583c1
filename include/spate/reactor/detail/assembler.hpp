#pragma once
// Assembly (LF paper, Sect. 4.1): from the reactor tree to a checked program.
//   1. Collect reactors, reactions, ports and actions in tree order.
//   2. Resolve connections: pair the channels of both sides, check widths, directions and
//      containers, and refuse two writers on one port.
//   3. Give every port its root (the port whose value it reads) and every root the reactions
//      its value triggers and the delayed connections it feeds.
//   4. Build the reaction graph: an edge from a reaction to every reaction that reads a port
//      it writes (through connections without delay), and between consecutive reactions of
//      one reactor (declaration order).
//   5. Sort it topologically: a causality cycle is reported as the path of reactions and
//      ports around it; otherwise every reaction gets its level and its index (level first).
#include <memory>
#include <vector>

#include "spate/reactor/detail/reaction_scheduler.hpp"

namespace spate::reactor::detail {

class assembler {
 public:
  // Throws assembly_error; `tops` are left as they were only up to step 2's checks.
  static program assemble(const std::vector<reactor*>& tops);
};

}  // namespace spate::reactor::detail
