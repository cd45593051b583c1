#include "../test_runtime.hpp"
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "spate/flow.hpp"
#include "spate/io/csv.hpp"
#include "spate/io/file.hpp"

namespace flow = spate::flow;
namespace io = spate::io;
using namespace std::chrono_literals;

namespace {

spate::runtime& rt() { return spate::test::shared_runtime(); }

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "spate_io_" + name;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(utf8, accepts_well_formed_text_and_names_the_first_bad_byte) {
  EXPECT_EQ(io::first_invalid_utf8("plain ascii"), std::string::npos);
  EXPECT_EQ(io::first_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), std::string::npos);
  EXPECT_EQ(io::first_invalid_utf8("ab\xc0\x80"), 2u);         // overlong NUL
  EXPECT_EQ(io::first_invalid_utf8("\xed\xa0\x80"), 0u);       // a surrogate
  EXPECT_EQ(io::first_invalid_utf8("x\xf4\x90\x80\x80"), 1u);  // past U+10FFFF
  EXPECT_EQ(io::first_invalid_utf8("xy\xe2\x82"), 2u);         // cut short
  EXPECT_EQ(io::first_invalid_utf8("\x80"), 0u);               // a lone continuation byte
  EXPECT_EQ(io::first_invalid_utf8("\xe2\x28\xa1"), 0u);       // bad continuation
}

