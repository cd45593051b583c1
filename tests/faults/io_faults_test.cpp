// Faults at the io layer's edges (issue 22): a TCP peer that stops reading, reader threads'
// names, oversized lines, files that cannot be opened.
#include "../test_runtime.hpp"
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "fault_helpers.hpp"
#include "spate/flow.hpp"
#include "spate/io/csv.hpp"
#include "spate/io/file.hpp"
#include "spate/io/tcp.hpp"

namespace flow = spate::flow;
namespace io = spate::io;
using spate::test::blocked_in_syscall;
using spate::test::bounded_wait;
using spate::test::eventually;
using spate::test::threads_named;
using namespace std::chrono_literals;

namespace {

spate::runtime& rt() { return spate::test::shared_runtime(); }

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "spate-faults-" + std::to_string(::getpid()) + "-" + name;
}

// A listening socket whose accepted connections have a small receive buffer.
struct slow_peer {
  int listener = -1;
  int connection = -1;
  int port = 0;
  slow_peer() {
    listener = ::socket(AF_INET, SOCK_STREAM, 0);
    const int small = 4096;
    ::setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listener, 1);
    socklen_t length = sizeof a;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &length);
    port = ntohs(a.sin_port);
  }
  bool accept_within(int timeout_ms) {
    pollfd p{listener, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) != 1) return false;
    connection = ::accept(listener, nullptr, nullptr);
    return connection >= 0;
  }
  void close_connection() {
    if (connection >= 0) ::close(connection);
    connection = -1;
  }
  ~slow_peer() {
    close_connection();
    ::close(listener);
  }
};

}  // namespace

// Issue 22, defect 6a: a sink blocked writing to a peer that does not read used to stay in
// send() after cancel (the graph never ended). Cancel now ends it at once.
TEST(io_faults, cancel_ends_a_tcp_sink_whose_peer_does_not_read) {
  slow_peer peer;
  flow::graph job(flow::pipeline(
      flow::generate<std::string>(std::size_t(1) << 40,
                                  [](std::size_t) { return std::string(1000, 'x'); }),
      io::tcp_line_sink("127.0.0.1", peer.port)));
  job.start(rt());
  ASSERT_TRUE(peer.accept_within(10'000));
  // The sink's thread (a dedicated "spate-node") blocks once the socket's buffers are full:
  // in sendto() before the fix, in poll() after it. Seen three times in a row, so it is not
  // a passing call.
  int seen = 0;
  const bool blocked = eventually(
      [&] {
        bool now = false;
        for (const auto& id : threads_named("spate-node")) {
          const long call = blocked_in_syscall(id);
          now = now || call == SYS_sendto || call == SYS_poll || call == SYS_ppoll;
        }
        seen = now ? seen + 1 : 0;
        return seen >= 3;
      },
      10s);
  ASSERT_TRUE(blocked) << "the sink never blocked on its peer";
  job.cancel();
  const auto took = bounded_wait([&] { job.wait(); }, 5s, [&] { peer.close_connection(); });
  ASSERT_TRUE(took.has_value()) << "cancel did not end a sink blocked on its peer within 5 s";
  EXPECT_LT(took->count(), 2000);
}

// A source waiting for a connection ends at once on cancel (it waits on its wake fd, not on
// a 50 ms timeout), and its reader thread has a name of its own.
TEST(io_faults, cancel_ends_a_tcp_source_waiting_to_accept_and_its_reader_is_named) {
  auto listener = std::make_shared<io::tcp_listener>();
  auto errors = std::make_shared<io::input_errors>();
  flow::graph job(flow::pipeline(io::tcp_line_source(listener, errors),
                                 flow::sink([](io::text_line&) {})));
  job.start(rt());
  // Issue 22: reader threads are named after what they read, not after the pool worker
  // that started them.
  ASSERT_TRUE(eventually([] { return !threads_named("spate-tcp-in").empty(); }, 5s))
      << "no thread named spate-tcp-in";
  job.cancel();
  const auto took = bounded_wait([&] { job.wait(); }, 5s, [&] {
    io::tcp_connection c("127.0.0.1", listener->port());  // lets an old reader end
  });
  ASSERT_TRUE(took.has_value());
  EXPECT_LT(took->count(), 2000);
}

// Issue 22: a 256 MiB line was accepted whole. Lines past max_line_bytes are malformed
// records (file, line number and length named), skipped, and the lines after them read.
TEST(io_faults, line_source_skips_a_line_longer_than_the_limit_and_reads_on) {
  const std::string path = temp_path("long-lines.txt");
  {
    std::ofstream out(path, std::ios::binary);
    out << "first\n" << std::string(3u << 20, 'x') << "\nsecond\n"
        << std::string(1001, 'y') << "\r\nthird";
  }
  auto errors = std::make_shared<io::input_errors>();
  std::vector<io::text_line> lines;
  flow::graph job(flow::pipeline(io::line_source(path, errors),
                                 flow::sink([&](io::text_line& l) { lines.push_back(l); })));
  job.run(rt());
  ASSERT_EQ(lines.size(), 4u);  // the default limit (1 MiB) keeps the 1001-byte line
  EXPECT_EQ(lines[0].text, "first");
  EXPECT_EQ(lines[1].number, 3u);
  EXPECT_EQ(lines[1].text, "second");
  EXPECT_EQ(lines[2].text, std::string(1001, 'y'));
  EXPECT_EQ(lines[3].number, 5u);
  EXPECT_EQ(lines[3].text, "third");
  ASSERT_EQ(errors->count(), 1u);
  const auto e = errors->examples().at(0);
  EXPECT_EQ(e.line, 2u);
  EXPECT_NE(e.reason.find(path), std::string::npos) << e.reason;
  EXPECT_NE(e.reason.find("line 2"), std::string::npos) << e.reason;
  EXPECT_NE(e.reason.find(std::to_string(3u << 20) + " bytes"), std::string::npos) << e.reason;

  // A smaller limit, exactly at a line's length and one past it.
  auto strict_errors = std::make_shared<io::input_errors>();
  std::vector<std::string> kept;
  io::line_source_options strict;
  strict.max_line_bytes = 1000;
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string(1000, 'a') << "\n" << std::string(1001, 'b') << "\nlast\n";
  }
  flow::graph second(
      flow::pipeline(io::line_source(path, strict_errors, strict),
                     flow::sink([&](io::text_line& l) { kept.push_back(l.text); })));
  second.run(rt());
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0], std::string(1000, 'a'));
  EXPECT_EQ(kept[1], "last");
  EXPECT_EQ(strict_errors->count(), 1u);
  std::remove(path.c_str());
}

