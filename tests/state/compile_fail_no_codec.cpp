// A type without a codec must not compile when it is stored, with a message that says how
// to give it one.
#include <string>

#include "spate/state/codec.hpp"

struct account {
  std::string owner;
  long balance = 0;
};

int main() {
  return static_cast<int>(spate::state::to_bytes(account{"ada", 1}).size());
}
