// Word count through a Kafka broker, spate against Kafka Streams, end to end: lines in an
// input topic -> the job -> (word, count) in an output topic, timed until a checker reading
// the output topic has seen every word's final count (the sum of the latest counts equals
// the number of words in the input).
//
//   spate-kafka-bench load  --brokers B --topic T --lines N [--partitions 4]
//   spate-kafka-bench run   --brokers B --input T --lines N --impl spate|kafka-streams
//                           [--replicas 2] [--jars DIR --classes DIR]
//   spate-kafka-bench check-words --brokers B --topic T --lines N [--input T]
//       reads examples/kafka/kafka_words' output (one record per input line, keyed by the
//       line's partition:offset, value its words), keeps one record per key, and checks
//       that all N lines are there and their words count as a sequential count of the
//       same lines does; exit code 0 when they do. With --input (the job's input topic) it
//       names the input records (partition:offset) whose line is missing
//
// `run` prints one JSON line: {"impl", "lines", "words", "seconds", "lines_per_second"}.
// The clock starts when the job starts (Kafka Streams: when its JVM is up and has called
// start(); both then join their consumer group) and stops when the checker is satisfied.
#include <librdkafka/rdkafka.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "spate/flow.hpp"
#include "spate/kafka/admin.hpp"
#include "spate/kafka/sink.hpp"
#include "spate/kafka/source.hpp"

namespace flow = spate::flow;
namespace kafka = spate::kafka;

namespace {

struct options {
  std::string command, brokers, topic, input, impl = "spate", jars, classes;
  std::string book = "data/wordcount/book.dat";
  std::size_t lines = 200'000, partitions = 4, replicas = 2;
};

options parse(int argc, char** argv) {
  options o;
  if (argc < 2) throw std::invalid_argument("usage: spate-kafka-bench load|run --NAME VALUE ...");
  o.command = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string name = argv[i], value = argv[i + 1];
    if (name == "--brokers")
      o.brokers = value;
    else if (name == "--topic")
      o.topic = value;
    else if (name == "--input")
      o.input = value;
    else if (name == "--impl")
      o.impl = value;
    else if (name == "--jars")
      o.jars = value;
    else if (name == "--classes")
      o.classes = value;
    else if (name == "--book")
      o.book = value;
    else if (name == "--lines")
      o.lines = std::stoul(value);
    else if (name == "--partitions")
      o.partitions = std::stoul(value);
    else if (name == "--replicas")
      o.replicas = std::stoul(value);
    else
      throw std::invalid_argument("spate-kafka-bench: unknown option " + name);
  }
  return o;
}

std::vector<std::string> book_lines(const options& o) {
  std::ifstream in(o.book);
  if (!in) throw std::runtime_error("cannot read " + o.book);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// The words of the first `n` lines of the replayed book (white-space separated, as both
// implementations split them).
std::uint64_t words_in(const std::vector<std::string>& book, std::size_t n) {
  std::uint64_t words = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::istringstream s(book[i % book.size()]);
    for (std::string w; s >> w;) ++words;
  }
  return words;
}

// Reads the output topic from its start, keeping each word's latest count, until the counts
// add up to `words`; returns when they do (or throws after `limit`).
class output_checker {
 public:
  output_checker(const std::string& brokers, const std::string& topic, std::uint64_t words)
      : words_(words) {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", brokers.c_str(), error, sizeof error);
    rd_kafka_conf_set(conf, "group.id", ("checker-" + topic).c_str(), error, sizeof error);
    rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", error, sizeof error);
    rd_kafka_conf_set(conf, "enable.auto.commit", "false", error, sizeof error);
    consumer_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
    rd_kafka_poll_set_consumer(consumer_);
    rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, topic.c_str(), RD_KAFKA_PARTITION_UA);
    rd_kafka_subscribe(consumer_, topics);
    rd_kafka_topic_partition_list_destroy(topics);
  }
  ~output_checker() {
    rd_kafka_consumer_close(consumer_);
    rd_kafka_destroy(consumer_);
  }
  void wait(std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (sum_ != words_) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("the output's counts add up to " + std::to_string(sum_) +
                                 " words, not " + std::to_string(words_) + ", after " +
                                 std::to_string(limit.count()) + " s");
      }
      rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer_, 100);
      if (m == nullptr) continue;
      if (!m->err) {
        const std::string word(static_cast<const char*>(m->key), m->key_len);
        const std::uint64_t count =
            std::stoull(std::string(static_cast<const char*>(m->payload), m->len));
        auto& latest = latest_[word];
        sum_ += count - latest;
        latest = count;
      }
      rd_kafka_message_destroy(m);
    }
  }
  std::size_t distinct() const { return latest_.size(); }

 private:
  rd_kafka_t* consumer_;
  std::uint64_t words_;
  std::uint64_t sum_ = 0;
  std::unordered_map<std::string, std::uint64_t> latest_;
};

