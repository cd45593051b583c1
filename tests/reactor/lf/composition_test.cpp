// Ported from lf-lang/lingua-franca test/Cpp/src: HelloWorld, Minimal, ActionWithNoReaction,
// After, Composition, CompositionAfter, CompositionGain, CountTest, DanglingOutput, Deadline,
// DelayInt, DelayedAction, Determinism, DoubleInvocation, DoublePort, DoubleReaction, Gain,
// GetMicroStep, GetTime, Hierarchy, Hierarchy2, ManualDelayedReaction, Methods.
#include <thread>

#include "lib.hpp"

namespace lf_test {
namespace {

// ---- HelloWorld
struct HelloWorld2 : reactor {
  timer t{this, "t"};
  bool said = false;
  explicit HelloWorld2(context ctx) : reactor(ctx) {
    reaction().triggers(t).body([this] {
      note(*this, "Hello World.");
      said = true;
    });
    reaction().triggers(shutdown).body([this] { lf_check(said, "the timer never fired"); });
  }
};
struct HelloWorld : reactor {
  HelloWorld2 a{{this, "a"}};
  explicit HelloWorld(context ctx) : reactor(ctx) {}
};
LF_TEST(HelloWorld, HelloWorld, environment_options{})

// ---- Minimal
struct Minimal : reactor {
  explicit Minimal(context ctx) : reactor(ctx) {
    reaction().triggers(startup).body([this] { note(*this, "Hello World!"); });
  }
};
LF_TEST(Minimal, Minimal, environment_options{})

// ---- ActionWithNoReaction
struct NoReactionFoo : reactor {
  input<int> x{this, "x"};
  output<int> y{this, "y"};
  logical_action<void> a{this, "a"};
  explicit NoReactionFoo(context ctx) : reactor(ctx) {
    reaction().triggers(x).effects(y, a).body(
        [this](port_writer<int>& y, action_scheduler<void>& a) {
          y.set(2 * x.get());
          a.schedule(500ms);
        });
  }
};
struct PrintValue : reactor {
  input<int> x{this, "x"};
  explicit PrintValue(context ctx) : reactor(ctx) {
    reaction().triggers(x).body([this] { note(*this, "Result is " + str(x.get())); });
  }
};
struct ActionWithNoReaction : reactor {
  timer t{this, "t", 0s, 1s};
  NoReactionFoo f{{this, "f"}};
  PrintValue p{{this, "p"}};
  explicit ActionWithNoReaction(context ctx) : reactor(ctx) {
    connect(f.y, p.x);
    reaction().triggers(t).effects(f.x).body([](port_writer<int>& x) { x.set(42); });
  }
};
LF_TEST(ActionWithNoReaction, ActionWithNoReaction,
        (environment_options{.fast = true, .timeout = 3s}))

// ---- After
struct AfterFoo : reactor {
  input<int> x{this, "x"};
  output<int> y{this, "y"};
  explicit AfterFoo(context ctx) : reactor(ctx) {
    reaction().triggers(x).effects(y).body([this](port_writer<int>& y) { y.set(2 * x.get()); });
  }
};
struct AfterPrint : reactor {
  duration expected_time = 10ms;
  int i = 0;
  input<int> x{this, "x"};
  explicit AfterPrint(context ctx) : reactor(ctx) {
    reaction().triggers(x).body([this] {
      ++i;
      note(*this, "Result is " + str(x.get()));
      lf_check(x.get() == 84, "Expected result to be 84.");
      lf_check(elapsed_logical_time() == expected_time,
               "Expected logical time to be " + str(expected_time.count()));
      expected_time += 1s;
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(i != 0, "Final reactor received no data."); });
  }
};
struct After : reactor {
  AfterFoo f{{this, "f"}};
  AfterPrint p{{this, "p"}};
  timer t{this, "t", 0s, 1s};
  explicit After(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(f.x).body([](port_writer<int>& x) { x.set(42); });
    connect(f.y, p.x).after(10ms);
  }
};
LF_TEST(After, After, (environment_options{.fast = false, .timeout = 3s}))

// ---- Composition and CompositionAfter
struct Composition : reactor {
  CompositionSource s{{this, "s"}, 2s};
  CompositionTest d{{this, "d"}, 5};
  explicit Composition(context ctx) : reactor(ctx) { connect(s.y, d.x); }
};
LF_TEST(Composition, Composition, (environment_options{.fast = true, .timeout = 10s}))

struct CompositionAfter : reactor {
  CompositionSource s{{this, "s"}, 2s};
  CompositionTest d{{this, "d"}, 3};
  CompositionAfter(context ctx, duration delay) : reactor(ctx) { connect(s.y, d.x).after(delay); }
  explicit CompositionAfter(context ctx) : CompositionAfter(ctx, 5s) {}
};
LF_TEST(CompositionAfter, CompositionAfter, (environment_options{.fast = true, .timeout = 10s}))

// ---- CompositionGain
struct CGain : reactor {
  input<int> gainin{this, "gainin"};
  output<int> y{this, "y"};
  explicit CGain(context ctx) : reactor(ctx) {
    reaction().triggers(gainin).effects(y).body(
        [this](port_writer<int>& y) { y.set(gainin.get() * 2); });
  }
};
struct Wrapper : reactor {
  input<int> x{this, "x"};
  output<int> y{this, "y"};
  CGain gain{{this, "gain"}};
  explicit Wrapper(context ctx) : reactor(ctx) {
    connect(x, gain.gainin);
    connect(gain.y, y);
  }
};
struct CompositionGain : reactor {
  Wrapper wrapper{{this, "wrapper"}};
  bool received = false;
  explicit CompositionGain(context ctx) : reactor(ctx) {
    reaction().triggers(startup).effects(wrapper.x).body([](port_writer<int>& x) { x.set(42); });
    reaction().triggers(wrapper.y).body([this] {
      note(*this, "Received " + str(wrapper.y.get()));
      lf_check(wrapper.y.get() == 42 * 2, "Received value should have been 84");
      received = true;
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "nothing received"); });
  }
};
LF_TEST(CompositionGain, CompositionGain, environment_options{})

// ---- CountTest
struct CountTestTest : reactor {
  input<int> c{this, "c"};
  int i = 0;
  explicit CountTestTest(context ctx) : reactor(ctx) {
    reaction().triggers(c).body([this] {
      ++i;
      lf_check(c.get() == i, "Expected " + str(i) + " but got " + str(c.get()));
    });
    reaction().triggers(shutdown).body([this] { lf_check(i == 4, "expected 4 counts"); });
  }
};
struct CountTest : reactor {
  Count count{{this, "count"}};
  CountTestTest test{{this, "test"}};
  explicit CountTest(context ctx) : reactor(ctx) { connect(count.c, test.c); }
};
LF_TEST(CountTest, CountTest, (environment_options{.fast = true, .timeout = 3s}))

// ---- DanglingOutput
struct DanglingSource : reactor {
  output<int> out{this, "out"};
  timer t{this, "t"};
  explicit DanglingSource(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(out).body([](port_writer<int>& out) { out.set(1); });
  }
};
struct DanglingGain : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  explicit DanglingGain(context ctx) : reactor(ctx) {
    reaction().triggers(in).effects(out).body([this](port_writer<int>& out) {
      note(*this, "Received " + str(in.get()));
      out.set(in.get() * 2);
    });
  }
};
struct DanglingOutput : reactor {
  DanglingSource source{{this, "source"}};
  DanglingGain container{{this, "container"}};
  explicit DanglingOutput(context ctx) : reactor(ctx) { connect(source.out, container.in); }
};
LF_TEST(DanglingOutput, DanglingOutput, environment_options{})