TEST(file_io, lines_stream_through_in_order_and_malformed_ones_are_counted_not_lost) {
  const std::string in_path = temp_path("lines.txt"), out_path = temp_path("lines.out");
  std::string expected;
  {
    std::ofstream out(in_path, std::ios::binary);
    for (int i = 1; i <= 50'000; ++i) {
      if (i % 10'000 == 0) {
        out << "bad \xff line " << i << "\n";  // not UTF-8: recorded, left out
        continue;
      }
      out << "line " << i << (i % 2 ? "\r\n" : "\n");
      expected += std::to_string(i) + ":line " + std::to_string(i) + "\n";
    }
    out << "last line without a break";
    expected += "50001:last line without a break\n";
  }
  auto errors = std::make_shared<io::input_errors>();
  flow::graph job(flow::pipeline(io::line_source(in_path, errors), flow::map([](io::text_line& l) {
                                   return std::to_string(l.number) + ":" + l.text;
                                 }),
                                 io::file_sink(out_path)));
  job.run(rt());
  EXPECT_EQ(read_all(out_path), expected);
  EXPECT_EQ(errors->count(), 5u);
  ASSERT_EQ(errors->examples().size(), 5u);
  EXPECT_EQ(errors->examples()[0].line, 10'000u);
  EXPECT_EQ(errors->examples()[0].reason, "not valid UTF-8 at byte 5");
  std::ostringstream report;
  errors->report(report, "lines.txt");
  EXPECT_EQ(
      report.str().rfind("lines.txt: 5 malformed records skipped and counted:\n  line 10000", 0),
      0u)
      << report.str();
}

TEST(file_io, the_source_reads_no_further_ahead_than_the_graph_takes) {
  const std::string path = temp_path("many.txt");
  {
    std::ofstream out(path);
    for (int i = 0; i < 200'000; ++i) out << "line " << i << '\n';
  }
  auto errors = std::make_shared<io::input_errors>();
  std::atomic<bool> gate_open{false};
  std::uint64_t received = 0;
  flow::graph job(flow::pipeline(io::line_source(path, errors).named("lines"),
                                 flow::sink([&](io::text_line&) {
                                   while (!gate_open.load()) std::this_thread::sleep_for(1ms);
                                   ++received;
                                 }).named("gated")),
                  {.links = {.capacity = 64}});
  job.start(rt());
  std::this_thread::sleep_for(200ms);
  std::uint64_t read_ahead = 0;
  for (const auto& n : job.nodes()) {
    if (n.name == "lines") read_ahead = n.items_out;
  }
  // One edge of 64 plus at most one batch (256 lines) waiting in the source's output.
  EXPECT_LE(read_ahead, 64u + 256u);
  gate_open = true;
  job.wait();
  EXPECT_EQ(received, 200'000u);
  EXPECT_EQ(errors->count(), 0u);
}

// The path and the OS reason (issue 23), not only the path.
TEST(file_io, a_missing_input_or_an_unwritable_output_fails_the_graph_naming_the_path) {
  auto errors = std::make_shared<io::input_errors>();
  flow::graph reading(flow::pipeline(io::line_source("/nonexistent/input.txt", errors),
                                     flow::sink([](io::text_line&) {})));
  try {
    reading.run(rt());
    FAIL() << "expected node_error";
  } catch (const flow::node_error& e) {
    EXPECT_NE(std::string(e.what()).find("spate::io::line_source: cannot open "
                                         "'/nonexistent/input.txt': No such file or directory"),
              std::string::npos)
        << e.what();
  }
  flow::graph writing(
      flow::pipeline(flow::generate<std::string>(3, [](std::size_t) { return std::string("x"); }),
                     io::file_sink("/nonexistent/dir/out.txt")));
  try {
    writing.run(rt());
    FAIL() << "expected node_error";
  } catch (const flow::node_error& e) {
    EXPECT_NE(std::string(e.what()).find("spate::io::file_sink: cannot create "
                                         "'/nonexistent/dir/out.txt': No such file or directory"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(io::line_source("x", nullptr), std::invalid_argument);
}

TEST(csv, splits_quoted_fields_and_rejects_broken_quotes) {
  std::vector<std::string> f;
  std::string error;
  ASSERT_TRUE(io::split_csv_line(R"(a,"b,c","say ""hi""",,)", ',', f, error));
  EXPECT_EQ(f, (std::vector<std::string>{"a", "b,c", "say \"hi\"", "", ""}));
  ASSERT_TRUE(io::split_csv_line("", ',', f, error));
  EXPECT_EQ(f, (std::vector<std::string>{""}));
  ASSERT_TRUE(io::split_csv_line("x;y", ';', f, error));
  EXPECT_EQ(f, (std::vector<std::string>{"x", "y"}));
  EXPECT_FALSE(io::split_csv_line(R"(a,"open)", ',', f, error));
  EXPECT_EQ(error, "quote opened at byte 3 is not closed");
  EXPECT_FALSE(io::split_csv_line(R"("a"b,c)", ',', f, error));
  EXPECT_EQ(error, "text after a closing quote at byte 4");
}

TEST(csv, typed_rows_arrive_in_order_and_each_bad_row_is_reported_with_its_column) {
  const std::string path = temp_path("trades.csv");
  {
    std::ofstream out(path);
    out << "id,symbol,price,buy\n"
        << "1,ACME,10.5,true\n"
        << "2,\"Big, Co\",  20 ,0\n"
        << "3,ACME,abc,true\n"    // bad number
        << "4,ACME,1.0\n"         // missing field
        << "99999999999,X,1,1\n"  // out of range for int32
        << "5,\"unclosed,1,1\n"   // broken quote
        << "6,NEW,7e2,false\n"
        << "7,ACME,1,maybe\n";  // bad bool
  }
  auto errors = std::make_shared<io::input_errors>(10);
  std::vector<std::tuple<int, std::string, double, bool>> rows;
  flow::graph job(flow::pipeline(
      io::csv_source<int, std::string, double, bool>(path, errors),
      flow::sink([&](std::tuple<int, std::string, double, bool>& r) { rows.push_back(r); })));
  job.run(rt());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], std::make_tuple(1, std::string("ACME"), 10.5, true));
  EXPECT_EQ(rows[1], std::make_tuple(2, std::string("Big, Co"), 20.0, false));
  EXPECT_EQ(rows[2], std::make_tuple(6, std::string("NEW"), 700.0, false));
  ASSERT_EQ(errors->count(), 5u);
  const auto e = errors->examples();
  EXPECT_EQ(e[0].line, 4u);
  EXPECT_EQ(e[0].reason, "field 3 ('price'): 'abc' is not a number");
  EXPECT_EQ(e[1].line, 5u);
  EXPECT_EQ(e[1].reason, "expected 4 fields, found 3");
  EXPECT_EQ(e[2].reason, "field 1 ('id'): '99999999999' is out of range for its column");
  EXPECT_EQ(e[3].reason, "quote opened at byte 3 is not closed");
  EXPECT_EQ(e[4].line, 9u);
  EXPECT_EQ(e[4].reason, "field 4 ('buy'): 'maybe' is not a bool (true, false, 1 or 0)");
}

// A write that fails after the open succeeded carries the OS reason too.
TEST(file_io, a_failing_write_fails_the_graph_with_the_os_reason) {
  // /dev/full accepts the open and fails every write: the fault is the disk being full.
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  flow::graph writing(
      flow::pipeline(flow::generate<std::string>(3, [](std::size_t) { return std::string("x"); }),
                     io::file_sink("/dev/full")));
  try {
    writing.run(rt());
    FAIL() << "expected node_error";
  } catch (const flow::node_error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "spate::io::file_sink: cannot write to '/dev/full': No space left on device"),
              std::string::npos)
        << e.what();
  }
}
