// A by_key function that returns a view cannot key state: the view would outlive its item.
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include <string>
#include <string_view>
#include <tuple>

struct counter : spate::flow::node<std::string, void> {
  spate::state::value<long> seen{"seen"};
  auto state_fields() { return std::tie(seen); }
  void consume(std::string&) { ++seen.get_or_init(0); }
};

int main() {
  namespace flow = spate::flow;
  flow::graph g(flow::pipeline(
      flow::generate<std::string>(3, [](std::size_t) { return std::string("a"); }),
      flow::farm(counter{}, 2,
                 flow::by_key{[](const std::string& s) { return std::string_view(s); }})));
  return 0;
}