TEST(io_faults, csv_source_skips_a_line_longer_than_the_limit_and_reads_on) {
  const std::string path = temp_path("long.csv");
  {
    std::ofstream out(path, std::ios::binary);
    out << "id,name\n1,one\n2," << std::string(5000, 'z') << "\n3,three\n";
  }
  auto errors = std::make_shared<io::input_errors>();
  std::vector<int> ids;
  io::csv_options options;
  options.max_line_bytes = 4096;
  flow::graph job(flow::pipeline(
      io::csv_source<int, std::string>(path, errors, options),
      flow::sink([&](std::tuple<int, std::string>& row) { ids.push_back(std::get<0>(row)); })));
  job.run(rt());
  EXPECT_EQ(ids, (std::vector<int>{1, 3}));
  ASSERT_EQ(errors->count(), 1u);
  const auto e = errors->examples().at(0);
  EXPECT_EQ(e.line, 3u);
  EXPECT_NE(e.reason.find(path), std::string::npos) << e.reason;
  EXPECT_NE(e.reason.find("5002 bytes"), std::string::npos) << e.reason;
  std::remove(path.c_str());
}

// Issue 22: I/O errors carry the system's reason.
TEST(io_faults, a_file_that_cannot_be_opened_fails_the_graph_with_the_os_reason) {
  auto errors = std::make_shared<io::input_errors>();
  flow::graph lines(flow::pipeline(io::line_source("/nonexistent-dir/x.txt", errors),
                                   flow::sink([](io::text_line&) {})));
  try {
    lines.run(rt());
    FAIL() << "no error";
  } catch (const flow::node_error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "cannot open '/nonexistent-dir/x.txt': No such file or directory"),
              std::string::npos)
        << e.what();
  }
  flow::graph csv(flow::pipeline(io::csv_source<int>("/nonexistent-dir/x.csv", errors),
                                 flow::sink([](std::tuple<int>&) {})));
  try {
    csv.run(rt());
    FAIL() << "no error";
  } catch (const flow::node_error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "cannot open '/nonexistent-dir/x.csv': No such file or directory"),
              std::string::npos)
        << e.what();
  }
  flow::graph out(flow::pipeline(flow::generate<std::string>(1, [](std::size_t) { return "x"; }),
                                 io::file_sink("/nonexistent-dir/out.txt")));
  try {
    out.run(rt());
    FAIL() << "no error";
  } catch (const flow::node_error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "cannot create '/nonexistent-dir/out.txt': No such file or directory"),
              std::string::npos)
        << e.what();
  }
}
