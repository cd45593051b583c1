// Ported from lf-lang/lingua-franca test/Cpp/src/multiport: banks, multiports, broadcast,
// interleaved and `after` wiring. Each keeps its LF name and its checks.
#include <array>

#include "lib.hpp"

namespace lf_test {
namespace {

// ---- BankToBank
struct BBSource : reactor {
  timer t{this, "t", 0s, 200ms};
  output<int> out{this, "out"};
  int s = 0;
  explicit BBSource(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(out).body([this](port_writer<int>& out) {
      out.set(s);
      s += static_cast<int>(bank_index());
    });
  }
};
struct BBDestination : reactor {
  int s = 0;
  input<int> in{this, "in"};
  explicit BBDestination(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      note(*this, "received " + str(in.get()));
      lf_check(in.get() == s, "Expected " + str(s));
      s += static_cast<int>(bank_index());
    });
    reaction().triggers(shutdown).body([this] {
      lf_check(!(s == 0 && bank_index() != 0),
               "Destination " + str(bank_index()) + " received no input!");
    });
  }
};
struct BankToBank : reactor {
  bank<BBSource> a;
  bank<BBDestination> b;
  explicit BankToBank(context ctx, std::size_t width = 4)
      : reactor(ctx), a{this, "a", width}, b{this, "b", width} {
    connect(a.ports(&BBSource::out), b.ports(&BBDestination::in));
  }
};
LF_TEST(BankToBank, BankToBank, (environment_options{.fast = true, .timeout = 2s}))

// ---- BankToBankMultiport and BankToBankMultiportAfter
struct MPSource : reactor {
  multiport_output<int> out;
  timer t{this, "t", 0s, 200ms};
  int s = 0;
  explicit MPSource(context ctx, std::size_t width = 1) : reactor(ctx), out{this, "out", width} {
    reaction().triggers(t).effects(out).body([this](multiport_writer<int>& out) {
      for (std::size_t i = 0; i < out.size(); ++i) out[i].set(s++);
    });
  }
};
struct MPDestination : reactor {
  multiport_input<int> in;
  int s = 6;
  unsigned iterations = 0;
  bool check_time;
  MPDestination(context ctx, std::size_t width, bool check_time)
      : reactor(ctx), in{this, "in", width}, check_time(check_time) {
    reaction().triggers(in).body([this] {
      ++iterations;
      if (this->check_time)
        lf_check(elapsed_logical_time() == iterations * 200ms,
                 "Expected logical time to be " + str((iterations * 200ms).count()));
      int sum = 0;
      for (std::size_t i = 0; i < in.size(); ++i)
        if (in[i].is_present()) sum += in[i].get();
      note(*this, "Sum of received: " + str(sum));
      lf_check(sum == s, "Expected " + str(s));
      s += 16;
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(s > 6, "Destination received no input!"); });
  }
};
template <bool After>
struct BankToBankMultiportProgram : reactor {
  bank<MPSource> a;
  bank<MPDestination> b;
  explicit BankToBankMultiportProgram(context ctx, std::size_t bank_width = 4)
      : reactor(ctx), a{this, "a", bank_width, 4}, b{this, "b", bank_width, 4, After} {
    auto& c = connect(a.ports(&MPSource::out), b.ports(&MPDestination::in));
    if (After) c.after(200ms);
  }
};
LF_TEST(BankToBankMultiport, BankToBankMultiportProgram<false>,
        (environment_options{.fast = true, .timeout = 2s}))
LF_TEST(BankToBankMultiportAfter, BankToBankMultiportProgram<true>,
        (environment_options{.fast = true, .timeout = 2s}))

// ---- BankToMultiport
struct IndexSource : reactor {
  output<unsigned> out{this, "out"};
  explicit IndexSource(context ctx) : reactor(ctx) {
    reaction().triggers(startup).effects(out).body(
        [this](port_writer<unsigned>& out) { out.set(static_cast<unsigned>(bank_index())); });
  }
};
struct ChannelSink : reactor {
  multiport_input<unsigned> in;
  bool received = false;
  explicit ChannelSink(context ctx, std::size_t width = 4) : reactor(ctx), in{this, "in", width} {
    reaction().triggers(in).body([this] {
      for (unsigned i = 0; i < in.size(); ++i) {
        received = true;
        note(*this, "Received " + str(in[i].get()));
        lf_check(in[i].get() == i, "expected " + str(i));
      }
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "received no input!"); });
  }
};
struct BankToMultiport : reactor {
  bank<IndexSource> source{this, "source", 4};
  ChannelSink sink{{this, "sink"}};
  explicit BankToMultiport(context ctx) : reactor(ctx) {
    connect(source.ports(&IndexSource::out), sink.in);
  }
};
LF_TEST(BankToMultiport, BankToMultiport, environment_options{})