struct line_splitter : flow::node<kafka::record, std::string> {
  void consume(kafka::record& line) {
    std::istringstream s(line.value);
    for (std::string w; s >> w;) send_next(std::move(w));
    line.at.done();  // its words are with the counters (whose counts are not durable)
  }
};

struct word_counter : flow::node<std::string, std::pair<std::string, std::uint64_t>> {
  void consume(std::string& word) { ++counts[word]; }
  void on_stop() {
    for (auto& [w, n] : counts) send_next({w, n});
  }
  std::unordered_map<std::string, std::uint64_t> counts;
};

double run_spate(const options& o, const std::string& output, output_checker& checker) {
  kafka::consumer_options in;
  in.brokers = o.brokers;
  in.group = "spate-" + output;
  in.topic = o.input;
  in.stop_at_end = true;
  kafka::producer_options out;
  out.brokers = o.brokers;
  out.topic = output;
  using counted = std::pair<std::string, std::uint64_t>;
  flow::graph job(
      flow::pipeline(kafka::source(in),
                     flow::farm(flow::make_stage<line_splitter>().named("split"), o.replicas,
                                kafka::by_partition()),
                     flow::farm(flow::make_stage<word_counter>().named("count"), o.replicas,
                                flow::by_key{[](const std::string& w) { return w; }}),
                     kafka::sink<counted>(out, [](counted& c) {
                       return kafka::message{c.first, std::to_string(c.second), std::nullopt};
                     })));
  spate::runtime rt;
  const auto start = std::chrono::steady_clock::now();
  job.start(rt);
  checker.wait(std::chrono::seconds(600));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  job.wait();
  return seconds;
}

double run_kafka_streams(const options& o, const std::string& output, output_checker& checker) {
  int ready[2];
  if (pipe(ready) != 0) throw std::runtime_error("pipe");
  const std::string classpath = o.jars + "/*:" + o.classes;
  const std::string state = "/tmp/spate-kafka-streams-" + output;
  const pid_t child = fork();
  if (child == 0) {
    dup2(ready[1], 1);
    close(ready[0]);
    execlp("java", "java", "-Xms512m", "-Xmx2g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
           "-cp", classpath.c_str(), "KafkaStreamsWordCount", o.brokers.c_str(), o.input.c_str(),
           output.c_str(), std::to_string(o.replicas).c_str(), state.c_str(),
           static_cast<char*>(nullptr));
    _exit(127);
  }
  close(ready[1]);
  // The JVM's start-up is not counted: the clock starts at "started" (after start()).
  std::string said;
  char c;
  while (said.find("started") == std::string::npos && read(ready[0], &c, 1) == 1) said += c;
  if (said.find("started") == std::string::npos)
    throw std::runtime_error("Kafka Streams did not start");
  const auto start = std::chrono::steady_clock::now();
  try {
    checker.wait(std::chrono::seconds(600));
  } catch (...) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    throw;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  kill(child, SIGTERM);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  return seconds;
}