// ---- Deadline (physical time: run, not compared)
struct DeadlineSource : reactor {
  output<int> y{this, "y"};
  timer t;
  int count = 0;
  DeadlineSource(context ctx, duration period) : reactor(ctx), t{this, "t", 0s, period} {
    reaction().triggers(t).effects(y).body([this](port_writer<int>& y) {
      if (count % 2 == 1) std::this_thread::sleep_for(400ms);  // violates the deadline
      y.set(count);
      ++count;
    });
  }
};
struct DeadlineDestination : reactor {
  input<int> x{this, "x"};
  int count = 0;
  DeadlineDestination(context ctx, duration timeout) : reactor(ctx) {
    reaction()
        .triggers(x)
        .body([this] {
          note(*this, "Destination receives: " + str(x.get()));
          lf_check(count % 2 == 0, "Failed to detect deadline.");
          ++count;
        })
        .deadline(timeout, [this] {
          note(*this, "Destination deadline handler receives: " + str(x.get()));
          lf_check(count % 2 == 1, "Deadline handler invoked without deadline violation.");
          ++count;
        });
    reaction().triggers(shutdown).body([this] { lf_check(count == 3, "expected 3 inputs"); });
  }
};
struct Deadline : reactor {
  DeadlineSource s{{this, "s"}, 2s};
  DeadlineDestination d{{this, "d"}, 200ms};
  explicit Deadline(context ctx) : reactor(ctx) { connect(s.y, d.x); }
};
LF_TEST_PHYSICAL(Deadline, Deadline, (environment_options{.timeout = 4s}))

