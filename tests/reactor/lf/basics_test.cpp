// Ported from lf-lang/lingua-franca test/Cpp/src: Hello, ActionDelay, ActionIsPresent,
// AfterZero, StarveZero, Alignment. Each keeps its LF name and its checks.
#include "../lf_test_support.hpp"

namespace lf_test {
namespace {

// ---- Hello
struct HelloCpp : reactor {
  timer t;
  logical_action<void> a{this, "a"};
  std::string message;
  int count = 0;
  time_point previous_time{};
  HelloCpp(context ctx, duration period, std::string message)
      : reactor(ctx), t{this, "t", 1s, period}, message(std::move(message)) {
    reaction().triggers(t).effects(a).body([this](action_scheduler<void>& a) {
      note(*this, this->message);
      a.schedule(200ms);
      previous_time = logical_time();
    });
    reaction().triggers(a).body([this] {
      ++count;
      auto diff = logical_time() - previous_time;
      note(*this, "action " + str(count));
      lf_check(diff == 200ms,
               "Expected 200 msecs of logical time to elapse but got " + str(diff.count()));
    });
  }
};
struct HelloInside : reactor {
  HelloCpp third_instance;
  HelloInside(context ctx, duration period, std::string message)
      : reactor(ctx), third_instance{{this, "third_instance"}, period, std::move(message)} {}
};
struct Hello : reactor {
  HelloCpp first_instance{{this, "first_instance"}, 4s, "Hello from first_instance."};
  HelloCpp second_instance{{this, "second_instance"}, 2s, "Hello from second_instance."};
  HelloInside composite_instance{{this, "composite_instance"}, 1s, "Hello from composite."};
  explicit Hello(context ctx) : reactor(ctx) {}
};
LF_TEST(Hello, Hello, (environment_options{.fast = true, .timeout = 10s}))

// ---- ActionDelay
struct GeneratedDelay : reactor {
  input<int> y_in{this, "y_in"};
  output<int> y_out{this, "y_out"};
  int y_state = 0;
  logical_action<void> act{this, "act", {.min_delay = 100ms}};
  explicit GeneratedDelay(context ctx) : reactor(ctx) {
    reaction().triggers(y_in).effects(act).body([this](action_scheduler<void>& act) {
      y_state = y_in.get();
      act.schedule();
    });
    reaction().triggers(act).effects(y_out).body(
        [this](port_writer<int>& y_out) { y_out.set(y_state); });
  }
};
struct ActionDelaySource : reactor {
  output<int> out{this, "out"};
  explicit ActionDelaySource(context ctx) : reactor(ctx) {
    reaction().triggers(startup).effects(out).body([](port_writer<int>& out) { out.set(1); });
  }
};
struct ActionDelaySink : reactor {
  input<int> in{this, "in"};
  explicit ActionDelaySink(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      note(*this, "elapsed " + str(elapsed_logical_time().count()));
      lf_check(elapsed_logical_time() == 100ms,
               "Expected 100 msecs but got " + str(elapsed_logical_time().count()));
    });
  }
};
struct ActionDelay : reactor {
  ActionDelaySource source{{this, "source"}};
  ActionDelaySink sink{{this, "sink"}};
  GeneratedDelay g{{this, "g"}};
  explicit ActionDelay(context ctx) : reactor(ctx) {
    connect(source.out, g.y_in);
    connect(g.y_out, sink.in);
  }
};
LF_TEST(ActionDelay, ActionDelay, environment_options{})

// ---- ActionIsPresent
struct ActionIsPresent : reactor {
  logical_action<void> a{this, "a"};
  duration offset = 1ns;
  bool success = false;
  explicit ActionIsPresent(context ctx) : reactor(ctx) {
    reaction().triggers(startup, a).effects(a).body([this](action_scheduler<void>& sched) {
      if (!a.is_present()) {
        if (offset == 0ns) {
          success = true;
        } else {
          sched.schedule(offset);
        }
      } else {
        note(*this, "Hello World 2!");
        success = true;
      }
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(success, "Failed to print 'Hello World!'"); });
  }
};
LF_TEST(ActionIsPresent, ActionIsPresent, environment_options{})