// ---- Broadcast, BroadcastAfter, BroadcastMultipleAfter
struct ValueSource : reactor {
  output<unsigned> out{this, "out"};
  explicit ValueSource(context ctx, unsigned value = 42) : reactor(ctx) {
    reaction().triggers(startup).effects(out).body(
        [value](port_writer<unsigned>& out) { out.set(value); });
  }
};
struct BroadcastSink : reactor {
  input<unsigned> in{this, "in"};
  bool received = false;
  std::function<unsigned(std::size_t)> expected;
  duration at;
  BroadcastSink(context ctx, std::function<unsigned(std::size_t)> expected, duration at)
      : reactor(ctx), expected(std::move(expected)), at(at) {
    reaction().triggers(in).body([this] {
      note(*this, "received " + str(in.get()));
      lf_check(in.get() == this->expected(bank_index()),
               "expected " + str(this->expected(bank_index())));
      lf_check(elapsed_logical_time() == this->at, "received at the wrong time");
      received = true;
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(received, "Destination " + str(bank_index()) + " received no input!"); });
  }
};
unsigned always_42(std::size_t) {
  return 42;
}
struct Broadcast : reactor {
  ValueSource source{{this, "source"}};
  bank<BroadcastSink> sink{this, "sink", 4, std::function<unsigned(std::size_t)>(always_42), 0s};
  explicit Broadcast(context ctx) : reactor(ctx) {
    connect(broadcast(port_list(source.out)), sink.ports(&BroadcastSink::in));
  }
};
LF_TEST(Broadcast, Broadcast, environment_options{})
struct BroadcastAfter : reactor {
  ValueSource source{{this, "source"}};
  bank<BroadcastSink> sink{this, "sink", 4, std::function<unsigned(std::size_t)>(always_42), 1s};
  explicit BroadcastAfter(context ctx) : reactor(ctx) {
    connect(broadcast(port_list(source.out)), sink.ports(&BroadcastSink::in)).after(1s);
  }
};
LF_TEST(BroadcastAfter, BroadcastAfter, (environment_options{.fast = true}))
unsigned cycle_of_three(std::size_t i) {
  return static_cast<unsigned>(i % 3 + 1);
}
struct BroadcastMultipleAfter : reactor {
  ValueSource source1{{this, "source1"}, 1};
  ValueSource source2{{this, "source2"}, 2};
  ValueSource source3{{this, "source3"}, 3};
  bank<BroadcastSink> sink{this, "sink", 9, std::function<unsigned(std::size_t)>(cycle_of_three),
                           1s};
  explicit BroadcastMultipleAfter(context ctx) : reactor(ctx) {
    connect(broadcast(ports(source1.out, source2.out, source3.out)), sink.ports(&BroadcastSink::in))
        .after(1s);
  }
};
LF_TEST(BroadcastMultipleAfter, BroadcastMultipleAfter, (environment_options{.fast = true}))

// ---- FullyConnected
struct Node : reactor {
  multiport_input<std::size_t> in;
  output<std::size_t> out{this, "out"};
  bool received = false;
  std::size_t num_nodes;
  explicit Node(context ctx, std::size_t num_nodes = 4)
      : reactor(ctx), in{this, "in", num_nodes}, num_nodes(num_nodes) {
    reaction().triggers(startup).effects(out).body(
        [this](port_writer<std::size_t>& out) { out.set(bank_index()); });
    reaction().triggers(in).body([this] {
      received = true;
      std::size_t count = 0;
      std::string from;
      for (std::size_t i : in.present_indices()) {
        ++count;
        from += str(in[i].get()) + ",";
      }
      note(*this, "received from " + from);
      lf_check(count == this->num_nodes, "received less messages than expected!");
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "received no input!"); });
  }
};
struct FullyConnected : reactor {
  bank<Node> nodes;
  explicit FullyConnected(context ctx, std::size_t num_nodes = 4)
      : reactor(ctx), nodes{this, "nodes", num_nodes, num_nodes} {
    connect(broadcast(nodes.ports(&Node::out)), nodes.ports(&Node::in));
  }
};
LF_TEST(FullyConnected, FullyConnected, environment_options{})

