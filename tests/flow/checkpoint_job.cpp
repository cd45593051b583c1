// The stateful jobs the kill test (checkpoint_kill_test.cpp) runs, kills with SIGKILL and
// starts again, each with its state in a farm of two replicas and a sink with state of its
// own that writes its table out at the end of the input:
// - words: the words of a file counted per word;
// - fraud: Fraud Detection (examples/apps/fraud_detection) over a file of transactions, its
//   predictor's recent states per card in keyed state; the sink keeps the alerts;
// - windows: the words of a file counted per word in sliding event-time windows (a word's
//   time is its line's number; windows of 2,000 lines every 500), Window Farming over two
//   workers, the windows being the stages' own state (window/detail/window_checkpoints.hpp).
//
// - words-unaligned: words, with unaligned checkpoints (the lines, words and updates queued
//   between the stages are stored with each checkpoint).
//
//   checkpoint_job words|words-unaligned|fraud|windows <input> <output>
//                  <checkpoint directory | -> <interval ms> [<rocksdb directory>]
//
// "-": no checkpoints (the failure-free reference). With a RocksDB directory (a build with
// spate::rocksdb), the keyed state is kept there (state/rocksdb_backend.hpp), with a cache
// of 64 rows, fewer than the words, so rows go to RocksDB and come back all the time. On success it
// writes <output> ("word count" lines in word order, then "updates N") and appends the checkpoint
// it restored from to <output>.restores, one line per start. On its standard output it
// writes "started <id>" once that line is written (id: the checkpoint it restored from, 0 if
// none) and "checkpoint <id>" each time a checkpoint is complete (durable): the kill test waits
// for both before some of its kills, so those land after a checkpoint the next start restores.
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>

#include <unistd.h>

#include "../../examples/apps/fraud_detection/fraud_detection.hpp"
#include "keyed_word_count.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/flow.hpp"
#include "spate/io/file.hpp"
#include "spate/state/keyed.hpp"
#include "spate/window.hpp"
#if SPATE_JOB_WITH_ROCKSDB
#include "spate/state/rocksdb_backend.hpp"
#endif

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

// Writes `path` whole or not at all: a temporary file renamed into place.
template <class WriteLines>
void write_atomically(const std::string& path, WriteLines&& write_lines) {
  std::ofstream out(path + ".tmp", std::ios::trunc);
  write_lines(out);
  out.close();
  if (!out || std::rename((path + ".tmp").c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot write '" + path + "'");
  }
}

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
    write_atomically(path, [&](std::ostream& out) {
      for (const auto& [word, n] : now.first) out << word << ' ' << n << '\n';
      out << "updates " << now.second << '\n';
    });
  }
};

namespace fd = apps::fraud_detection;

// "CARD000042,TX0000000007,HNS" on line n: card 42's transaction, numbered n. The card's
// number is its key, so that a restarted job keys it as the first run did.
struct parse_transaction : flow::node<spate::io::text_line, fd::transaction> {
  std::shared_ptr<const fd::markov_model> model;
  explicit parse_transaction(std::shared_ptr<const fd::markov_model> m) : model(std::move(m)) {}
  void consume(spate::io::text_line& line) {
    const std::string_view text = line.text;
    const auto comma = text.find(','), last = text.rfind(',');
    std::uint32_t card = 0;
    const auto state =
        comma > 4 && last != comma ? model->index_of(text.substr(last + 1)) : std::nullopt;
    if (!state || std::from_chars(text.data() + 4, text.data() + comma, card).ec != std::errc{}) {
      throw std::runtime_error("line " + std::to_string(line.number) + ": not a transaction");
    }
    send_next(fd::transaction{card, *state, line.number, 0});
  }
};

struct alert_table : flow::node<fd::alert, void> {
  using kept = std::map<std::uint64_t, std::pair<std::uint32_t, double>>;  // by transaction
  std::string path;
  kept now;
  explicit alert_table(std::string p) : path(std::move(p)) {}
  void consume(fd::alert& a) { now.emplace(a.seq, std::pair(a.entity, a.score)); }
  kept snapshot_state() const { return now; }
  void restore_state(kept k) { now = std::move(k); }
  void on_stop() {
    write_atomically(path, [&](std::ostream& out) {
      out.precision(17);
      for (const auto& [seq, alert] : now)
        out << seq << ' ' << alert.first << ' ' << alert.second << '\n';
      out << "alerts " << now.size() << '\n';
    });
  }
};

// A word at its line's number, the time of the windows.
struct timed_word {
  std::string word;
  std::uint64_t line;
};
struct split_timed_words : flow::node<spate::io::text_line, timed_word> {
  void consume(spate::io::text_line& line) {
    spate::test::for_each_word(line.text, [&](std::string w) {
      send_next(timed_word{std::move(w), line.number});
    });
  }
};

