// The stateful job the kill test (checkpoint_kill_test.cpp) runs, kills with SIGKILL and
// starts again: words of a file counted per word in keyed state by a farm of two replicas,
// the counts kept by a sink with state of its own, written out at the end of the input.
//
//   checkpoint_job <input> <output> <checkpoint directory | -> <interval ms>
//
// "-": no checkpoints (the failure-free reference). On success it writes <output> ("word
// count" lines in word order, then "updates N") and appends the checkpoint it restored from
// to <output>.restores, one line per start.
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "keyed_word_count.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/flow.hpp"
#include "spate/io/file.hpp"
#include "spate/state/keyed.hpp"

namespace flow = spate::flow;
namespace state = spate::state;

namespace {

using update = spate::test::word_update;

struct split_words : flow::node<spate::io::text_line, std::string> {
  void consume(spate::io::text_line& line) {
    spate::test::for_each_word(line.text, [this](std::string w) { send_next(std::move(w)); });
  }
};

using word_count = spate::test::keyed_word_count;

struct count_table : flow::node<update, void> {
  using kept = std::pair<std::map<std::string, std::int64_t>, std::int64_t>;
  std::string path;
  kept now;
  explicit count_table(std::string p) : path(std::move(p)) {}
  void consume(update& u) {
    std::int64_t& c = now.first[u.first];
    if (u.second > c) c = u.second;
    ++now.second;
  }
  kept snapshot_state() const { return now; }
  void restore_state(kept k) { now = std::move(k); }
  void on_stop() {
    std::ofstream out(path + ".tmp", std::ios::trunc);
    for (const auto& [word, n] : now.first) out << word << ' ' << n << '\n';
    out << "updates " << now.second << '\n';
    out.close();
    if (!out || std::rename((path + ".tmp").c_str(), path.c_str()) != 0) {
      throw std::runtime_error("cannot write '" + path + "'");
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: checkpoint_job <input> <output> <directory|-> <interval ms>\n");
    return 2;
  }
  const std::string input = argv[1], output = argv[2], directory = argv[3];
  int interval_ms = 0;
  std::from_chars(argv[4], argv[4] + std::char_traits<char>::length(argv[4]), interval_ms);
  std::optional<flow::checkpoint_options> checkpoints;
  if (directory != "-") {
    checkpoints = flow::checkpoint_options{.directory = directory,
                                           .interval = std::chrono::milliseconds(interval_ms)};
  }
  try {
    auto errors = std::make_shared<spate::io::input_errors>();
    flow::graph g(flow::pipeline(spate::io::line_source(input, errors), split_words{},
                                 flow::farm(word_count{}, 2,
                                            flow::by_key{[](const std::string& w) { return w; }}),
                                 flow::make_stage<count_table>(output)),
                  flow::graph_options{.checkpoints = checkpoints});
    spate::runtime rt;
    g.start(rt);
    {
      std::ofstream restores(output + ".restores", std::ios::app);
      restores << g.checkpoints().restored_from << '\n';
    }
    g.wait();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "checkpoint_job: %s\n", e.what());
    return 1;
  }
  return 0;
}
