// Must not compile: the node's consume() is misspelled.
#include "spate/flow.hpp"

struct doubler : spate::flow::node<int, int> {
  void consme(int& x) { send_next(2 * x); }
};

int main() {
  auto stage = spate::flow::make_stage<doubler>();
  (void)stage;
}
