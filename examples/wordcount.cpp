// spate's main demo: word count over a bundled novel as a streaming job.
//
//   source (lines, replayed N times)
//     -> farm of splitters (flat_map: line -> words)
//     -> farm of counters, by key: a word always reaches the same counter
//        (fused: the splitters route straight into the counters, no router in between)
//     -> sink (merges the counters' tables at the end of the stream)
//
//   wordcount [--file data/wordcount/book.dat] [--replay 100] [--parallelism 2] [--top 10]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "spate/flow.hpp"
#include "spate/platform/cache_line.hpp"
#include "wordcount_common.hpp"

namespace flow = spate::flow;

namespace {

using wordcount::for_each_word;
using wordcount::word_counts;

// Counts the words of its key range; hands its table downstream at the end of the stream.
struct counter : flow::node<std::string, word_counts> {
  explicit counter(std::vector<spate::cache_padded<std::atomic<std::uint64_t>>>* progress)
      : progress(progress) {}
  void consume(std::string& word) {
    ++counts[word];
    if ((++counted & 0xFFF) == 0) publish();
  }
  void on_stop() {
    publish();
    send_next(std::move(counts));
  }
  void publish() { (*progress)[replica_index()]->store(counted, std::memory_order_relaxed); }
  word_counts counts;
  std::uint64_t counted = 0;
  std::vector<spate::cache_padded<std::atomic<std::uint64_t>>>* progress;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"spate word count: a streaming job over a bundled novel"};
  std::string file = "data/wordcount/book.dat";
  int replay = 100;
  std::size_t parallelism = 2, top = 10;
  app.add_option("--file", file, "text to count, one paragraph per line")->check(CLI::ExistingFile);
  app.add_option("--replay", replay, "stream the text this many times")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--parallelism", parallelism, "replicas of the splitter and counter farms")
      ->check(CLI::Range(1, 256));
  app.add_option("--top", top, "how many of the most frequent words to print");
  spate::scheduler_config scheduler;
  try {
    scheduler.apply_environment();
    auto rest = scheduler.apply_command_line(argc, argv);  // --spate.threads=N etc.
    std::vector<std::string> args(rest.rbegin(), rest.rend());
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const spate::config_error& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }

  const std::vector<std::string> lines = wordcount::read_lines(file);
  std::cerr << "spate word count: " << file << ", " << lines.size() << " lines x " << replay
            << " replays; " << parallelism << " splitters, " << parallelism << " counters, "
            << scheduler.effective_threads() << " worker threads\n";

  std::vector<spate::cache_padded<std::atomic<std::uint64_t>>> progress(parallelism);
  word_counts total;
  const std::size_t line_count = lines.size() * std::size_t(replay);
  flow::graph job(
      flow::pipeline(flow::generate<std::string>(
                         line_count, [&](std::size_t i) { return lines[i % lines.size()]; })
                         .named("reader"),
                     flow::farm(flow::flat_map<std::string>([](std::string& line, auto emit) {
                                  for_each_word(line, [&](const std::string& w) { emit(w); });
                                }).named("splitter"),
                                parallelism),
                     flow::farm(flow::make_stage<counter>(&progress).named("counter"), parallelism,
                                flow::by_key{[](const std::string& w) { return w; }}),
                     flow::sink([&](word_counts& partial) {
                       for (auto& [w, n] : partial) total[w] += n;
                     }).named("merger")));

  spate::worker_pool pool(scheduler);
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::atomic<bool> finished{false};
  std::thread reporter([&] {
    while (!finished.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      if (finished.load()) break;
      std::uint64_t n = 0;
      for (auto& p : progress) n += p->load(std::memory_order_relaxed);
      std::cerr << "  " << std::fixed << std::setprecision(2) << seconds() << " s: " << n
                << " words counted, " << std::setprecision(1) << n / seconds() / 1e6
                << " M words/s\n";
    }
  });
  try {
    job.run(pool);
  } catch (const flow::node_error& e) {
    finished = true;
    reporter.join();
    std::cerr << e.what() << '\n';
    return 1;
  }
  const double elapsed = seconds();
  finished = true;
  reporter.join();

  std::uint64_t words = 0;
  for (const auto& [w, n] : total) words += n;
  std::cout << "counted " << words << " words (" << total.size() << " distinct) in " << std::fixed
            << std::setprecision(3) << elapsed << " s: " << std::setprecision(2)
            << words / elapsed / 1e6 << " M words/s, " << line_count / elapsed / 1e6
            << " M lines/s\n";
  wordcount::print_top(total, top);
  std::cout << "per node (items in / out):\n";
  for (const auto& n : job.nodes()) {
    std::cout << "  " << std::left << std::setw(20) << n.name << std::right << std::setw(12)
              << n.items_in << std::setw(12) << n.items_out << '\n';
  }

  return wordcount::check_against_sequential(lines, replay, total);
}