// ---- FullyConnectedAddressable
struct AddressableNode : reactor {
  multiport_input<std::size_t> in;
  multiport_output<std::size_t> out;
  bool received = false;
  std::size_t num_nodes;
  explicit AddressableNode(context ctx, std::size_t num_nodes = 4)
      : reactor(ctx), in{this, "in", num_nodes}, out{this, "out", num_nodes}, num_nodes(num_nodes) {
    reaction().triggers(startup).effects(out).body([this](multiport_writer<std::size_t>& out) {
      out[(bank_index() + 1) % this->num_nodes].set(bank_index());  // to the right neighbour
    });
    reaction().triggers(in).body([this] {
      received = true;
      std::size_t count = 0, result = 0;
      for (auto& port : in)
        if (port.is_present()) {
          ++count;
          result = port.get();
        }
      note(*this, "received " + str(result));
      std::size_t expected = bank_index() == 0 ? this->num_nodes - 1 : bank_index() - 1;
      lf_check(count == 1 && result == expected, "received an unexpected message!");
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "received no input!"); });
  }
};
struct FullyConnectedAddressable : reactor {
  bank<AddressableNode> nodes1;
  bank<AddressableNode> nodes2;
  explicit FullyConnectedAddressable(context ctx, std::size_t num_nodes = 4)
      : reactor(ctx),
        nodes1{this, "nodes1", num_nodes, num_nodes},
        nodes2{this, "nodes2", num_nodes, num_nodes} {
    connect(nodes1.ports(&AddressableNode::out), nodes1.interleaved(&AddressableNode::in));
    connect(nodes2.interleaved(&AddressableNode::out), nodes2.ports(&AddressableNode::in));
  }
};
LF_TEST(FullyConnectedAddressable, FullyConnectedAddressable, environment_options{})

// ---- IndexIntoMultiportInput
struct ReactorWithMultiportIn : reactor {
  multiport_input<int> in{this, "in", 3};
  explicit ReactorWithMultiportIn(context ctx) : reactor(ctx) {
    reaction().triggers(startup, in).body([this] {
      for (std::size_t i = 0; i < in.size(); ++i) {
        lf_check(in[i].is_present(), "input " + str(i) + " is not present");
        lf_check(in[i].get() == static_cast<int>(i), "received wrong input on port " + str(i));
      }
      note(*this, "success");
    });
  }
};
struct MultiportSplitterIn : reactor {
  multiport_output<int> out{this, "out", 3};
  input<int> in0{this, "in0"}, in1{this, "in1"}, in2{this, "in2"};
  explicit MultiportSplitterIn(context ctx) : reactor(ctx) { connect(ports(in0, in1, in2), out); }
};
struct IndexIntoMultiportInput : reactor {
  MultiportSplitterIn splitter{{this, "splitter"}};
  ReactorWithMultiportIn receiver{{this, "receiver"}};
  explicit IndexIntoMultiportInput(context ctx) : reactor(ctx) {
    connect(splitter.out, receiver.in);
    reaction().triggers(startup).effects(splitter.in0).body([](port_writer<int>& p) { p.set(0); });
    reaction().triggers(startup).effects(splitter.in1).body([](port_writer<int>& p) { p.set(1); });
    reaction().triggers(startup).effects(splitter.in2).body([](port_writer<int>& p) { p.set(2); });
  }
};
LF_TEST(IndexIntoMultiportInput, IndexIntoMultiportInput, environment_options{})

// ---- IndexIntoMultiportOutput
struct ReactorWithMultiportOut : reactor {
  multiport_output<int> out{this, "out", 3};
  explicit ReactorWithMultiportOut(context ctx) : reactor(ctx) {
    reaction().triggers(startup).effects(out).body([](multiport_writer<int>& out) {
      for (std::size_t i = 0; i < out.size(); ++i) out[i].set(static_cast<int>(i));
    });
  }
};
struct MultiportSplitterOut : reactor {
  multiport_input<int> in{this, "in", 3};
  output<int> out0{this, "out0"}, out1{this, "out1"}, out2{this, "out2"};
  explicit MultiportSplitterOut(context ctx) : reactor(ctx) {
    connect(in, ports(out0, out1, out2));
  }
};
struct IndexIntoMultiportOutput : reactor {
  ReactorWithMultiportOut source{{this, "source"}};
  MultiportSplitterOut splitter{{this, "splitter"}};
  bool received0 = false, received1 = false, received2 = false;
  explicit IndexIntoMultiportOutput(context ctx) : reactor(ctx) {
    connect(source.out, splitter.in);
    reaction().triggers(splitter.out0).body([this] {
      received0 = true;
      lf_check(splitter.out0.get() == 0, "expected 0");
    });
    reaction().triggers(splitter.out1).body([this] {
      received1 = true;
      lf_check(splitter.out1.get() == 1, "expected 1");
    });
    reaction().triggers(splitter.out2).body([this] {
      received2 = true;
      lf_check(splitter.out2.get() == 2, "expected 2");
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(received0 && received1 && received2, "missed a message"); });
  }
};
LF_TEST(IndexIntoMultiportOutput, IndexIntoMultiportOutput, environment_options{})

