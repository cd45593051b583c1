// A container of a type without a codec must not compile either, and the message says the
// element type is the one to give a codec.
#include <string>
#include <vector>

#include "spate/state/codec.hpp"

struct account {
  std::string owner;
};

int main() {
  return static_cast<int>(spate::state::to_bytes(std::vector<account>{{"ada"}}).size());
}
