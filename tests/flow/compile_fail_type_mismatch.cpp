// Must not compile: the map produces std::string, the sink consumes int.
#include <spate/flow.hpp>
#include <string>

int main() {
  namespace flow = spate::flow;
  flow::graph g(flow::pipeline(flow::generate<int>(3, [](std::size_t i) { return int(i); }),
                               flow::map([](int& x) { return std::to_string(x); }),
                               flow::sink([](int&) {})));
}