// ---- DelayInt
struct Delay : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  logical_action<int> d{this, "d"};
  duration delay;
  explicit Delay(context ctx, duration delay = 100ms) : reactor(ctx), delay(delay) {
    reaction().triggers(in).effects(d).body(
        [this](action_scheduler<int>& d) { d.schedule(in.get(), this->delay); });
    reaction().triggers(d).effects(out).body([this](port_writer<int>& out) {
      if (d.is_present()) out.set(d.get());
    });
  }
};
struct DelayIntTest : reactor {
  input<int> in{this, "in"};
  time_point start_time_seen{};
  timer start{this, "start"};
  bool received = false;
  explicit DelayIntTest(context ctx) : reactor(ctx) {
    reaction().triggers(start).body([this] { start_time_seen = logical_time(); });
    reaction().triggers(in).body([this] {
      auto elapsed = logical_time() - start_time_seen;
      note(*this, "Received: " + str(in.get()) + " after " + str(elapsed.count()));
      lf_check(elapsed == 100ms, "Expected elapsed time to be 100000000 nsecs.");
      lf_check(in.get() == 42, "Expected input value to be 42.");
      received = true;
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "nothing received"); });
  }
};
struct DelayInt : reactor {
  timer t{this, "t"};
  Delay d{{this, "d"}};
  DelayIntTest test{{this, "test"}};
  explicit DelayInt(context ctx) : reactor(ctx) {
    connect(d.out, test.in);
    reaction().triggers(t).effects(d.in).body([](port_writer<int>& in) { in.set(42); });
  }
};
LF_TEST(DelayInt, DelayInt, environment_options{})

// ---- DelayedAction
struct DelayedAction : reactor {
  timer t{this, "t", 0s, 1s};
  logical_action<void> a{this, "a"};
  int count = 0;
  explicit DelayedAction(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(a).body([](action_scheduler<void>& a) { a.schedule(100ms); });
    reaction().triggers(a).body([this] {
      auto expected = count * 1s + 100ms;
      ++count;
      note(*this, "elapsed " + str(elapsed_logical_time().count()));
      lf_check(elapsed_logical_time() == expected, "Expected " + str(expected.count()));
    });
  }
};
LF_TEST(DelayedAction, DelayedAction, (environment_options{.fast = true, .timeout = 5s}))

// ---- Determinism
struct DeterminismSource : reactor {
  output<int> y{this, "y"};
  timer t{this, "t"};
  explicit DeterminismSource(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(y).body([](port_writer<int>& y) { y.set(1); });
  }
};
struct DeterminismDestination : reactor {
  input<int> x{this, "x"};
  input<int> y{this, "y"};
  explicit DeterminismDestination(context ctx) : reactor(ctx) {
    reaction().triggers(x, y).body([this] {
      int sum = 0;
      if (x.is_present()) sum += x.get();
      if (y.is_present()) sum += y.get();
      note(*this, "Received " + str(sum));
      lf_check(sum == 2, "FAILURE: Expected 2.");
    });
  }
};
struct Pass : reactor {
  input<int> x{this, "x"};
  output<int> y{this, "y"};
  explicit Pass(context ctx) : reactor(ctx) {
    reaction().triggers(x).effects(y).body([this](port_writer<int>& y) { y.set(x.get()); });
  }
};
struct Determinism : reactor {
  DeterminismSource s{{this, "s"}};
  DeterminismDestination d{{this, "d"}};
  Pass p1{{this, "p1"}};
  Pass p2{{this, "p2"}};
  explicit Determinism(context ctx) : reactor(ctx) {
    connect(s.y, d.y);
    connect(s.y, p1.x);
    connect(p1.y, p2.x);
    connect(p2.y, d.x);
  }
};
LF_TEST(Determinism, Determinism, environment_options{})