// The keys ("partition:offset") of every record in `topic`, read from its beginning to its
// end: what check-words compares the output's keys with to name the lines it misses.
std::vector<std::string> input_keys(const options& o, const std::string& topic) {
  char error[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", o.brokers.c_str(), error, sizeof error);
  rd_kafka_conf_set(conf, "group.id", "check-input", error, sizeof error);
  rd_kafka_conf_set(conf, "enable.partition.eof", "true", error, sizeof error);
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
  if (consumer == nullptr) throw std::runtime_error(std::string("check-words: ") + error);
  rd_kafka_poll_set_consumer(consumer);
  rd_kafka_topic_partition_list_t* all =
      rd_kafka_topic_partition_list_new(static_cast<int>(o.partitions));
  for (std::size_t p = 0; p < o.partitions; ++p) {
    rd_kafka_topic_partition_list_add(all, topic.c_str(), static_cast<std::int32_t>(p))->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  }
  rd_kafka_assign(consumer, all);
  rd_kafka_topic_partition_list_destroy(all);
  std::vector<std::string> keys;
  std::size_t at_end = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (at_end < o.partitions && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 100);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      ++at_end;
    } else if (!m->err) {
      keys.push_back(std::to_string(m->partition) + ":" + std::to_string(m->offset));
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  return keys;
}

int check_words(const options& o, const std::vector<std::string>& book) {
  std::map<std::string, std::uint64_t> expected;
  for (std::size_t i = 0; i < o.lines; ++i) {
    std::istringstream s(book[i % book.size()]);
    for (std::string w; s >> w;) ++expected[w];
  }
  char error[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", o.brokers.c_str(), error, sizeof error);
  rd_kafka_conf_set(conf, "group.id",
                    ("check-" + o.topic + "-" + std::to_string(::getpid())).c_str(), error,
                    sizeof error);
  rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", error, sizeof error);
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
  rd_kafka_poll_set_consumer(consumer);
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, o.topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(consumer, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  std::unordered_map<std::string, bool> seen;
  std::map<std::string, std::uint64_t> counted;
  std::uint64_t duplicates = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (seen.size() < o.lines && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 100);
    if (m == nullptr) continue;
    if (!m->err) {
      const std::string key(static_cast<const char*>(m->key), m->key_len);
      if (seen.emplace(key, true).second) {
        std::istringstream s(std::string(static_cast<const char*>(m->payload), m->len));
        for (std::string w; s >> w;) ++counted[w];
      } else {
        ++duplicates;
      }
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  const bool equal = counted == expected;
  std::printf(
      "check-words: %zu of %zu lines, %llu written twice (at-least-once), word counts %s a "
      "sequential count of the same lines\n",
      seen.size(), o.lines, static_cast<unsigned long long>(duplicates),
      equal ? "equal to" : "DIFFERENT FROM");
  if (seen.size() < o.lines && !o.input.empty()) {
    // Name what is missing, so a lost line can be traced in the processes' logs.
    std::size_t named = 0;
    for (const std::string& key : input_keys(o, o.input)) {
      if (seen.count(key) == 0 && named++ < 20)
        std::printf("check-words: missing %s\n", key.c_str());
    }
  }
  return seen.size() == o.lines && equal ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const options o = parse(argc, argv);
    const auto book = book_lines(o);
    if (o.command == "load") {
      kafka::create_topic(o.brokers, o.topic, static_cast<int>(o.partitions));
      kafka::producer_options out;
      out.brokers = o.brokers;
      out.topic = o.topic;
      flow::graph job(
          flow::pipeline(flow::generate<std::string>(
                             o.lines, [&](std::size_t i) { return book[i % book.size()]; }),
                         kafka::sink<std::string>(out, [](std::string& line) {
                           return kafka::message{"", std::move(line), std::nullopt};
                         })));
      job.run();
      std::cerr << "loaded " << o.lines << " lines (" << words_in(book, o.lines) << " words) into "
                << o.topic << '\n';
      return 0;
    }
    if (o.command == "check-words") return check_words(o, book);
    if (o.command != "run")
      throw std::invalid_argument("spate-kafka-bench: load or run, not " + o.command);
    const std::uint64_t words = words_in(book, o.lines);
    static std::atomic<int> runs{0};
    const std::string output =
        "wc-out-" + o.impl + "-" + std::to_string(::getpid()) + "-" + std::to_string(++runs);
    kafka::create_topic(o.brokers, output, static_cast<int>(o.partitions));
    output_checker checker(o.brokers, output, words);
    const double seconds = o.impl == "spate" ? run_spate(o, output, checker)
                           : o.impl == "kafka-streams"
                               ? run_kafka_streams(o, output, checker)
                               : throw std::invalid_argument("--impl spate|kafka-streams");
    std::printf(
        "{\"impl\":\"%s\",\"lines\":%zu,\"words\":%llu,\"distinct_words\":%zu,\"seconds\":%.3f,"
        "\"lines_per_second\":%.0f}\n",
        o.impl.c_str(), o.lines, static_cast<unsigned long long>(words), checker.distinct(),
        seconds, static_cast<double>(o.lines) / seconds);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "spate-kafka-bench: " << e.what() << '\n';
    return 1;
  }
}
