// The first program of docs/windows.md: a moving average of each symbol's last 100 trade
// prices, updated every 25 trades, computed by Window Farming on 3 workers and checked
// against the same windows computed by Key Partitioning.
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <cassert>
#include <cstdio>
#include <map>
#include <random>
#include <span>
#include <vector>

namespace flow = spate::flow;
namespace window = spate::window;

struct trade {
  int symbol;
  double price;
};

int main() {
  // 20,000 trades over 8 symbols, each symbol's price a random walk.
  std::vector<trade> trades;
  std::mt19937 random{42};
  std::normal_distribution<double> step(0, 0.5);
  std::vector<double> price(8, 100.0);
  for (int i = 0; i < 20'000; ++i) {
    const int s = int(random() % 8);
    price[s] += step(random);
    trades.push_back({s, price[s]});
  }

  // Per symbol, windows of 100 trades every 25 trades: the average price of each.
  const auto spec = window::sliding(100, 25);
  auto symbol = [](const trade& t) { return t.symbol; };
  auto average = [](const int&, std::span<const trade> w) {
    double sum = 0;
    for (const trade& t : w) sum += t.price;
    return sum / double(w.size());
  };

  using result = window::window_result<int, double>;
  auto run = [&](auto pattern) {
    std::map<int, std::vector<result>> out;
    flow::graph job(flow::pipeline(flow::from_range(trades), std::move(pattern),
                                   flow::sink([&](result& r) { out[r.key].push_back(r); })));
    job.run();
    return out;
  };
  const auto farmed = run(window::window_farming<trade>(spec, symbol, average, 3));
  const auto partitioned = run(window::key_partitioning<trade>(spec, symbol, average, 3));

  for (const auto& [s, windows] : farmed) {
    const result& last = windows.back();
    std::printf("symbol %d: %zu windows, the last (%s, %llu trades) averages %.2f\n", s,
                windows.size(), last.complete ? "complete" : "cut by the end of the stream",
                static_cast<unsigned long long>(last.tuples), last.value);
  }
  assert(farmed == partitioned);
  std::printf("window first program ok\n");
}