// ---- Multiport (3,000 channels of presence-only ports; sparse indices)
struct MultiportTest : reactor {
  multiport_input<void> sink{this, "sink", 3000};
  multiport_output<void> source{this, "source", 3000};
  explicit MultiportTest(context ctx) : reactor(ctx) {
    reaction().triggers(sink).effects(source).body([this](multiport_writer<void>& source) {
      for (std::size_t i : sink.present_indices()) source[i].set();
    });
  }
};
struct Multiport : reactor {
  MultiportTest test{{this, "test"}};
  bool received = false;
  explicit Multiport(context ctx) : reactor(ctx) {
    reaction().triggers(startup).effects(test.sink).body([](multiport_writer<void>& sink) {
      for (int i = 0; i < 30; ++i) sink[(i * 100) % 3000].set();
    });
    reaction().triggers(test.source).body([this] {
      received = true;
      std::vector<std::size_t> positions;
      for (int i = 0; i < 30; ++i) positions.push_back((i * 100) % 3000);
      lf_check(test.source.present_indices() == positions, "indices do not match");
      note(*this, "all indices match");
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "received no input!"); });
  }
};
LF_TEST(Multiport, Multiport, environment_options{})

// ---- MultiportFromBank and MultiportFromBankHierarchy
struct IndexedChannelsDestination : reactor {
  multiport_input<unsigned> in;
  bool received = false;
  explicit IndexedChannelsDestination(context ctx, std::size_t port_width = 2)
      : reactor(ctx), in{this, "in", port_width} {
    reaction().triggers(in).body([this] {
      for (std::size_t i = 0; i < in.size(); ++i) {
        note(*this, "channel " + str(i) + " received " + str(in[i].get()));
        lf_check(in[i].get() == i, "Expected " + str(i));
      }
      received = true;
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(received, "Destination received no input!"); });
  }
};
struct MultiportFromBank : reactor {
  bank<IndexSource> a;
  IndexedChannelsDestination b;
  explicit MultiportFromBank(context ctx, std::size_t width = 4)
      : reactor(ctx), a{this, "a", width}, b{{this, "b"}, width} {
    connect(a.ports(&IndexSource::out), b.in);
  }
};
LF_TEST(MultiportFromBank, MultiportFromBank, (environment_options{.fast = true, .timeout = 2s}))
struct SourceContainer : reactor {
  multiport_output<unsigned> out{this, "out", 3};
  bank<IndexSource> s{this, "s", 3};
  explicit SourceContainer(context ctx) : reactor(ctx) { connect(s.ports(&IndexSource::out), out); }
};
struct MultiportFromBankHierarchy : reactor {
  SourceContainer a{{this, "a"}};
  IndexedChannelsDestination b{{this, "b"}, 3};
  explicit MultiportFromBankHierarchy(context ctx) : reactor(ctx) { connect(a.out, b.in); }
};
LF_TEST(MultiportFromBankHierarchy, MultiportFromBankHierarchy,
        (environment_options{.fast = true, .timeout = 2s}))

// ---- MultiportFromHierarchy and MultiportToHierarchy
struct SumDestination : reactor {
  multiport_input<int> in;
  int s = 6;
  explicit SumDestination(context ctx, std::size_t width = 4)
      : reactor(ctx), in{this, "in", width} {
    reaction().triggers(in).body([this] {
      int sum = 0;
      for (std::size_t i : in.present_indices()) sum += in[i].get();
      note(*this, "Sum of received: " + str(sum));
      lf_check(sum == s, "Expected " + str(s));
      s += 16;
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(s > 6, "Destination received no input!"); });
  }
};
struct InsideContainer : reactor {
  multiport_output<int> out{this, "out", 4};
  MPSource src{{this, "src"}, 4};
  explicit InsideContainer(context ctx) : reactor(ctx) { connect(src.out, out); }
};
struct OutsideContainer : reactor {
  multiport_output<int> out{this, "out", 4};
  InsideContainer src{{this, "src"}};
  explicit OutsideContainer(context ctx) : reactor(ctx) { connect(src.out, out); }
};
struct MultiportFromHierarchy : reactor {
  OutsideContainer a{{this, "a"}};
  SumDestination b{{this, "b"}};
  explicit MultiportFromHierarchy(context ctx) : reactor(ctx) { connect(a.out, b.in); }
};
LF_TEST(MultiportFromHierarchy, MultiportFromHierarchy,
        (environment_options{.fast = true, .timeout = 2s}))
struct DestinationContainer : reactor {
  multiport_input<int> in;
  SumDestination dst;
  explicit DestinationContainer(context ctx, std::size_t width = 4)
      : reactor(ctx), in{this, "in", width}, dst{{this, "dst"}, width} {
    connect(in, dst.in);
  }
};
struct MultiportToHierarchy : reactor {
  MPSource a;
  DestinationContainer b;
  explicit MultiportToHierarchy(context ctx, std::size_t width = 4)
      : reactor(ctx), a{{this, "a"}, width}, b{{this, "b"}, width} {
    connect(a.out, b.in);
  }
};
LF_TEST(MultiportToHierarchy, MultiportToHierarchy,
        (environment_options{.fast = true, .timeout = 2s}))

