// A Kafka service that scales out: every process started with the same --group shares the
// input topic's partitions; each line is split into words and written to the output topic,
// keyed by the line's place in the input ("partition:offset"), value the words separated
// by spaces. The input offset is committed only once that output is stored, so a process
// that dies (even kill -9) loses nothing: the group gives its partitions to the others,
// which resume at its last commit. A line may then be written twice (at-least-once); its
// key makes the copies recognisable, and a consumer that counts words keeps one per key
// (tests/kafka/scale_out_test.sh does).
//
//   kafka_words --brokers 127.0.0.1:9092 --input lines --output words --group words
//               [--replicas 2] [--delay-us 0] [--stop-at-end]
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include "spate/flow.hpp"
#include "spate/kafka/sink.hpp"
#include "spate/kafka/source.hpp"

namespace flow = spate::flow;
namespace kafka = spate::kafka;

namespace {
// Set by SIGTERM/SIGINT; the main thread cancels the job (cancel() is not signal-safe).
volatile std::sig_atomic_t stop_requested = 0;
void request_stop(int) {
  stop_requested = 1;
}
}  // namespace

int main(int argc, char** argv) {
  kafka::consumer_options in;
  kafka::producer_options out;
  std::size_t replicas = 2;
  long delay_us = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (name == "--stop-at-end") {
      in.stop_at_end = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "kafka_words: " << name << " needs a value\n";
      return 2;
    }
    const std::string value = argv[++i];
    if (name == "--brokers") {
      in.brokers = out.brokers = value;
    } else if (name == "--input") {
      in.topic = value;
    } else if (name == "--output") {
      out.topic = value;
    } else if (name == "--group") {
      in.group = value;
    } else if (name == "--replicas") {
      replicas = std::stoul(value);
    } else if (name == "--delay-us") {
      delay_us = std::stol(value);
    } else {
      std::cerr << "kafka_words: unknown option " << name << '\n';
      return 2;
    }
  }
  if (in.brokers.empty() || in.topic.empty() || out.topic.empty() || in.group.empty()) {
    std::cerr << "kafka_words: --brokers, --input, --output and --group are required\n";
    return 2;
  }
  in.settings = {{"session.timeout.ms", "6000"}, {"heartbeat.interval.ms", "1000"}};

  flow::graph job(flow::pipeline(
      kafka::source(in),
      flow::farm(flow::map([delay_us](kafka::record& line) {
                   if (delay_us > 0)
                     std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
                   std::istringstream words(line.value);
                   std::string joined;
                   for (std::string w; words >> w;) joined += (joined.empty() ? "" : " ") + w;
                   line.value = std::move(joined);
                   return line;
                 }).named("split"),
                 replicas, kafka::by_partition()),
      kafka::sink<kafka::record>(out, [](kafka::record& line) {
        return kafka::message{
            std::to_string(line.at.partition) + ":" + std::to_string(line.at.offset),
            std::move(line.value), line.at};
      })));
  std::signal(SIGTERM, request_stop);
  std::signal(SIGINT, request_stop);
  spate::runtime rt;
  try {
    job.start(rt);
    while (!job.finished()) {
      if (stop_requested) job.cancel();  // the source leaves the group, committing what is done
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    job.wait();
  } catch (const flow::node_error& e) {
    std::cerr << "kafka_words: " << e.what() << '\n';
    return 1;
  }
  std::fprintf(stderr, "kafka_words: stopped\n");
  return 0;
}
