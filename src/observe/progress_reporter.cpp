#include "spate/observe/progress_reporter.hpp"

#include <cstdio>

#include "spate/flow/graph.hpp"
#include "spate/log/log.hpp"

namespace spate::observe {

namespace {
// 4200000 -> "4.20 M"; below ten thousand as it is.
std::string amount(double n) {
  char buffer[32];
  if (n >= 1e9) {
    std::snprintf(buffer, sizeof buffer, "%.2f G", n / 1e9);
  } else if (n >= 1e6) {
    std::snprintf(buffer, sizeof buffer, "%.2f M", n / 1e6);
  } else if (n >= 1e4) {
    std::snprintf(buffer, sizeof buffer, "%.1f k", n / 1e3);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.0f", n);
  }
  return buffer;
}
}  // namespace

progress_reporter::progress_reporter(std::function<std::uint64_t()> done, progress_options options)
    : done_(std::move(done)),
      options_(std::move(options)),
      start_(std::chrono::steady_clock::now()),
      thread_([this] { run(); }) {}

void progress_reporter::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  if (thread_.joinable()) thread_.join();
}

double progress_reporter::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string progress_reporter::line(const progress_options& options, std::uint64_t done,
                                    double seconds) {
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  char buffer[64];
  std::string out = options.title + ": ";
  if (options.total > 0) {
    std::snprintf(buffer, sizeof buffer, "%.1f%% (",
                  100.0 * static_cast<double>(done) / static_cast<double>(options.total));
    out += buffer + amount(static_cast<double>(done)) + " of " +
           amount(static_cast<double>(options.total)) + " " + options.unit + ")";
  } else {
    out += amount(static_cast<double>(done)) + " " + options.unit;
  }
  out += ", " + amount(rate) + " " + options.unit + "/s";
  if (options.total > 0 && rate > 0 && done < options.total) {
    std::snprintf(buffer, sizeof buffer, ", about %.1f s left",
                  static_cast<double>(options.total - done) / rate);
    out += buffer;
  }
  return out;
}

void progress_reporter::run() {
  std::unique_lock lock(mutex_);
  while (!stop_requested_.wait_for(lock, options_.period, [this] { return stopping_; })) {
    lock.unlock();
    const std::string text = line(options_, done_(), seconds());
    if (options_.print) {
      options_.print(text);
    } else {
      log::write(log::level::info, "progress", text);
    }
    lock.lock();
  }
}

std::function<std::uint64_t()> items_through(const flow::graph& graph, std::string stage) {
  return [&graph, stage = std::move(stage)] {
    std::uint64_t n = 0;
    for (const auto& node : graph.nodes()) {
      const auto replica_mark = node.name.rfind('#');
      if (node.name.substr(0, replica_mark) != stage) continue;  // npos: the whole name
      n += node.kind == "source" ? node.items_out : node.items_in;
    }
    return n;
  };
}

}  // namespace spate::observe