// ---- DoubleInvocation
struct Ball : reactor {
  output<int> position{this, "position"};
  output<int> velocity{this, "velocity"};
  timer trigger{this, "trigger", 0s, 1s};
  int p = 200;
  explicit Ball(context ctx) : reactor(ctx) {
    reaction()
        .triggers(trigger)
        .effects(position, velocity)
        .body([this](port_writer<int>& position, port_writer<int>& velocity) {
          position.set(p);
          velocity.set(-1);
          p -= 1;
        });
  }
};
struct BallPrint : reactor {
  input<int> velocity{this, "velocity"};
  input<int> position{this, "position"};
  int previous = -1;
  explicit BallPrint(context ctx) : reactor(ctx) {
    reaction().triggers(startup).body([this] { note(*this, "Print startup"); });
    reaction().triggers(position, velocity).body([this] {
      if (position.is_present()) note(*this, "Position: " + str(position.get()));
      lf_check(position.get() != previous, "Multiple firings at the same logical time!");
      previous = position.get();  // (LF's test never updates it, so cannot fail; we do)
    });
  }
};
struct DoubleInvocation : reactor {
  Ball b1{{this, "b1"}};
  BallPrint p{{this, "p"}};
  BallPrint plot{{this, "plot"}};
  explicit DoubleInvocation(context ctx) : reactor(ctx) {
    connect(b1.position, p.position);
    connect(b1.velocity, p.velocity);
    connect(b1.position, plot.position);
    connect(b1.velocity, plot.velocity);
  }
};
LF_TEST(DoubleInvocation, DoubleInvocation, (environment_options{.fast = true, .timeout = 5s}))

// ---- DoublePort
struct CountMicrostep : reactor {
  int count = 1;
  output<int> out{this, "out"};
  logical_action<int> act{this, "act"};
  timer t{this, "t", 0s, 1s};
  explicit CountMicrostep(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(act).body([this](action_scheduler<int>& act) {
      act.schedule(count);
      ++count;
    });
    reaction().triggers(act).effects(out).body(
        [this](port_writer<int>& out) { out.set(act.get()); });
  }
};
struct DoublePortPrint : reactor {
  input<int> in{this, "in"};
  input<int> in2{this, "in2"};
  int seen = 0;
  explicit DoublePortPrint(context ctx) : reactor(ctx) {
    reaction().triggers(in, in2).body([this] {
      ++seen;
      if (in.is_present()) note(*this, "received in = " + str(in.get()));
      if (in2.is_present()) note(*this, "received in2 = " + str(in2.get()));
      lf_check(!(in.is_present() && in2.is_present()), "invalid logical simultaneity.");
    });
    reaction().triggers(shutdown).body([this] { lf_check(seen == 2, "expected two inputs"); });
  }
};
struct DoublePort : reactor {
  Count c{{this, "c"}};
  CountMicrostep cm{{this, "cm"}};
  DoublePortPrint p{{this, "p"}};
  explicit DoublePort(context ctx) : reactor(ctx) {
    connect(c.c, p.in);
    connect(cm.out, p.in2);
  }
};
LF_TEST(DoublePort, DoublePort, (environment_options{.fast = true, .timeout = 900ms}))

