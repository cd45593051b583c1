#pragma once
// Savina's Fibonacci as reactors, by recursive creation (docs/reactors.md, "Mutations"):
// every node creates its two children with a mutation, adds their results and removes them.
// Used by the mutation tests (tests/reactor/mutation_test.cpp) and spate-bench's `fib`.
#include <spate/reactor.hpp>

#include <optional>
#include <string>

namespace spate_examples {

using namespace spate::reactor;

// (Not "f" + std::to_string(n): GCC 12 warns falsely about it, bug 105329.)
inline std::string fib_child_name(int n) {
  std::string name = std::to_string(n);
  name.insert(name.begin(), 'f');
  return name;
}

struct fib_node : reactor {
  output<long> out{this, "out"};
  input<long> left{this, "left"}, right{this, "right"};
  int n;
  std::optional<long> l, r;
  fib_node *a = nullptr, *b = nullptr;
  fib_node(context ctx, int n) : reactor(ctx), n(n) {
    reaction("split")
        .triggers(startup)
        .effects(out, mutations)
        .body([this](port_writer<long>& out, mutator& m) {
          if (this->n < 2) {
            out.set(this->n);
            return;
          }
          a = &m.create<fib_node>(fib_child_name(this->n - 1), this->n - 1);
          b = &m.create<fib_node>(fib_child_name(this->n - 2), this->n - 2);
          m.connect(a->out, left);
          m.connect(b->out, right);
        });
    reaction("join")
        .triggers(left, right)
        .effects(out, mutations)
        .body([this](port_writer<long>& out, mutator& m) {
          if (left.is_present()) l = left.get();
          if (right.is_present()) r = right.get();
          if (l && r) {
            out.set(*l + *r);
            m.remove(*a);
            m.remove(*b);
          }
        });
  }
};

}  // namespace spate_examples
