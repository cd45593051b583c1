// Word count through a Kafka broker, spate against Kafka Streams, end to end: lines in an
// input topic -> the job -> (word, count) in an output topic, timed until a checker reading
// the output topic has seen every word's final count (the sum of the latest counts equals
// the number of words in the input).
//
//   spate-kafka-bench load  --brokers B --topic T --lines N [--partitions 4]
//   spate-kafka-bench run   --brokers B --input T --lines N --impl spate|kafka-streams
//                           [--replicas 2] [--jars DIR --classes DIR]
//                           [--exactly_once] [--commit_ms 100] [--emit final|updates]
//   spate-kafka-bench read  --brokers B --topic T --lines N [--exactly_once]
//       times the output checker alone over a finished run's output topic T (read_committed
//       with --exactly_once, as `run` reads it): {"read", "isolation", "seconds"}
//   spate-kafka-bench check-words --brokers B --topic T --lines N [--input T]
//       reads examples/kafka/kafka_words' output (one record per input line, keyed by the
//       line's partition:offset, value its words), keeps one record per key, and checks
//       that all N lines are there and their words count as a sequential count of the
//       same lines does; exit code 0 when they do. With --input (the job's input topic) it
//       names the input records (partition:offset) whose line is missing
//
// `run` prints one JSON line: {"impl", "guarantee", "emit", "commit_ms", "lines", "words",
// "distinct_words", "seconds", "lines_per_second", "job_seconds"} (job_seconds: spate's job
// from its start to its end, before the checker saw the last output; -1 for Kafka Streams).
// The clock starts when the job starts (Kafka Streams: when its JVM is up and has called
// start(); both then join their consumer group) and stops when the checker is satisfied.
//
// Processing guarantee (the same for both implementations in a run):
//   at least once (default): spate's source commits the offsets of records whose words are
//     with the counters every commit_ms (kafka::sink, plain producer); Kafka Streams with
//     processing.guarantee=at_least_once and commit.interval.ms=commit_ms.
//   --exactly_once: spate takes a checkpoint every commit_ms (into a fresh temporary
//     directory, removed at the end), its counters keep their counts in checkpointed state,
//     and kafka::exactly_once_sink writes the counts in Kafka transactions committed at each
//     checkpoint with the input offsets (and once more at the end of the input); Kafka
//     Streams with processing.guarantee=exactly_once_v2 and commit.interval.ms=commit_ms.
//     The checker then reads with isolation.level=read_committed: it sees the output only
//     once committed.
// Each implementation writes the same records in both modes: spate one record per distinct
// word with its final count, at the end of the input; Kafka Streams its count updates, which
// its record cache collapses within a commit interval.
// --emit updates (spate only): spate writes every word's running count as it counts it, one
// record per input word, so that output flows all the time; exactly once then holds it back
// between each barrier and its commit (kafka::exactly_once_sink), which is what this
// measures.
#include <librdkafka/rdkafka.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
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
  bool exactly_once = false;
  std::string emit = "final";   // or "updates": a record per input word (spate only)
  std::size_t commit_ms = 100;  // Kafka Streams' default commit.interval.ms with exactly_once_v2
};

