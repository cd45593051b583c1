// The first program of docs/reactors.md: a counter, a scaler and a printer, 5 ticks.
#include <spate/reactor.hpp>
#include <spate/exec/runtime.hpp>

#include <cstdio>

using namespace spate::reactor;
using namespace std::chrono_literals;

struct counter : reactor {
  timer tick{this, "tick", 0ms, 100ms};  // offset, period
  output<int> out{this, "out"};
  int count = 0;  // state is a plain member

  explicit counter(context ctx) : reactor(ctx) {
    reaction("count").triggers(tick).effects(out).body([this](port_writer<int>& out) {
      out.set(++count);
    });
  }
};

struct scale : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  int factor;  // a parameter: a constructor argument

  scale(context ctx, int by) : reactor(ctx), factor(by) {
    reaction("scale").triggers(in).effects(out).body(
        [this](port_writer<int>& out) { out.set(in.get() * factor); });
  }
};

struct printer : reactor {
  input<int> in{this, "in"};
  int received = 0;

  explicit printer(context ctx) : reactor(ctx) {
    reaction("print").triggers(in).body([this] {
      std::printf("at %lld ms: %d\n",
                  static_cast<long long>(elapsed_logical_time() / 1ms), in.get());
      ++received;
    });
  }
};

struct main_program : reactor {
  counter c{{this, "counter"}};
  scale s{{this, "scale"}, 10};
  printer p{{this, "printer"}};

  explicit main_program(context ctx) : reactor(ctx) {
    connect(c.out, s.in);
    connect(s.out, p.in);
  }
};

int main() {
  spate::runtime rt;                                   // the shared worker pool
  environment env{rt, {.fast = true, .timeout = 400ms}};  // 0, 100, ..., 400 ms
  auto& program = env.make_top<main_program>("main");
  env.run();                                           // assemble, run, shut down
  std::printf("%s\n", program.p.received == 5 ? "first program ok" : "first program FAILED");
  return program.p.received == 5 ? 0 : 1;
}