// ---- DoubleReaction
struct DoubleReactionDestination : reactor {
  input<int> x{this, "x"};
  input<int> w{this, "w"};
  int s = 2;
  explicit DoubleReactionDestination(context ctx) : reactor(ctx) {
    reaction().triggers(x, w).body([this] {
      int sum = 0;
      if (x.is_present()) sum += x.get();
      if (w.is_present()) sum += w.get();
      note(*this, "Sum of inputs is: " + str(sum));
      lf_check(sum == s, "FAILURE: Expected sum to be " + str(s));
      s += 2;
    });
  }
};
struct DoubleReaction : reactor {
  Clock c1{{this, "c1"}};
  Clock c2{{this, "c2"}};
  DoubleReactionDestination d{{this, "d"}};
  explicit DoubleReaction(context ctx) : reactor(ctx) {
    connect(c1.y, d.x);
    connect(c2.y, d.w);
  }
};
LF_TEST(DoubleReaction, DoubleReaction, (environment_options{.fast = true, .timeout = 10s}))

// ---- Gain
struct Scale : reactor {
  input<int> x{this, "x"};
  output<int> y{this, "y"};
  int scale;
  explicit Scale(context ctx, int scale = 2) : reactor(ctx), scale(scale) {
    reaction().triggers(x).effects(y).body(
        [this](port_writer<int>& y) { y.set(x.get() * this->scale); });
  }
};
struct GainTest : reactor {
  input<int> x{this, "x"};
  bool received = false;
  explicit GainTest(context ctx) : reactor(ctx) {
    reaction().triggers(x).body([this] {
      note(*this, "Received " + str(x.get()));
      lf_check(x.get() == 2, "Expected 2!");
      received = true;
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "nothing received"); });
  }
};
struct Gain : reactor {
  Scale g{{this, "g"}};
  GainTest t{{this, "t"}};
  timer tim{this, "tim"};
  explicit Gain(context ctx) : reactor(ctx) {
    connect(g.y, t.x);
    reaction().triggers(tim).effects(g.x).body([](port_writer<int>& x) { x.set(1); });
  }
};
LF_TEST(Gain, Gain, environment_options{})

// ---- GetMicroStep
struct GetMicroStep : reactor {
  microstep s = 1;
  logical_action<void> l{this, "l"};
  explicit GetMicroStep(context ctx) : reactor(ctx) {
    reaction().triggers(startup).effects(l).body(
        [](action_scheduler<void>& l) { l.schedule(duration::zero()); });
    reaction().triggers(l).effects(l).body([this](action_scheduler<void>& l) {
      note(*this, "microstep " + str(get_microstep()));
      lf_check(get_microstep() == s, "expected microstep " + str(s));
      if (s++ < 10) l.schedule();
    });
    reaction().triggers(shutdown).body([this] { lf_check(s == 11, "unexpected state!"); });
  }
};
LF_TEST(GetMicroStep, GetMicroStep, environment_options{})

// ---- GetTime
struct GetTime : reactor {
  timer t{this, "t", 0s, 1s};
  explicit GetTime(context ctx) : reactor(ctx) {
    reaction().triggers(t).body([this] {
      auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(elapsed_logical_time());
      note(*this, "Elapsed logical time is " + str(elapsed.count()) + " s");
      lf_check(physical_time() >= logical_time() || environment_fast(),
               "logical time ran ahead of physical time");
    });
  }
  bool environment_fast() const { return env().options().fast; }
};
LF_TEST(GetTime, GetTime, (environment_options{.fast = true, .timeout = 2s}))

// ---- Hierarchy
struct HSource : reactor {
  output<int> out{this, "out"};
  timer t{this, "t"};
  explicit HSource(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(out).body([](port_writer<int>& out) { out.set(1); });
  }
};
struct HGain : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  explicit HGain(context ctx) : reactor(ctx) {
    reaction().triggers(in).effects(out).body(
        [this](port_writer<int>& out) { out.set(in.get() * 2); });
  }
};
struct HPrint : reactor {
  input<int> in{this, "in"};
  int expected;
  bool received = false;
  explicit HPrint(context ctx, int expected = 2) : reactor(ctx), expected(expected) {
    reaction().triggers(in).body([this] {
      note(*this, "Received: " + str(in.get()));
      lf_check(in.get() == this->expected, "Expected " + str(this->expected));
      received = true;
      ++this->expected_increment_;
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "nothing received"); });
  }
  int expected_increment_ = 0;
};
struct GainContainer : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  output<int> out2{this, "out2"};
  HGain gain{{this, "gain"}};
  explicit GainContainer(context ctx) : reactor(ctx) {
    connect(in, gain.in);
    connect(gain.out, out);
    connect(gain.out, out2);
  }
};
struct Hierarchy : reactor {
  HSource source{{this, "source"}};
  GainContainer container{{this, "container"}};
  HPrint print{{this, "print"}};
  HPrint print2{{this, "print2"}};
  explicit Hierarchy(context ctx) : reactor(ctx) {
    connect(source.out, container.in);
    connect(container.out, print.in);
    connect(container.out, print2.in);
  }
};
LF_TEST(Hierarchy, Hierarchy, environment_options{})

