#pragma once
// Reactors of LF's test/Cpp/src/lib that several ported tests import.
#include "../lf_test_support.hpp"

namespace lf_test {

// lib/Count.lf
struct Count : reactor {
  output<int> c{this, "c"};
  timer t{this, "t", 0s, 1s};
  int i = 0;
  explicit Count(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(c).body([this](port_writer<int>& c) { c.set(++i); });
  }
};

}  // namespace lf_test

namespace lf_test {

// lib/LoopedActionSender.lf: `take_a_break_after` messages in superdense time, then a break.
struct Sender : reactor {
  output<int> out{this, "out"};
  logical_action<void> act{this, "act"};
  int sent_messages = 0;
  int take_a_break_after;
  duration break_interval;
  explicit Sender(context ctx, int take_a_break_after = 10, duration break_interval = 400ms)
      : reactor(ctx), take_a_break_after(take_a_break_after), break_interval(break_interval) {
    reaction()
        .triggers(startup, act)
        .effects(act, out)
        .body([this](action_scheduler<void>& act, port_writer<int>& out) {
          out.set(sent_messages);
          ++sent_messages;
          if (sent_messages < this->take_a_break_after) {
            act.schedule(0ns);
          } else {
            sent_messages = 0;
            act.schedule(this->break_interval);
          }
        });
  }
};

}  // namespace lf_test

namespace lf_test {

// Composition.lf's Source and Test (also CompositionAfter, concurrent/CompositionThreaded).
struct CompositionSource : reactor {
  output<int> y{this, "y"};
  timer t;
  int count = 0;
  CompositionSource(context ctx, duration period) : reactor(ctx), t{this, "t", 1s, period} {
    reaction().triggers(t).effects(y).body([this](port_writer<int>& y) { y.set(++count); });
  }
};
struct CompositionTest : reactor {
  input<int> x{this, "x"};
  int count = 0;
  int expected_total;
  CompositionTest(context ctx, int expected_total) : reactor(ctx), expected_total(expected_total) {
    reaction().triggers(x).body([this] {
      ++count;
      note(*this, "Received " + str(x.get()));
      lf_check(x.get() == count, "FAILURE: Expected " + str(count));
    });
    reaction().triggers(shutdown).body([this] {
      lf_check(count == this->expected_total, "expected to receive " + str(this->expected_total) +
                                                  " values but got " + str(count));
    });
  }
};
// DoubleReaction.lf's Clock (also TimeLimit).
struct Clock : reactor {
  output<int> y{this, "y"};
  timer t;
  int count = 0;
  explicit Clock(context ctx, duration offset = 0s, duration period = 1s)
      : reactor(ctx), t{this, "t", offset, period} {
    reaction().triggers(t).effects(y).body([this](port_writer<int>& y) { y.set(++count); });
  }
};
}  // namespace lf_test
