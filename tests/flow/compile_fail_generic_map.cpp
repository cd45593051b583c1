// Must not compile: a generic lambda without the input type named.
#include "spate/flow.hpp"

int main() {
  auto stage = spate::flow::map([](auto& x) { return x + 1; });
  (void)stage;
}