// ---- Hierarchy2
struct H2Source : reactor {
  output<int> out{this, "out"};
  timer t{this, "t", 0s, 1s};
  explicit H2Source(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(out).body([](port_writer<int>& out) { out.set(1); });
  }
};
struct Add : reactor {
  input<int> in1{this, "in1"};
  input<int> in2{this, "in2"};
  output<int> out{this, "out"};
  explicit Add(context ctx) : reactor(ctx) {
    reaction().triggers(in1, in2).effects(out).body([this](port_writer<int>& out) {
      int result = 0;
      if (in1.is_present()) result += in1.get();
      if (in2.is_present()) result += in2.get();
      out.set(result);
    });
  }
};
struct H2Print : reactor {
  input<int> in{this, "in"};
  int expected = 2;
  explicit H2Print(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      note(*this, "Received: " + str(in.get()));
      lf_check(in.get() == expected, "Expected " + str(expected));
      ++expected;
    });
    reaction().triggers(shutdown).body([this] { lf_check(expected == 8, "expected 6 values"); });
  }
};
struct AddCount : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  Count count{{this, "count"}};
  Add add{{this, "add"}};
  explicit AddCount(context ctx) : reactor(ctx) {
    connect(in, add.in1);
    connect(count.c, add.in2);
    connect(add.out, out);
  }
};
struct Hierarchy2 : reactor {
  H2Source source{{this, "source"}};
  AddCount addCount{{this, "addCount"}};
  H2Print print{{this, "print"}};
  explicit Hierarchy2(context ctx) : reactor(ctx) {
    connect(source.out, addCount.in);
    connect(addCount.out, print.in);
  }
};
LF_TEST(Hierarchy2, Hierarchy2, (environment_options{.fast = true, .timeout = 5s}))

// ---- ManualDelayedReaction
struct ManualGeneratedDelay : reactor {
  input<int> y_in{this, "y_in"};
  output<int> y_out{this, "y_out"};
  logical_action<int> act{this, "act", {.min_delay = 100ms}};
  explicit ManualGeneratedDelay(context ctx) : reactor(ctx) {
    reaction().triggers(y_in).effects(act).body(
        [this](action_scheduler<int>& act) { act.schedule(y_in.get()); });
    reaction().triggers(act).effects(y_out).body(
        [this](port_writer<int>& y_out) { y_out.set(act.get()); });
  }
};
struct ManualSink : reactor {
  input<int> in{this, "in"};
  bool received = false;
  explicit ManualSink(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      note(*this, "elapsed " + str(elapsed_logical_time().count()));
      lf_check(elapsed_logical_time() == 100ms, "Expected 100 ms");
      received = true;
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "nothing received"); });
  }
};
struct ManualDelayedReaction : reactor {
  HSource source{{this, "source"}};
  ManualSink sink{{this, "sink"}};
  ManualGeneratedDelay g{{this, "g"}};
  explicit ManualDelayedReaction(context ctx) : reactor(ctx) {
    connect(source.out, g.y_in);
    connect(g.y_out, sink.in);
  }
};
LF_TEST(ManualDelayedReaction, ManualDelayedReaction, environment_options{})

// ---- Methods
struct Methods : reactor {
  int foo = 2;
  int getFoo() const { return foo; }
  void add(int x) { foo += x; }
  explicit Methods(context ctx) : reactor(ctx) {
    reaction().triggers(startup).body([this] {
      lf_check(getFoo() == 2, "expected 2!");
      add(40);
      note(*this, "2 + 40 = " + str(getFoo()));
      lf_check(getFoo() == 42, "expected 42!");
    });
  }
};
LF_TEST(Methods, Methods, environment_options{})

}  // namespace
}  // namespace lf_test
