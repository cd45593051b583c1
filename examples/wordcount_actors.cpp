// Word count with spate actors: the main thread reads the text and hands lines to a pool
// of splitter actors (round-robin); splitters send each word to the counter actor that
// owns it (hash partitioning); at the end the counts are merged and the top words printed,
// and checked against a plain sequential count of the same text.
//
//   wordcount_actors [--file data/wordcount/book.dat] [--replay 100] [--splitters 4]
//                    [--counters 4] [--top 10] [--spate.threads=N]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "spate/actor.hpp"
#include "spate/observe/progress_reporter.hpp"
#include "wordcount_common.hpp"

namespace {

using wordcount::for_each_word;
using wordcount::word_counts;

struct word {
  std::string text;
};
struct collect {};
struct counter : spate::typed_actor<counter, word, collect> {
  explicit counter(std::atomic<std::uint64_t>* counted) : counted(counted) {}
  void on(word& w) {
    ++counts[std::move(w.text)];
    counted->fetch_add(1, std::memory_order_relaxed);
  }
  word_counts on(collect&) { return std::move(counts); }
  word_counts counts;
  std::atomic<std::uint64_t>* counted;
};

using line = wordcount::text_line;
struct drain {};
struct splitter : spate::typed_actor<splitter, line, drain> {
  splitter(std::vector<spate::actor_ref<counter>> counters, wordcount::malformed_lines* malformed)
      : counters(std::move(counters)), malformed(malformed) {}
  void on(line& l) {
    const bool well_formed = for_each_word(l.text, [&](const std::string& w) {
      const auto owner = std::hash<std::string>{}(w) % counters.size();
      spate::send(counters[owner], word{w});
    });
    if (!well_formed) malformed->record(l.number);
  }
  // Answers once every earlier line was split (the mailbox is FIFO per sender).
  bool on(drain&) { return true; }
  void on_stop() { counters.clear(); }
  std::vector<spate::actor_ref<counter>> counters;
  wordcount::malformed_lines* malformed;
};

}  // namespace

int main(int argc, char** argv) {
  wordcount::demo_options options("spate word count (actors)");
  wordcount::text_options text;
  std::size_t splitters = 4, counters = 4;
  wordcount::add_text_options(options, text);
  options.add("--splitters", splitters, "splitter actors", std::size_t(1), std::size_t(1024));
  options.add("--counters", counters, "counter actors (words are partitioned by hash)",
              std::size_t(1), std::size_t(1024));
  spate::actor_system_config config;
  if (auto exit_code = wordcount::parse_command_line(options, config.scheduler, argc, argv)) {
    return *exit_code;
  }
  const auto& [file, replay, top] = text;

  const auto text_lines = wordcount::read_lines(file);
  if (!text_lines) return 2;
  const std::vector<std::string>& lines = *text_lines;
  std::cerr << "spate word count: " << file << " (" << lines.size() << " lines) x " << replay
            << ", " << splitters << " splitters, " << counters << " counters, "
            << config.scheduler.effective_threads() << " worker threads\n";

  spate::actor_system system(config);
  std::atomic<std::uint64_t> counted{0};
  wordcount::malformed_lines malformed;
  std::vector<spate::actor_ref<counter>> counter_actors;
  for (std::size_t i = 0; i < counters; ++i)
    counter_actors.push_back(system.spawn<counter>(&counted));
  std::vector<spate::actor_ref<splitter>> splitter_actors;
  for (std::size_t i = 0; i < splitters; ++i) {
    splitter_actors.push_back(system.spawn<splitter>(counter_actors, &malformed));
  }

  spate::observe::progress_options progress;
  progress.title = "spate word count (actors)";
  progress.unit = "words";
  spate::observe::progress_reporter reporter([&] { return counted.load(); }, progress);

  std::size_t next = 0;
  for (int r = 0; r < replay; ++r) {
    for (std::size_t n = 0; n < lines.size(); ++n) {
      // Keep splitters' mailboxes bounded: memory stays flat however large the input.
      auto& target = splitter_actors[next++ % splitters];
      while (target.mailbox_size() > 4096) std::this_thread::yield();
      spate::send(target, line{n + 1, lines[n]});
    }
  }
  for (auto& s : splitter_actors) spate::request(s, drain{}, std::chrono::minutes(5)).get();
  word_counts total;
  for (auto& c : counter_actors) {
    for (auto& [w, n] : spate::request(c, collect{}, std::chrono::minutes(5)).get()) total[w] += n;
  }
  const double seconds = reporter.seconds();
  reporter.stop();

  wordcount::print_summary(total, seconds, lines.size() * std::size_t(replay));
  malformed.report(std::cout);
  wordcount::print_top(total, top);

  return wordcount::check_against_sequential(lines, replay, total, malformed.records());
}