auto windowed_count() {
  return spate::window::window_farming<timed_word>(
      spate::window::time_window{.length = 2000, .slide = 500, .lateness = 0},
      [](const timed_word& t) { return t.word; }, [](const timed_word& t) { return t.line; },
      spate::window::incremental<std::uint64_t>(
          [](std::uint64_t& n, const timed_word&) { ++n; },
          [](const std::string&, const std::uint64_t& n) { return n; }),
      2);
}
using window_count = spate::window::window_result<std::string, std::uint64_t>;

// Every window's count, by word and window, with whether it was complete.
struct window_table : flow::node<window_count, void> {
  using kept = std::map<std::pair<std::string, std::uint64_t>, std::pair<std::uint64_t, bool>>;
  std::string path;
  kept now;
  explicit window_table(std::string p) : path(std::move(p)) {}
  void consume(window_count& c) {
    now.emplace(std::pair(std::move(c.key), c.window), std::pair(c.value, c.complete));
  }
  kept snapshot_state() const { return now; }
  void restore_state(kept k) { now = std::move(k); }
  void on_stop() {
    write_atomically(path, [&](std::ostream& out) {
      for (const auto& [at, count] : now)
        out << at.first << ' ' << at.second << ' ' << count.first << (count.second ? "" : " ~")
            << '\n';
      out << "windows " << now.size() << '\n';
    });
  }
};

template <class Stages>
flow::graph job(Stages stages, std::optional<flow::checkpoint_options> checkpoints,
                std::shared_ptr<state::keyed_state_backend> backend) {
  return flow::graph(std::move(stages),
                     flow::graph_options{.checkpoints = std::move(checkpoints),
                                         .keyed_state_backend = std::move(backend)});
}

// One line on the standard output, in one write (at most PIPE_BUF bytes: atomic, never
// interleaved with another thread's line). A reader that went away is not the job's error.
void announce(const char* what, std::uint64_t id) {
  char line[64];
  const int n =
      std::snprintf(line, sizeof line, "%s %llu\n", what, static_cast<unsigned long long>(id));
  [[maybe_unused]] const auto written = ::write(STDOUT_FILENO, line, static_cast<std::size_t>(n));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string app = argc > 1 ? argv[1] : "";
  if ((argc != 6 && argc != 7) ||
      (app != "words" && app != "words-unaligned" && app != "fraud" && app != "windows")) {
    std::fprintf(stderr,
                 "usage: checkpoint_job words|words-unaligned|fraud|windows <input> <output> "
                 "<directory|-> <interval ms> [<rocksdb directory>]\n");
    return 2;
  }
  ++argv;
  --argc;
  const std::string input = argv[1], output = argv[2], directory = argv[3];
  int interval_ms = 0;
  std::from_chars(argv[4], argv[4] + std::char_traits<char>::length(argv[4]), interval_ms);
  std::optional<flow::checkpoint_options> checkpoints;
  if (directory != "-") {
    checkpoints = flow::checkpoint_options{
        .directory = directory,
        .interval = std::chrono::milliseconds(interval_ms),
        .on_complete = [](std::uint64_t id) { announce("checkpoint", id); },
        .alignment = app == "words-unaligned" ? flow::checkpoint_alignment::unaligned
                                              : flow::checkpoint_alignment::aligned};
  }
  std::shared_ptr<state::keyed_state_backend> backend;
  if (argc == 6) {
#if SPATE_JOB_WITH_ROCKSDB
    backend = state::rocksdb_backend({.directory = argv[5], .cached_rows = 64});
#else
    std::fprintf(stderr, "checkpoint_job: built without spate::rocksdb\n");
    return 2;
#endif
  }
  try {
    auto errors = std::make_shared<spate::io::input_errors>();
    auto lines = spate::io::line_source(input, errors);
    flow::graph g = [&] {
      if (app == "words" || app == "words-unaligned") {
        return job(flow::pipeline(std::move(lines), split_words{},
                                  flow::farm(word_count{}, 2,
                                             flow::by_key{[](const std::string& w) { return w; }}),
                                  flow::make_stage<count_table>(output)),
                   checkpoints, backend);
      }
      if (app == "windows") {
        return job(flow::pipeline(std::move(lines), split_timed_words{}, windowed_count(),
                                  flow::make_stage<window_table>(output)),
                   checkpoints, backend);
      }
      auto model = std::make_shared<const fd::markov_model>(fd::markov_model::load(SPATE_FD_MODEL));
      return job(fd::pipeline<fd::keyed_predictor>(
                     flow::pipeline(std::move(lines), flow::make_stage<parse_transaction>(model)),
                     flow::make_stage<alert_table>(output), model, 2),
                 checkpoints, backend);
    }();
    spate::runtime rt;
    g.start(rt);
    {
      std::ofstream restores(output + ".restores", std::ios::app);
      restores << g.checkpoints().restored_from << '\n';
    }
    announce("started", g.checkpoints().restored_from);
    g.wait();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "checkpoint_job: %s\n", e.what());
    return 1;
  }
  return 0;
}