// ---- MultiportIn and MultiportOut
struct CountingSource : reactor {
  timer t{this, "t", 0s, 200ms};
  output<int> out{this, "out"};
  int s = 0;
  explicit CountingSource(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(out).body([this](port_writer<int>& out) { out.set(s++); });
  }
};
struct Forward : reactor {
  input<int> in{this, "in"};
  output<int> out{this, "out"};
  explicit Forward(context ctx) : reactor(ctx) {
    reaction().triggers(in).effects(out).body([this](port_writer<int>& out) { out.set(in.get()); });
  }
};
struct FourSumDestination : reactor {
  int s = 0;
  multiport_input<int> in{this, "in", 4};
  explicit FourSumDestination(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      int sum = 0;
      for (std::size_t i = 0; i < in.size(); ++i) sum += in[i].get();
      note(*this, "Sum of received: " + str(sum));
      lf_check(sum == s, "Expected " + str(s));
      s += 4;
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(s != 0, "Destination received no input!"); });
  }
};
struct MultiportIn : reactor {
  CountingSource a{{this, "a"}};
  Forward t1{{this, "t1"}}, t2{{this, "t2"}}, t3{{this, "t3"}}, t4{{this, "t4"}};
  FourSumDestination b{{this, "b"}};
  explicit MultiportIn(context ctx) : reactor(ctx) {
    connect(a.out, t1.in);
    connect(a.out, t2.in);
    connect(a.out, t3.in);
    connect(a.out, t4.in);
    connect(ports(t1.out, t2.out, t3.out, t4.out), b.in);
  }
};
LF_TEST(MultiportIn, MultiportIn, (environment_options{.fast = true, .timeout = 2s}))
struct SameValueSource : reactor {
  timer t{this, "t", 0s, 200ms};
  multiport_output<int> out{this, "out", 4};
  int s = 0;
  explicit SameValueSource(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(out).body([this](multiport_writer<int>& out) {
      for (std::size_t i = 0; i < 4; ++i) out[i].set(s);
      ++s;
    });
  }
};
struct MultiportOut : reactor {
  SameValueSource a{{this, "a"}};
  Forward t1{{this, "t1"}}, t2{{this, "t2"}}, t3{{this, "t3"}}, t4{{this, "t4"}};
  FourSumDestination b{{this, "b"}};
  explicit MultiportOut(context ctx) : reactor(ctx) {
    connect(a.out, ports(t1.in, t2.in, t3.in, t4.in));
    connect(ports(t1.out, t2.out, t3.out, t4.out), b.in);
  }
};
LF_TEST(MultiportOut, MultiportOut, (environment_options{.fast = true, .timeout = 2s}))

// ---- MultiportMultipleSet (the last of several sets at one tag wins)
struct Producer : reactor {
  timer t{this, "t", 0s, 100ms};
  multiport_output<int> out{this, "out", 10};
  bool odd = true;
  explicit Producer(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(out).body([this](multiport_writer<int>& out) {
      for (int i = odd ? 1 : 0; i < 10; i += 2)
        for (int j = 0; j < 10; ++j) out[i].set(j);
      odd = !odd;
    });
  }
};
struct Consumer : reactor {
  bool odd = true;
  multiport_input<int> in{this, "in", 10};
  explicit Consumer(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      int count = 0;
      for (std::size_t i : in.present_indices()) {
        ++count;
        lf_check(!(odd && i % 2 == 0), "Expected values only on odd ports");
        lf_check(!(!odd && i % 2 == 1), "Expected values only on even ports");
        lf_check(in[i].get() == 9, "Expected 9 but got " + str(in[i].get()));
      }
      lf_check(count == 5, "Expected count to be 5, but got " + str(count));
      odd = !odd;
    });
  }
};
struct MultiportMultipleSet : reactor {
  Consumer c{{this, "c"}};
  Producer p{{this, "p"}};
  explicit MultiportMultipleSet(context ctx) : reactor(ctx) { connect(p.out, c.in); }
};
LF_TEST(MultiportMultipleSet, MultiportMultipleSet, (environment_options{.timeout = 1s}))

