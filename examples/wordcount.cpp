// spate's main demo: word count over a bundled novel as a streaming job.
//
//   source (numbered lines, replayed N times)
//     -> farm of splitters (flat_map: line -> words; a line that is not valid UTF-8 is a
//        malformed record: counted and named at the end, its words left out)
//     -> farm of counters, by key: a word always reaches the same counter
//        (fused: the source deals lines straight to the splitters, and the splitters route
//        words straight into the counters; no router stage anywhere)
//     -> sink (merges the counters' tables at the end of the stream)
//
//   wordcount [--file data/wordcount/book.dat] [--replay 100] [--parallelism 2] [--top 10]
//             [--metrics-port 9464] [--topology wordcount.dot]
//
// With --metrics-port, the job's live metrics are served at http://127.0.0.1:PORT/metrics
// (Prometheus text; /metrics.json as JSON) while it runs; --topology writes the graph as
// Graphviz DOT (and Mermaid beside it, .mmd) when it has run.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>
#include <iomanip>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "spate/flow.hpp"
#include "spate/observe/progress_reporter.hpp"
#include "spate/observe/topology_export.hpp"
#include "spate/observe/watch.hpp"
#ifdef SPATE_DEMO_METRICS_SERVER
#include "spate/observe/metrics_server.hpp"
#endif
#include "wordcount_common.hpp"

namespace flow = spate::flow;

namespace {

using wordcount::for_each_word;
using wordcount::text_line;
using wordcount::word_counts;

// Counts the words of its key range; hands its table downstream at the end of the stream.
struct counter : flow::node<std::string, word_counts> {
  void consume(std::string& word) { ++counts[word]; }
  void on_stop() { send_next(std::move(counts)); }
  word_counts counts;
};

}  // namespace

int main(int argc, char** argv) {
  wordcount::demo_options options("spate word count: a streaming job over a bundled novel");
  wordcount::text_options text;
  std::size_t parallelism = 2;
  wordcount::add_text_options(options, text);
  options.add("--parallelism", parallelism, "replicas of the splitter and counter farms",
              std::size_t(1), std::size_t(256));
  int metrics_port = 0;
  options.add("--metrics-port", metrics_port,
              "serve live metrics at http://127.0.0.1:PORT/metrics while the job runs (0: off)",
              0, 65535);
  std::string topology_file;
  options.add("--topology", topology_file,
              "write the job's graph to this Graphviz DOT file (and Mermaid to FILE.mmd)");
  spate::scheduler_config scheduler;
  if (auto exit_code = wordcount::parse_command_line(options, scheduler, argc, argv)) {
    return *exit_code;
  }
  const auto& [file, replay, top] = text;

  const auto text_lines = wordcount::read_lines(file);
  if (!text_lines) return 2;
  const std::vector<std::string>& lines = *text_lines;
  std::cerr << "spate word count: " << file << ", " << lines.size() << " lines x " << replay
            << " replays; " << parallelism << " splitters, " << parallelism << " counters, "
            << scheduler.effective_threads() << " worker threads\n";

  wordcount::malformed_lines malformed;
  word_counts total;
  const std::size_t line_count = lines.size() * std::size_t(replay);
  flow::graph job(
      flow::pipeline(flow::generate<text_line>(line_count,
                                               [&](std::size_t i) {
                                                 const std::size_t n = i % lines.size();
                                                 return text_line{n + 1, lines[n]};
                                               })
                         .named("reader"),
                     flow::farm(flow::flat_map<std::string>([&](text_line& line, auto emit) {
                                  if (!for_each_word(line.text,
                                                     [&](const std::string& w) { emit(w); })) {
                                    malformed.record(line.number);
                                  }
                                }).named("splitter"),
                                parallelism),
                     flow::farm(flow::make_stage<counter>().named("counter"), parallelism,
                                flow::by_key{[](const std::string& w) { return w; }}),
                     flow::sink([&](word_counts& partial) {
                       for (auto& [w, n] : partial) total[w] += n;
                     }).named("merger")),
      flow::graph_options{.measure_busy_time = true});

  // The environment and --spate.* arguments are in `scheduler` already.
  spate::runtime_config config;
  config.scheduler = scheduler;
  config.read_environment = false;
  spate::runtime rt(config);
  spate::observe::metrics_registry registry;
  auto watching_job = spate::observe::watch(registry, job, "wordcount");
  auto watching_pool = spate::observe::watch(registry, rt.pool());
#ifdef SPATE_DEMO_METRICS_SERVER
  std::optional<spate::observe::metrics_server> metrics;
  if (metrics_port != 0) {
    spate::observe::metrics_server_options listen;
    listen.port = metrics_port;
    metrics.emplace(registry, listen);
    std::cerr << "live metrics: " << metrics->url() << '\n';
  }
#else
  if (metrics_port != 0) {
    std::cerr << "--metrics-port: this build has no HTTP server (cpp-httplib was not found)\n";
    return 2;
  }
#endif
  spate::observe::progress_options progress;
  progress.title = "spate word count";
  progress.unit = "lines";
  progress.total = line_count;
  progress.period = std::chrono::milliseconds(250);
  spate::observe::progress_reporter reporter(spate::observe::items_through(job, "splitter"),
                                             progress);
  try {
    job.run(rt);
  } catch (const flow::node_error& e) {
    reporter.stop();
    std::cerr << e.what() << '\n';
    return 1;
  }
  const double elapsed = reporter.seconds();
  reporter.stop();
  if (!topology_file.empty()) {
    std::ofstream(topology_file) << spate::observe::to_dot(job.topology(), "spate word count");
    std::ofstream(topology_file + ".mmd") << spate::observe::to_mermaid(job.topology());
    std::cerr << "topology: " << topology_file << " (render: dot -Tsvg " << topology_file
              << " -o wordcount.svg) and " << topology_file << ".mmd\n";
  }

  wordcount::print_summary(total, elapsed, line_count);
  malformed.report(std::cout);
  wordcount::print_top(total, top);
  // Busy: the share of the run a node spent in activations; the busiest one limits the job.
  std::cout << "per node (items in / out, busy):\n";
  for (const auto& n : job.nodes()) {
    std::cout << "  " << std::left << std::setw(20) << n.name << std::right << std::setw(12)
              << n.items_in << std::setw(12) << n.items_out << std::setw(7)
              << std::lround(100.0 * std::chrono::duration<double>(n.busy).count() / elapsed)
              << "%\n";
  }

  return wordcount::check_against_sequential(lines, replay, total, malformed.records());
}
