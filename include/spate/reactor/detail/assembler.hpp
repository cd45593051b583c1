#pragma once
// Assembly (LF paper, Sect. 4.1): from the reactor tree to a checked program.
//   1. Collect reactors, reactions, ports and actions in tree order, and check what each
//      reaction declares.
//   2. Resolve connections: pair the channels of both sides, check widths, directions and
//      containers, and refuse two writers on one port.
//   3. Give every port its root (the port whose value it reads) and every root the reactions
//      its value triggers and the delayed connections it feeds.
//   4. Build the reaction graph: an edge from a reaction to every reaction that reads a port
//      it writes (through connections without delay), and between consecutive reactions of
//      one reactor (declaration order).
//   5. Sort it topologically: a causality cycle is reported as the path of reactions and
//      ports around it; otherwise every reaction gets its level and its index (level first).
//
// Mutations (mutation.hpp) run the same steps on the part of the program they add, check the
// new edges for cycles against the whole graph before changing anything, then wire them in
// and raise levels where a new edge demands it. Static assembly is src/reactor/assembler.cpp,
// the mutations' (add, remove) src/reactor/mutation_assembler.cpp.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spate/platform/export.hpp"
#include "spate/reactor/detail/reaction_scheduler.hpp"

namespace spate::reactor::detail {

class SPATE_API assembler {
 public:
  // Throws assembly_error.
  static program assemble(const std::vector<reactor*>& tops);

  // A mutation's changes, checked and wired into `prog`; throws assembly_error (with the
  // program unchanged) when they break a rule or close a cycle. Returns the reactions it
  // added, with their indices assigned.
  struct mutation_result {
    std::vector<reaction*> added_reactions;
    std::vector<action_base*> added_startup, added_shutdown;
    std::vector<timer*> added_timers;
  };
  static mutation_result add(program& prog, reactor& owner,
                             const std::vector<reactor*>& created_roots,
                             const std::vector<connection*>& connections);
  // Unwires and forgets a subtree created by a mutation (its objects are freed by the
  // caller). Returns the event targets whose pending events must be dropped.
  static std::vector<event_target*> remove(program& prog, reactor& subtree_root);

  static std::vector<reactor*> collect(reactor* root);
  // The reactors' reactions; throws for one declared without a body.
  static std::vector<reaction*> reactions_of(const std::vector<reactor*>& reactors);
  // Every live reactor's shutdown trigger, in tree order.
  static std::vector<action_base*> shutdown_triggers(const std::vector<reactor*>& tops);

 private:
  using edge_list = std::vector<std::pair<reaction*, reaction*>>;
  // Shared by the static assembly (assembler.cpp) and mutations (mutation_assembler.cpp).
  [[noreturn]] static void fail(const std::string& text);  // throws assembly_error
  static std::string fqn(const element& e);
  static void declare(const std::vector<reaction*>& reactions);  ///< check, then record
  static void check_declarations(const std::vector<reaction*>& reactions);
  static void record_declarations(const std::vector<reaction*>& reactions);
  // `through_own_ports`: a mutation's connection may also leave the owner's own output and
  // enter its own input (a reaction cannot declare the ports of a reactor created later, so
  // it reaches created reactors through its own ports).
  static void check_connection(reactor* owner, connection& c, bool& has_physical,
                               bool through_own_ports);
  static void wire(connection& c, program& prog);
  static void close_root(port_base* root);
  static void add_edge(reaction* from, reaction* to);
  static void assign_levels_and_check(const std::vector<reaction*>& reactions);
  static bool by_index(const reaction* a, const reaction* b);
  static std::string edge_reason(reaction* from, reaction* to);
  static std::string describe_cycle(const std::vector<reaction*>& path, reaction* closing);
};

}  // namespace spate::reactor::detail