// ---- MultiportToBank, MultiportToBankAfter, MultiportToBankHierarchy
struct ChannelSource : reactor {
  multiport_output<unsigned> out;
  explicit ChannelSource(context ctx, std::size_t width = 4)
      : reactor(ctx), out{this, "out", width} {
    reaction().triggers(startup).effects(out).body([](multiport_writer<unsigned>& out) {
      for (unsigned i = 0; i < out.size(); ++i) out[i].set(i);
    });
  }
};
struct BankIndexSink : reactor {
  input<unsigned> in{this, "in"};
  duration at;
  bool received = false;
  explicit BankIndexSink(context ctx, duration at = 0s) : reactor(ctx), at(at) {
    reaction().triggers(in).body([this] {
      note(*this, "Received " + str(in.get()));
      lf_check(in.get() == bank_index(), "expected " + str(bank_index()));
      lf_check(elapsed_logical_time() == this->at, "received at the wrong time");
      received = true;
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "received no input!"); });
  }
};
struct MultiportToBank : reactor {
  ChannelSource source{{this, "source"}};
  bank<BankIndexSink> sink{this, "sink", 4};
  explicit MultiportToBank(context ctx) : reactor(ctx) {
    connect(source.out, sink.ports(&BankIndexSink::in));
  }
};
LF_TEST(MultiportToBank, MultiportToBank, environment_options{})
struct MultiportToBankAfter : reactor {
  ChannelSource source{{this, "source"}};
  bank<BankIndexSink> sink{this, "sink", 4, duration(1s)};
  explicit MultiportToBankAfter(context ctx) : reactor(ctx) {
    connect(source.out, sink.ports(&BankIndexSink::in)).after(1s);
  }
};
LF_TEST(MultiportToBankAfter, MultiportToBankAfter, (environment_options{.fast = true}))
struct BankContainer : reactor {
  multiport_input<unsigned> in{this, "in", 3};
  bank<BankIndexSink> c{this, "c", 3};
  explicit BankContainer(context ctx) : reactor(ctx) { connect(in, c.ports(&BankIndexSink::in)); }
};
struct MultiportToBankHierarchy : reactor {
  ChannelSource a{{this, "a"}, 3};
  BankContainer b{{this, "b"}};
  explicit MultiportToBankHierarchy(context ctx) : reactor(ctx) { connect(a.out, b.in); }
};
LF_TEST(MultiportToBankHierarchy, MultiportToBankHierarchy,
        (environment_options{.fast = true, .timeout = 2s}))

// ---- MultiportToMultiport, MultiportToMultiport2, MultiportToMultiport2After
struct MultiportToMultiport : reactor {
  ChannelSource source{{this, "source"}};
  ChannelSink sink{{this, "sink"}};
  explicit MultiportToMultiport(context ctx) : reactor(ctx) { connect(source.out, sink.in); }
};
LF_TEST(MultiportToMultiport, MultiportToMultiport, environment_options{})
struct ModuloDestination : reactor {
  multiport_input<unsigned> in;
  duration at;
  int received = 0;
  ModuloDestination(context ctx, std::size_t width, duration at)
      : reactor(ctx), in{this, "in", width}, at(at) {
    reaction().triggers(in).body([this] {
      for (std::size_t i : in.present_indices()) {
        ++received;
        note(*this, "channel " + str(i) + ": " + str(in[i].get()));
        lf_check(in[i].get() == i % 3, "expected " + str(i % 3));
      }
      lf_check(elapsed_logical_time() == this->at, "received at the wrong time");
    });
    reaction().triggers(shutdown).body([this] { lf_check(received == 5, "5 values expected"); });
  }
};
template <bool After>
struct MultiportToMultiport2Program : reactor {
  ChannelSource a1{{this, "a1"}, 3};
  ChannelSource a2{{this, "a2"}, 2};
  ModuloDestination b{{this, "b"}, 5, After ? duration(1s) : duration(0s)};
  explicit MultiportToMultiport2Program(context ctx) : reactor(ctx) {
    auto& c = connect(ports(a1.out, a2.out), b.in);
    if (After) c.after(1s);
  }
};
LF_TEST(MultiportToMultiport2, MultiportToMultiport2Program<false>, environment_options{})
LF_TEST(MultiportToMultiport2After, MultiportToMultiport2Program<true>,
        (environment_options{.fast = true}))

// ---- MultiportToMultiportArray (shared immutable values: no copy per reader)
struct ArraySource : reactor {
  timer t{this, "t", 0s, 200ms};
  multiport_output<std::array<int, 3>> out{this, "out", 2};
  int s = 0;
  explicit ArraySource(context ctx) : reactor(ctx) {
    reaction().triggers(t).effects(out).body([this](multiport_writer<std::array<int, 3>>& out) {
      for (std::size_t i = 0; i < 2; ++i) {
        auto a = std::make_shared<std::array<int, 3>>();
        (*a)[0] = s++;
        (*a)[1] = s++;
        (*a)[2] = s++;
        out[i].set(std::shared_ptr<const std::array<int, 3>>(std::move(a)));
      }
    });
  }
};
struct ArrayDestination : reactor {
  int s = 15;
  multiport_input<std::array<int, 3>> in{this, "in", 2};
  explicit ArrayDestination(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      int sum = 0;
      for (std::size_t i = 0; i < in.size(); ++i)
        if (in[i].is_present())
          for (int v : in[i].get()) sum += v;
      note(*this, "Sum of received: " + str(sum));
      lf_check(sum == s, "Expected " + str(s));
      s += 36;
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(s > 15, "Destination received no input!"); });
  }
};
struct MultiportToMultiportArray : reactor {
  ArraySource a{{this, "a"}};
  ArrayDestination b{{this, "b"}};
  explicit MultiportToMultiportArray(context ctx) : reactor(ctx) { connect(a.out, b.in); }
};
LF_TEST(MultiportToMultiportArray, MultiportToMultiportArray,
        (environment_options{.fast = true, .timeout = 2s}))

