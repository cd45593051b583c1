// Word count with spate actors: the main thread reads the text and hands lines to a pool
// of splitter actors (round-robin); splitters send each word to the counter actor that
// owns it (hash partitioning); at the end the counts are merged and the top words printed,
// and checked against a plain sequential count of the same text.
//
//   wordcount_actors [--file data/wordcount/book.dat] [--replay 100] [--splitters 4]
//                    [--counters 4] [--top 10] [--spate.threads=N]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "spate/actor.hpp"
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

struct line {
  std::string text;
};
struct drain {};
struct splitter : spate::typed_actor<splitter, line, drain> {
  explicit splitter(std::vector<spate::actor_ref<counter>> counters)
      : counters(std::move(counters)) {}
  void on(line& l) {
    for_each_word(l.text, [&](const std::string& w) {
      const auto owner = std::hash<std::string>{}(w) % counters.size();
      spate::send(counters[owner], word{w});
    });
  }
  // Answers once every earlier line was split (the mailbox is FIFO per sender).
  bool on(drain&) { return true; }
  void on_stop() { counters.clear(); }
  std::vector<spate::actor_ref<counter>> counters;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"spate word count (actors)"};
  std::string file = "data/wordcount/book.dat";
  int replay = 100;
  std::size_t splitters = 4, counters = 4, top = 10;
  app.add_option("--file", file, "text to count, one paragraph per line")->check(CLI::ExistingFile);
  app.add_option("--replay", replay, "read the text this many times")->check(CLI::Range(1, 100000));
  app.add_option("--splitters", splitters, "splitter actors")->check(CLI::Range(1, 1024));
  app.add_option("--counters", counters, "counter actors (words are partitioned by hash)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--top", top, "how many of the most frequent words to print");
  spate::actor_system_config config;
  try {
    config.scheduler.apply_environment();
    auto rest = config.scheduler.apply_command_line(argc, argv);
    std::vector<std::string> args(rest.rbegin(), rest.rend());
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const spate::config_error& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }

  const std::vector<std::string> lines = wordcount::read_lines(file);
  std::cerr << "spate word count: " << file << " (" << lines.size() << " lines) x " << replay
            << ", " << splitters << " splitters, " << counters << " counters, "
            << config.scheduler.effective_threads() << " worker threads\n";

  spate::actor_system system(config);
  std::atomic<std::uint64_t> counted{0};
  std::vector<spate::actor_ref<counter>> counter_actors;
  for (std::size_t i = 0; i < counters; ++i)
    counter_actors.push_back(system.spawn<counter>(&counted));
  std::vector<spate::actor_ref<splitter>> splitter_actors;
  for (std::size_t i = 0; i < splitters; ++i) {
    splitter_actors.push_back(system.spawn<splitter>(counter_actors));
  }

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::atomic<bool> finished{false};
  std::thread progress([&] {
    while (!finished.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      if (finished.load()) break;
      const auto n = counted.load();
      std::cerr << "  " << std::fixed << std::setprecision(1) << elapsed() << " s: " << n
                << " words counted (" << std::setprecision(2) << n / elapsed() / 1e6
                << " M words/s)\n";
    }
  });

  std::size_t next = 0;
  for (int r = 0; r < replay; ++r) {
    for (const auto& l : lines) {
      // Keep splitters' mailboxes bounded: memory stays flat however large the input.
      auto& target = splitter_actors[next++ % splitters];
      while (target.mailbox_size() > 4096) std::this_thread::yield();
      spate::send(target, line{l});
    }
  }
  for (auto& s : splitter_actors) spate::request(s, drain{}, std::chrono::minutes(5)).get();
  word_counts total;
  for (auto& c : counter_actors) {
    for (auto& [w, n] : spate::request(c, collect{}, std::chrono::minutes(5)).get()) total[w] += n;
  }
  const double seconds = elapsed();
  finished = true;
  progress.join();

  std::uint64_t words = 0;
  for (const auto& [w, n] : total) words += n;
  std::cout << "counted " << words << " words (" << total.size() << " distinct) in " << std::fixed
            << std::setprecision(3) << seconds << " s: " << std::setprecision(2)
            << words / seconds / 1e6 << " M words/s\n";
  wordcount::print_top(total, top);

  return wordcount::check_against_sequential(lines, replay, total);
}