// ---- AfterZero
struct AfterZeroFoo : reactor {
  input<int> x{this, "x"};
  output<int> y{this, "y"};
  explicit AfterZeroFoo(context ctx) : reactor(ctx) {
    reaction().triggers(x).effects(y).body([this](port_writer<int>& y) { y.set(2 * x.get()); });
  }
};
struct AfterZeroPrint : reactor {
  input<int> x{this, "x"};
  duration expected_time{0};
  int i = 0;
  explicit AfterZeroPrint(context ctx) : reactor(ctx) {
    reaction().triggers(x).body([this] {
      ++i;
      note(*this, str(x.get()) + " microstep " + str(get_microstep()));
      lf_check(x.get() == 84, "Expected result to be 84");
      lf_check(elapsed_logical_time() == expected_time,
               "Expected logical time to be " + str(expected_time.count()));
      lf_check(get_microstep() == 1, "Expected microstep to be 1");
      expected_time += 1s;
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(i != 0, "Final reactor received no data."); });
  }
};
struct AfterZero : reactor {
  timer t{this, "t", 0s, 1s};
  AfterZeroFoo f{{this, "f"}};
  AfterZeroPrint p{{this, "p"}};
  explicit AfterZero(context ctx) : reactor(ctx) {
    connect(f.y, p.x).after(0s);
    reaction().triggers(t).effects(f.x).body([](port_writer<int>& x) { x.set(42); });
  }
};
LF_TEST(AfterZero, AfterZero, (environment_options{.fast = false, .timeout = 3s}))

// ---- StarveZero
struct StarveZero : reactor {
  logical_action<void> after_shutdown{this, "after_shutdown"};
  explicit StarveZero(context ctx) : reactor(ctx) {
    reaction()
        .triggers(shutdown)
        .effects(after_shutdown)
        .body([this](action_scheduler<void>& after) {
          note(*this, "shutdown");
          lf_check(elapsed_logical_time() == 0s && get_microstep() == 1,
                   "Shutdown invoked at wrong tag");
          after.schedule();
        });
    reaction().triggers(after_shutdown).body([] { lf_fail("Executed a reaction after shutdown"); });
  }
};
LF_TEST(StarveZero, StarveZero, environment_options{})

// ---- Alignment
struct AlignmentSource : reactor {
  output<int> out{this, "out"};
  int count = 1;
  timer t{this, "t", 0s, 100ms};
  explicit AlignmentSource(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(out).body([this](port_writer<int>& out) { out.set(++count); });
  }
};
struct Sieve : reactor {
  input<int> in{this, "in"};
  output<bool> out{this, "out"};
  std::vector<int> primes;
  explicit Sieve(context ctx) : reactor(ctx) {
    reaction().triggers(startup).body([this] { primes.push_back(3); });
    reaction().triggers(in).effects(out).body([this](port_writer<bool>& out) {
      int value = in.get();
      if (value == 1 || value == 2) {
        out.set(true);
        return;
      }
      int candidate = primes.back();
      while (value > primes.back()) {
        candidate += 2;
        bool prime = true;
        for (int p : primes)
          if (candidate % p == 0) {
            prime = false;
            break;
          }
        if (prime) primes.push_back(candidate);
      }
      for (auto i = primes.rbegin(); i != primes.rend(); ++i)
        if (*i == value) {
          out.set(true);
          return;
        }
    });
  }
};
struct Destination : reactor {
  input<bool> ok{this, "ok"};
  input<int> in{this, "in"};
  std::optional<tag> last_invoked;
  explicit Destination(context ctx) : reactor(ctx) {
    reaction().triggers(ok, in).body([this] {
      if (ok.is_present() && in.is_present()) note(*this, str(in.get()) + " is prime");
      lf_check(!last_invoked || current_tag() > *last_invoked, "Invoked twice at one tag");
      last_invoked = current_tag();
    });
  }
};
struct Alignment : reactor {
  AlignmentSource source{{this, "source"}};
  Sieve sieve{{this, "sieve"}};
  Destination destination{{this, "destination"}};
  explicit Alignment(context ctx) : reactor(ctx) {
    connect(source.out, sieve.in);
    connect(sieve.out, destination.ok);
    connect(source.out, destination.in);
  }
};
LF_TEST(Alignment, Alignment, (environment_options{.fast = true, .timeout = 1s}))

}  // namespace
}  // namespace lf_test