// ---- MultiportToMultiportPhysical (physical time: run, not compared)
struct OneAtATimeSink : reactor {
  multiport_input<unsigned> in{this, "in", 4};
  int received = -1;
  explicit OneAtATimeSink(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      auto present = in.present_indices();
      lf_check(present.size() == 1, "Expected only one value, but got " + str(present.size()));
      int idx = static_cast<int>(present[0]);
      lf_check(idx > received, "Received index " + str(idx) + " after " + str(received));
      received = idx;
      if (received == 3) request_stop();  // physical connections keep the program alive
    });
    reaction().triggers(shutdown).body([this] { lf_check(received == 3, "No data received!"); });
  }
};
struct MultiportToMultiportPhysical : reactor {
  ChannelSource source{{this, "source"}};
  OneAtATimeSink sink{{this, "sink"}};
  explicit MultiportToMultiportPhysical(context ctx) : reactor(ctx) {
    connect(source.out, sink.in).physical();
  }
};
LF_TEST_PHYSICAL(MultiportToMultiportPhysical, MultiportToMultiportPhysical, environment_options{})

// ---- MultiportToPort
struct ExpectingDestination : reactor {
  input<unsigned> in{this, "in"};
  bool received = false;
  explicit ExpectingDestination(context ctx, unsigned expected = 0) : reactor(ctx) {
    reaction().triggers(in).body([this, expected] {
      note(*this, "Received: " + str(in.get()));
      received = true;
      lf_check(in.get() == expected, "Expected " + str(expected));
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(received, "Destination received no input!"); });
  }
};
struct MultiportToPort : reactor {
  ChannelSource a{{this, "a"}, 2};
  ExpectingDestination b1{{this, "b1"}};
  ExpectingDestination b2{{this, "b2"}, 1};
  explicit MultiportToPort(context ctx) : reactor(ctx) { connect(a.out, ports(b1.in, b2.in)); }
};
LF_TEST(MultiportToPort, MultiportToPort, (environment_options{.fast = true, .timeout = 2s}))

// ---- PipelineAfter
struct PASource : reactor {
  output<unsigned> out{this, "out"};
  explicit PASource(context ctx) : reactor(ctx) {
    reaction().triggers(startup).effects(out).body([](port_writer<unsigned>& out) { out.set(40); });
  }
};
struct Compute : reactor {
  input<unsigned> in{this, "in"};
  output<unsigned> out{this, "out"};
  explicit Compute(context ctx) : reactor(ctx) {
    reaction().triggers(in).effects(out).body(
        [this](port_writer<unsigned>& out) { out.set(in.get() + 2); });
  }
};
struct PASink : reactor {
  input<unsigned> in{this, "in"};
  bool received = false;
  explicit PASink(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      note(*this, "Received " + str(in.get()));
      lf_check(in.get() == 42, "expected 42!");
      lf_check(elapsed_logical_time() == 1s, "Expected to receive input after 1 second.");
      received = true;
    });
    reaction().triggers(shutdown).body([this] { lf_check(received, "nothing received"); });
  }
};
struct PipelineAfter : reactor {
  PASource source{{this, "source"}};
  Compute compute{{this, "compute"}};
  PASink sink{{this, "sink"}};
  explicit PipelineAfter(context ctx) : reactor(ctx) {
    connect(ports(source.out, compute.out), ports(compute.in, sink.in)).after(500ms);
  }
};
LF_TEST(PipelineAfter, PipelineAfter, environment_options{})

