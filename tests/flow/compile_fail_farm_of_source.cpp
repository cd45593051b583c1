// A farm of a source that does not split its stream: each replica would send all of it.
#include <spate/flow.hpp>

int main() {
  namespace flow = spate::flow;
  auto job =
      flow::pipeline(flow::farm(flow::generate<int>(10, [](std::size_t i) { return int(i); }), 2),
                     flow::sink([](int&) {}));
  (void)job;
}
