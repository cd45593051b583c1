// A node with keyed state has no key outside a by_key farm: it must not compile there, with a
// message that says where it belongs.
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <tuple>

struct counter : spate::flow::node<int, void> {
  spate::state::value<long> seen{"seen"};
  auto state_fields() { return std::tie(seen); }
  void consume(int&) { ++seen.get_or_init(0); }
};

int main() {
  namespace flow = spate::flow;
  flow::graph g(
      flow::pipeline(flow::generate<int>(3, [](std::size_t i) { return int(i); }), counter{}));
  return 0;
}
