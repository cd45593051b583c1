#include "../test_runtime.hpp"
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "spate/flow.hpp"
#include "spate/io/tcp.hpp"

namespace flow = spate::flow;
namespace io = spate::io;
using namespace std::chrono_literals;

namespace {

spate::runtime& rt() { return spate::test::shared_runtime(); }

}  // namespace

TEST(tcp_io, lines_from_a_connection_arrive_in_order_and_malformed_ones_are_counted) {
  auto listener = std::make_shared<io::tcp_listener>();
  auto errors = std::make_shared<io::input_errors>();
  std::vector<io::text_line> received;
  io::tcp_source_options options;
  options.max_line_bytes = 100;
  flow::graph job(flow::pipeline(io::tcp_line_source(listener, errors, options),
                                 flow::sink([&](io::text_line& l) { received.push_back(l); })));
  job.start(rt());
  std::thread client([port = listener->port()] {
    io::tcp_connection c("127.0.0.1", port);
    std::string data;
    for (int i = 1; i <= 20'000; ++i) {
      if (i == 500) {
        data += "bad \xc3\x28\n";
      } else if (i == 600) {
        data += std::string(150, 'x') + "\r\n";  // too long
      } else {
        data += "line " + std::to_string(i) + (i % 3 ? "\n" : "\r\n");
      }
    }
    data += "no final break";
    // In small pieces, so lines are split across reads.
    for (std::size_t at = 0; at < data.size(); at += 777) {
      c.write_all(data.data() + at, std::min<std::size_t>(777, data.size() - at));
    }
    c.finish_writing();
  });
  job.wait();
  client.join();
  ASSERT_EQ(received.size(), 20'000u - 2 + 1);
  std::size_t k = 0;
  for (std::uint64_t i = 1; i <= 20'000; ++i) {
    if (i == 500 || i == 600) continue;
    ASSERT_EQ(received[k].number, i);
    ASSERT_EQ(received[k].text, "line " + std::to_string(i));
    ++k;
  }
  EXPECT_EQ(received.back().number, 20'001u);
  EXPECT_EQ(received.back().text, "no final break");
  ASSERT_EQ(errors->count(), 2u);
  EXPECT_EQ(errors->examples()[0].line, 500u);
  EXPECT_EQ(errors->examples()[1].reason, "longer than 100 bytes");
}

TEST(tcp_io, a_slow_graph_holds_the_sender_back_and_then_loses_nothing) {
  auto listener = std::make_shared<io::tcp_listener>();
  auto errors = std::make_shared<io::input_errors>();
  std::atomic<bool> gate_open{false};
  std::uint64_t received = 0;
  bool in_order = true;
  io::tcp_source_options options;
  options.link.capacity = 256;
  flow::graph job(flow::pipeline(io::tcp_line_source(listener, errors, options),
                                 flow::sink([&](io::text_line& l) {
                                   while (!gate_open.load()) std::this_thread::sleep_for(1ms);
                                   in_order = in_order && l.number == received + 1;
                                   ++received;
                                 })),
                  {.links = {.capacity = 256}});
  job.start(rt());
  constexpr std::size_t lines = 400'000;  // 40 MB: far more than every buffer on the way
  const std::string line(99, 'y');
  std::atomic<std::size_t> written{0};
  std::thread client([&, port = listener->port()] {
    io::tcp_connection c("127.0.0.1", port);
    std::string chunk;
    for (std::size_t i = 0; i < lines; ++i) {
      chunk += line;
      chunk += '\n';
      if (chunk.size() >= 64 * 1024 || i + 1 == lines) {
        c.write_all(chunk.data(), chunk.size());
        written += chunk.size();
        chunk.clear();
      }
    }
    c.finish_writing();
  });
  std::this_thread::sleep_for(500ms);
  // The sink has taken one line: the rest waits in bounded rings and the kernel's socket
  // buffers, and the sender is blocked in send().
  EXPECT_LT(written.load(), lines * 100 / 2);
  gate_open = true;
  job.wait();
  client.join();
  EXPECT_EQ(written.load(), lines * 100);
  EXPECT_EQ(received, lines);
  EXPECT_TRUE(in_order);
  EXPECT_EQ(errors->count(), 0u);
}

TEST(tcp_io, the_sink_writes_every_line_to_its_peer) {
  io::tcp_listener listener;
  std::string got;
  std::thread peer([&] {
    io::tcp_connection c(listener.accept_one());
    char buffer[4096];
    while (true) {
      const long n = c.read_some(buffer, sizeof buffer, 10'000);
      if (n <= 0) break;
      got.append(buffer, static_cast<std::size_t>(n));
    }
  });
  flow::graph job(flow::pipeline(
      flow::generate<std::string>(100'000, [](std::size_t i) { return std::to_string(i); }),
      io::tcp_line_sink("127.0.0.1", listener.port())));
  job.run(rt());
  peer.join();
  std::string expected;
  for (int i = 0; i < 100'000; ++i) expected += std::to_string(i) + "\n";
  EXPECT_EQ(got, expected);
}

TEST(tcp_io, errors_name_the_address_and_an_unconnected_source_can_be_cancelled) {
  int closed_port;
  { closed_port = io::tcp_listener().port(); }  // listened once, now nobody does
  flow::graph job(
      flow::pipeline(flow::generate<std::string>(1, [](std::size_t) { return std::string("x"); }),
                     io::tcp_line_sink("127.0.0.1", closed_port)));
  try {
    job.run(rt());
    FAIL() << "expected node_error";
  } catch (const flow::node_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("cannot connect to 127.0.0.1:" + std::to_string(closed_port)),
        std::string::npos)
        << e.what();
  }
  io::tcp_listener taken;
  EXPECT_THROW(io::tcp_listener(taken.port()), std::runtime_error);
  EXPECT_THROW(io::tcp_listener(0, "not-an-address"), std::invalid_argument);

  auto listener = std::make_shared<io::tcp_listener>();
  flow::graph waiting(
      flow::pipeline(io::tcp_line_source(listener, std::make_shared<io::input_errors>()),
                     flow::sink([](io::text_line&) {})));
  waiting.start(rt());
  std::this_thread::sleep_for(50ms);
  waiting.cancel();
  waiting.wait();  // returns: the reader thread saw the stop and ended
}

// Issue 23: every socket error carries the address, the port and the system's reason.
TEST(tcp_io, socket_errors_carry_the_address_and_the_os_reason) {
  io::tcp_listener taken;
  const std::string port = std::to_string(taken.port());
  try {
    io::tcp_listener again(taken.port());
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "spate::io: cannot listen on 127.0.0.1:" + port + ": Address already in use");
  }
  int closed_port;
  { closed_port = io::tcp_listener().port(); }  // listened once, now nobody does
  try {
    io::tcp_connection refused("127.0.0.1", closed_port);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "spate::io: cannot connect to 127.0.0.1:" +
                                         std::to_string(closed_port) + ": Connection refused");
  }
  try {
    io::tcp_listener bad(0, "localhost");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "spate::io: cannot listen on localhost:0: 'localhost' is not an IPv4 address "
              "(a.b.c.d)");
  }
  try {
    io::tcp_connection bad("127.0.0.1", 70000);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "spate::io: cannot connect to 127.0.0.1:70000: port 70000 is not from 0 to 65535");
  }
}