// ---- ReadMultiportOutputOfContainedBank
struct ProductSource : reactor {
  multiport_output<unsigned> out{this, "out", 3};
  explicit ProductSource(context ctx) : reactor(ctx) {
    reaction().triggers(startup).effects(out).body([this](multiport_writer<unsigned>& out) {
      for (std::size_t i = 0; i < 3; ++i) out[i].set(static_cast<unsigned>(bank_index() * i));
    });
  }
};
struct ReadMultiportOutputOfContainedBank : reactor {
  bank<ProductSource> c{this, "c", 3};
  int count = 0;
  explicit ReadMultiportOutputOfContainedBank(context ctx) : reactor(ctx) {
    auto check_all = [this](const char* how) {
      for (std::size_t i = 0; i < c.size(); ++i)
        for (std::size_t j = 0; j < c[i].out.size(); ++j)
          lf_check(c[i].out[j].get() == i * j, std::string(how) + ": expected " + str(i * j));
      note(*this, how);
      ++count;
    };
    reaction().triggers(startup).sources(c.ports(&ProductSource::out)).body([check_all] {
      check_all("startup");
    });
    reaction().triggers(c.ports(&ProductSource::out)).body([check_all] { check_all("c.out"); });
    reaction().triggers(startup, c.ports(&ProductSource::out)).body([check_all] {
      check_all("both");
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(count == 3, "One of the reactions failed to trigger."); });
  }
};
LF_TEST(ReadMultiportOutputOfContainedBank, ReadMultiportOutputOfContainedBank,
        environment_options{})

// ---- WidthGivenByCode
struct WidthFoo : reactor {
  std::size_t a, b;
  multiport_input<std::size_t> in;
  multiport_output<std::size_t> out;
  explicit WidthFoo(context ctx, std::size_t a = 8, std::size_t b = 2)
      : reactor(ctx), a(a), b(b), in{this, "in", a * b}, out{this, "out", a / b} {
    reaction().triggers(startup).sources(in).effects(out).body(
        [this](multiport_writer<std::size_t>& out) {
          lf_check(in.size() == this->a * this->b, "expected in to have width a*b");
          lf_check(out.size() == this->a / this->b, "expected out to have width a/b");
        });
  }
};
struct WidthGivenByCode : reactor {
  WidthFoo foo1{{this, "foo1"}};
  WidthFoo foo2{{this, "foo2"}, 10, 3};
  WidthFoo foo3{{this, "foo3"}, 9, 9};
  bank<WidthFoo> foo_bank{this, "foo_bank", 42};
  explicit WidthGivenByCode(context ctx) : reactor(ctx) {
    reaction().triggers(startup).sources(foo_bank.ports(&WidthFoo::out)).body([this] {
      lf_check(foo_bank.size() == 42, "expected foo_bank to have a width of 42");
      for (auto& foo : foo_bank)
        lf_check(foo.out.size() == 4, "expected foo_bank.out to have a width of 4");
      note(*this, "widths checked");
    });
  }
};
LF_TEST(WidthGivenByCode, WidthGivenByCode, environment_options{})

// ---- WriteInputOfContainedBank and WriteMultiportInputOfContainedBank
struct ScaledContained : reactor {
  input<unsigned> in{this, "in"};
  int count = 0;
  explicit ScaledContained(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      note(*this, "received " + str(in.get()));
      lf_check(in.get() == bank_index() * 42, "expected " + str(42 * bank_index()));
      ++count;
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(count == 1, "One of the reactions failed to trigger."); });
  }
};
struct WriteInputOfContainedBank : reactor {
  bank<ScaledContained> c{this, "c", 4};
  explicit WriteInputOfContainedBank(context ctx) : reactor(ctx) {
    reaction()
        .triggers(startup)
        .effects(c.ports(&ScaledContained::in))
        .body([](multiport_writer<unsigned>& in) {
          for (std::size_t i = 0; i < in.size(); ++i) in[i].set(static_cast<unsigned>(i * 42));
        });
  }
};
LF_TEST(WriteInputOfContainedBank, WriteInputOfContainedBank, environment_options{})
struct ProductContained : reactor {
  multiport_input<unsigned> in{this, "in", 4};
  int count = 0;
  explicit ProductContained(context ctx) : reactor(ctx) {
    reaction().triggers(in).body([this] {
      for (std::size_t i = 0; i < 3; ++i)
        lf_check(in[i].get() == bank_index() * i, "expected " + str(i * bank_index()));
      note(*this, "received");
      ++count;
    });
    reaction().triggers(shutdown).body(
        [this] { lf_check(count == 1, "One of the reactions failed to trigger."); });
  }
};
struct WriteMultiportInputOfContainedBank : reactor {
  bank<ProductContained> c{this, "c", 4};
  explicit WriteMultiportInputOfContainedBank(context ctx) : reactor(ctx) {
    reaction()
        .triggers(startup)
        .effects(c.ports(&ProductContained::in))
        .body([this](multiport_writer<unsigned>& in) {
          for (std::size_t i = 0; i < c.size(); ++i)
            for (std::size_t j = 0; j < c[i].in.size(); ++j)
              in[i * c[i].in.size() + j].set(static_cast<unsigned>(i * j));
        });
  }
};
LF_TEST(WriteMultiportInputOfContainedBank, WriteMultiportInputOfContainedBank,
        environment_options{})

}  // namespace
}  // namespace lf_test