options parse(int argc, char** argv) {
  options o;
  if (argc < 2) throw std::invalid_argument("usage: spate-kafka-bench load|run --NAME VALUE ...");
  o.command = argv[1];
  for (int i = 2; i < argc; i += 2) {
    const std::string name = argv[i];
    if (name == "--exactly_once") {  // a flag: no value
      o.exactly_once = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument("spate-kafka-bench: " + name + " needs a value");
    const std::string value = argv[i + 1];
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
    else if (name == "--commit_ms")
      o.commit_ms = std::stoul(value);
    else if (name == "--emit") {
      if (value != "final" && value != "updates")
        throw std::invalid_argument("spate-kafka-bench: --emit final|updates, not " + value);
      o.emit = value;
    } else
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
// add up to `words`; returns when they do (or throws after `limit`, or `grace` after `ended`
// said the job is over). `read_committed`: sees transactional output only once committed.
class output_checker {
 public:
  output_checker(const std::string& brokers, const std::string& topic, std::uint64_t words,
                 bool read_committed)
      : words_(words) {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", brokers.c_str(), error, sizeof error);
    rd_kafka_conf_set(conf, "group.id", ("checker-" + topic).c_str(), error, sizeof error);
    rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", error, sizeof error);
    rd_kafka_conf_set(conf, "enable.auto.commit", "false", error, sizeof error);
    rd_kafka_conf_set(conf, "isolation.level",
                      read_committed ? "read_committed" : "read_uncommitted", error, sizeof error);
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
  void wait(std::chrono::seconds limit, const std::function<bool()>& ended = nullptr,
            std::chrono::seconds grace = std::chrono::seconds(120)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::optional<std::chrono::steady_clock::time_point> ended_at;
    while (sum_ != words_) {
      const auto now = std::chrono::steady_clock::now();
      if (now > deadline) {
        throw std::runtime_error("the output's counts add up to " + std::to_string(sum_) +
                                 " words, not " + std::to_string(words_) + ", after " +
                                 std::to_string(limit.count()) + " s");
      }
      if (!ended_at && ended && ended()) ended_at = now;
      if (ended_at && now - *ended_at > grace) {
        throw std::runtime_error("the job ended, and " + std::to_string(grace.count()) +
                                 " s later the output's counts add up to " + std::to_string(sum_) +
                                 " words (" + std::to_string(latest_.size()) + " distinct), not " +
                                 std::to_string(words_));
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
    // At least once: its words are with the counters (whose counts are not durable).
    // Exactly once: the checkpoints hold the source's positions; this does nothing.
    line.at.done();
  }
};

// Counts words; sends every word's final count at the end, or (`updates`) its running count
// at each word.
struct word_counter : flow::node<std::string, std::pair<std::string, std::uint64_t>> {
  explicit word_counter(bool updates = false) : updates(updates) {}
  void consume(std::string& word) {
    const std::uint64_t n = ++counts[word];
    if (updates) send_next({std::move(word), n});
  }
  void on_stop() {
    if (updates) return;
    for (auto& [w, n] : counts) send_next({w, n});
  }
  bool updates;
  std::unordered_map<std::string, std::uint64_t> counts;
};

// The exactly-once mode's counter: the same counting and the same output (every word's final
// count, at the end of the input), with the counts in the checkpoints, so that a restore
// would resume them with the input positions of the same checkpoint. They are the node's own
// state (snapshot_state/restore_state), not keyed state (state/keyed.hpp): keyed state has no
// current key in on_stop(), where the final counts are sent, and sending a count update per
// word instead would write one record per input word (8.4 million for 200,000 lines), not
// one per distinct word.
struct checkpointed_word_counter : word_counter {
  using word_counter::word_counter;
  std::unordered_map<std::string, std::uint64_t> snapshot_state() const { return counts; }
  void restore_state(std::unordered_map<std::string, std::uint64_t> restored) {
    counts = std::move(restored);
  }
};

// A fresh directory for the checkpoints of one run, removed with everything in it at the end.
struct temp_directory {
  std::filesystem::path path;
  temp_directory() {
    std::string name =
        (std::filesystem::temp_directory_path() / "spate-kafka-bench-checkpoints.XXXXXX").string();
    if (mkdtemp(name.data()) == nullptr) {
      throw std::runtime_error("mkdtemp " + name + ": " + std::strerror(errno));
    }
    path = name;
  }
  ~temp_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  temp_directory(const temp_directory&) = delete;
  temp_directory& operator=(const temp_directory&) = delete;
};

using counted = std::pair<std::string, std::uint64_t>;

kafka::message to_message(counted& c) {
  return kafka::message{c.first, std::to_string(c.second), std::nullopt};
}

// spate's runs: seconds from the start until the job's last node ended (-1: not a spate run).
// The output may become visible later: exactly once, the last transaction is committed at
// the end, and the checker still has to read it.
double spate_job_seconds = -1;

// Runs `job` until the checker has every word's final count; returns the seconds that took.
double time_spate(spate::runtime& rt, flow::graph& job, output_checker& checker) {
  std::atomic<bool> ended{false};
  const auto start = std::chrono::steady_clock::now();
  job.start(rt, [&ended, start](const std::string&) {
    spate_job_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ended.store(true);  // main reads spate_job_seconds after job.wait(), which waits for this hook
  });
  try {
    checker.wait(std::chrono::seconds(600), [&ended] { return ended.load(); });
  } catch (...) {
    job.cancel();
    try {
      job.wait();  // a node's failure says more than the checker's
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("the spate job failed: ") + e.what());
    }
    throw;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  job.wait();
  return seconds;
}

double run_spate(const options& o, const std::string& output, output_checker& checker) {
  spate::runtime rt;  // before the graph: a graph must not outlive its runtime
  kafka::consumer_options in;
  in.brokers = o.brokers;
  in.group = "spate-" + output;
  in.topic = o.input;
  in.stop_at_end = true;
  in.commit_interval = std::chrono::milliseconds(o.commit_ms);  // at least once only
  kafka::producer_options out;
  out.brokers = o.brokers;
  out.topic = output;
  auto split = flow::farm(flow::make_stage<line_splitter>().named("split"), o.replicas,
                          kafka::by_partition());
  const flow::by_key by_word{[](const std::string& w) { return w; }};
  const bool updates = o.emit == "updates";
  if (!o.exactly_once) {
    flow::graph job(flow::pipeline(
        kafka::source(in), split,
        flow::farm(flow::make_stage<word_counter>(updates).named("count"), o.replicas, by_word),
        kafka::sink<counted>(out, to_message)));
    return time_spate(rt, job, checker);
  }
  out.transactional_id = "spate-wc-" + output;  // unique per run
  const temp_directory checkpoints;             // outlives the graph
  flow::graph_options graph_options;
  graph_options.checkpoints = flow::checkpoint_options{
      .directory = checkpoints.path, .interval = std::chrono::milliseconds(o.commit_ms)};
  flow::graph job(
      flow::pipeline(kafka::source(in), split,
                     flow::farm(flow::make_stage<checkpointed_word_counter>(updates).named("count"),
                                o.replicas, by_word),
                     kafka::exactly_once_sink<counted>(out, to_message)),
      graph_options);
  const double seconds = time_spate(rt, job, checker);
  const flow::checkpoint_stats stats = job.checkpoints();
  std::cerr << "spate exactly-once: " << stats.completed << " checkpoints completed, "
            << stats.failed << " failed, " << stats.abandoned << " abandoned; the last "
            << stats.last_bytes << " bytes, " << stats.last_duration.count() << " us\n";
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
           o.exactly_once ? "exactly_once_v2" : "at_least_once",
           std::to_string(o.commit_ms).c_str(), static_cast<char*>(nullptr));
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
  bool exited = false;  // the JVM exited by itself (and is reaped)
  try {
    checker.wait(std::chrono::seconds(600), [&] {
      int status = 0;
      if (!exited && waitpid(child, &status, WNOHANG) == child) exited = true;
      return exited;
    });
  } catch (...) {
    if (!exited) {
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
    }
    throw;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!exited) {
    kill(child, SIGTERM);
    waitpid(child, nullptr, 0);
  }
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
    if (o.command == "read") {
      output_checker checker(o.brokers, o.topic, words_in(book, o.lines), o.exactly_once);
      const auto start = std::chrono::steady_clock::now();
      checker.wait(std::chrono::seconds(600));
      std::printf("{\"read\":\"%s\",\"isolation\":\"%s\",\"seconds\":%.3f}\n", o.topic.c_str(),
                  o.exactly_once ? "read_committed" : "read_uncommitted",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      return 0;
    }
    if (o.command != "run")
      throw std::invalid_argument("spate-kafka-bench: load, run, read or check-words, not " +
                                  o.command);
    if (o.impl != "spate" && o.emit != "final")
      throw std::invalid_argument("spate-kafka-bench: --emit applies to --impl spate only");
    const std::uint64_t words = words_in(book, o.lines);
    static std::atomic<int> runs{0};
    const std::string output =
        "wc-out-" + o.impl + "-" + std::to_string(::getpid()) + "-" + std::to_string(++runs);
    kafka::create_topic(o.brokers, output, static_cast<int>(o.partitions));
    output_checker checker(o.brokers, output, words, o.exactly_once);
    const double seconds = o.impl == "spate" ? run_spate(o, output, checker)
                           : o.impl == "kafka-streams"
                               ? run_kafka_streams(o, output, checker)
                               : throw std::invalid_argument("--impl spate|kafka-streams");
    std::printf(
        "{\"impl\":\"%s\",\"guarantee\":\"%s\",\"emit\":\"%s\",\"commit_ms\":%zu,\"lines\":%zu,"
        "\"words\":%llu,"
        "\"distinct_words\":%zu,\"seconds\":%.3f,\"lines_per_second\":%.0f,\"job_seconds\":%.3f}\n",
        o.impl.c_str(), o.exactly_once ? "exactly_once" : "at_least_once", o.emit.c_str(),
        o.commit_ms, o.lines, static_cast<unsigned long long>(words), checker.distinct(), seconds,
        static_cast<double>(o.lines) / seconds, spate_job_seconds);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "spate-kafka-bench: " << e.what() << '\n';
    return 1;
  }
}
