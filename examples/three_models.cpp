// One program, three models, one runtime (docs/reactors.md, "Mixing models"):
//
//   sensor actor ──readings──▶ forwarder actor ──▶ physical action of a reactor program
//   reactor program: per reading, a moving average and a deterministic threshold check
//        ├──alerts──▶ alert actor (collects them)
//        └──readings──▶ flow graph spawned as an actor (buckets readings and counts them)
//
// At the end it checks what each model saw against a sequential computation of the same
// readings, and prints "three models ok".
#include <spate/actor.hpp>
#include <spate/flow.hpp>
#include <spate/interop/graph_actor.hpp>
#include <spate/interop/reactor_bridge.hpp>
#include <spate/reactor.hpp>

#include <cmath>
#include <cstdio>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <vector>

namespace flow = spate::flow;
namespace rx = spate::reactor;
using namespace std::chrono_literals;

constexpr int readings = 2'000;
constexpr double threshold = 1.25;  // alert when a reading exceeds 1.25 x the moving average
constexpr std::size_t window = 8;

double reading(int i) {
  return 20.0 + 5.0 * std::sin(i * 0.37) + (i % 97 == 0 ? 40.0 : 0.0);
}

struct alert {
  int index;
  double value, average;
};

// Collects alerts; answers with them when asked.
struct how_many {};
struct alert_collector : spate::typed_actor<alert_collector, alert, how_many> {
  void on(alert& a) { seen.push_back(a.index); }
  std::vector<int> on(how_many&) { return seen; }
  std::vector<int> seen;
};

// The reactor program: a monitor reacting to readings that arrive through a physical action.
struct monitor : rx::reactor {
  rx::physical_action<std::pair<int, double>> reading{this, "reading"};
  std::deque<double> last;
  double sum = 0;
  int seen = 0;
  spate::actor_ref<alert_collector> alerts;
  spate::actor graph;  // the flow graph, spawned as an actor
  monitor(context ctx, spate::actor_ref<alert_collector> alerts, spate::actor graph)
      : reactor(ctx), alerts(std::move(alerts)), graph(std::move(graph)) {
    reaction("check").triggers(reading).body([this] {
      auto [index, value] = reading.get();
      if (last.size() == window && value > threshold * (sum / double(window)))
        spate::send(this->alerts, alert{index, value, sum / double(window)});
      last.push_back(value);
      sum += value;
      if (last.size() > window) {
        sum -= last.front();
        last.pop_front();
      }
      spate::send(this->graph, value);  // feed the flow graph
      if (++seen == readings) request_stop();
    });
  }
};

// The sensor: an ordinary actor that emits the readings to whoever it is given.
struct start {};
struct sensor : spate::typed_actor<sensor, start> {
  explicit sensor(spate::actor_ref<spate::interop::action_forwarder<std::pair<int, double>>> out)
      : out(std::move(out)) {}
  void on(start&) {
    for (int i = 0; i < readings; ++i) spate::send(out, std::pair<int, double>{i, reading(i)});
  }
  spate::actor_ref<spate::interop::action_forwarder<std::pair<int, double>>> out;
};

int main() {
  spate::runtime rt;
  spate::actor_system actors{rt};
  auto alerts = actors.spawn<alert_collector>();

  // The flow graph: bucket readings by whole degrees / 10, count per bucket at the end.
  std::map<int, int> buckets;
  std::promise<void> graph_done;
  struct bucket_counter : spate::typed_actor<bucket_counter, int, flow::end_of_stream> {
    bucket_counter(std::map<int, int>* b, std::promise<void>* d) : buckets(b), done(d) {}
    void on(int& bucket) { ++(*buckets)[bucket]; }
    void on(flow::end_of_stream&) { done->set_value(); }
    std::map<int, int>* buckets;
    std::promise<void>* done;
  };
  auto counter = actors.spawn<bucket_counter>(&buckets, &graph_done);
  auto graph = flow::spawn_graph(actors, flow::map<double>([](double v) { return int(v / 10); }),
                                 spate::actor(counter));

  // The reactor program on the same runtime.
  rx::environment env{rt};
  auto& program = env.make_top<monitor>("monitor", alerts, spate::actor(graph));
  env.start();
  auto into_program = spate::interop::spawn_action_forwarder(actors, program.reading);
  auto s = actors.spawn<sensor>(into_program);
  spate::send(s, start{});
  env.wait();
  spate::send(graph, flow::end_of_stream{});
  graph_done.get_future().wait();

  // Check against a sequential run of the same readings. Readings cross an actor mailbox in
  // order, and the program processes them in arrival order, so the alerts are exactly these.
  std::vector<int> expected_alerts;
  std::deque<double> last;
  double sum = 0;
  std::map<int, int> expected_buckets;
  for (int i = 0; i < readings; ++i) {
    double v = reading(i);
    if (last.size() == window && v > threshold * (sum / double(window)))
      expected_alerts.push_back(i);
    last.push_back(v);
    sum += v;
    if (last.size() > window) {
      sum -= last.front();
      last.pop_front();
    }
    ++expected_buckets[int(v / 10)];
  }
  // Every alert was sent before env.wait() returned, so this request queues behind them.
  std::vector<int> got_alerts = spate::request(alerts, how_many{}, 10s).get();
  std::printf("readings %d, alerts %zu (expected %zu), buckets %zu\n", program.seen,
              got_alerts.size(), expected_alerts.size(), buckets.size());
  if (program.seen != readings || got_alerts != expected_alerts || buckets != expected_buckets) {
    std::printf("three models FAILED\n");
    return 1;
  }
  std::printf("three models ok\n");
  return 0;
}
