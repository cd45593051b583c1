// The examples of docs/patterns.md, compiled and run in CI (ctest: example_patterns).
#include <spate/actor.hpp>
#include <spate/flow.hpp>
#include <spate/interop/graph_actor.hpp>
#include <spate/parallel.hpp>

#include <cassert>
#include <iostream>
#include <numeric>
#include <string>
#include <thread>

namespace flow = spate::flow;

// --- 1. An operator is a class with typed input and output.
struct tokenizer : flow::node<std::string, std::string> {
  void consume(std::string& line) {
    std::string word;
    for (char c : line + " ") {
      if (c == ' ') {
        if (!word.empty()) send_next(std::move(word));
        word.clear();
      } else {
        word += c;
      }
    }
  }
};

// --- 2. A source: produce() returns false at the end of the stream.
struct numbers : flow::source<int> {
  explicit numbers(int n) : n(n) {}
  bool produce() {
    send_next(next++);
    return next < n;
  }
  int n, next = 0;
};

// --- 5. Backpressure at a source: send_next_if keeps the item when the queue is long.
struct paced_source : flow::source<int> {
  bool produce() {
    int item = next;
    if (send_next_if(std::move(item), 256)) {
      ++next;
    } else {
      std::this_thread::yield();  // or drop, or buffer: the source decides
    }
    return next < 10'000;
  }
  int next = 0;
};

int main() {
  spate::runtime rt;  // one worker per CPU; nodes are tasks on its pool

  {  // 1. Three stages in a few lines.
    std::size_t words = 0;
    flow::graph job(flow::pipeline(
        flow::from_range(std::vector<std::string>{"a stream of words", "and more words"}),
        tokenizer{}, flow::sink([&](std::string&) { ++words; })));
    job.run(rt);
    assert(words == 7);
  }
  {  // 2 + 3. Farms, policies, fusion, ordering.
    long sum = 0;
    flow::graph job(flow::pipeline(
        numbers(1000), flow::farm(flow::map([](int& x) { return x * 2; }), 4),  // round-robin
        flow::farm(flow::filter([](const int& x) { return x % 3 == 0; }), 2,    // fused: no router
                   flow::by_key{[](const int& x) { return x % 10; }}),
        flow::sink([&](int& x) { sum += x; })));
    job.run(rt);
    long expected = 0;
    for (int x = 0; x < 1000; ++x) expected += (2 * x) % 3 == 0 ? 2 * x : 0;
    assert(sum == expected);

    std::vector<int> in_order;
    flow::graph ordered(flow::pipeline(numbers(100),
                                       flow::ordered_farm(flow::map([](int& x) { return x; }), 4),
                                       flow::sink([&](int& x) { in_order.push_back(x); })));
    ordered.run(rt);
    for (int i = 0; i < 100; ++i) assert(in_order[i] == i);
  }
  {  // 4. Errors: a throwing node stops the graph; run() names it.
    flow::graph job(flow::pipeline(numbers(100), flow::map([](int& x) {
                                                   if (x == 42)
                                                     throw std::runtime_error("no 42s here");
                                                   return x;
                                                 }).named("picky"),
                                   flow::sink([](int&) {})));
    try {
      job.run(rt);
      assert(false);
    } catch (const flow::node_error& e) {
      assert(e.node() == "picky");
    }
  }
  {  // 5. Backpressure.
    int received = 0;
    flow::graph job(
        flow::pipeline(flow::make_stage<paced_source>(), flow::sink([&](int&) { ++received; })));
    job.run(rt);
    assert(received == 10'000);
  }
  {  // 6. A graph as an actor.
    spate::actor_system system{rt};  // actors on the same pool
    spate::scoped_actor self(system);
    auto upper = flow::spawn_graph(system, flow::pipeline(flow::map([](std::string& s) {
                                     for (auto& c : s) c = char(std::toupper(c));
                                     return s;
                                   })),
                                   spate::actor(self));
    spate::send(upper, std::string("hello"));
    spate::send(upper, flow::end_of_stream{});
    auto reply = self->receive<std::string>();
    assert(reply == "HELLO");
    self->receive<flow::end_of_stream>();
  }
  {  // 7. Data parallelism on the same pool.
    std::vector<int> v(100'000);
    std::iota(v.begin(), v.end(), 0);
    long total = spate::map_reduce(
        rt, v, 0L, [](int x) { return long(x); }, [](long a, long b) { return a + b; });
    assert(total == 4'999'950'000L);
  }
  std::cout << "all examples ok\n";
}
