// A long-running job as a service (docs/patterns.md, "Running as a service"): it runs until
// SIGTERM (or SIGINT), then drains — every item already read goes through to the sink — and
// the sink flushes its file, writes a summary line and the program exits 0. A second signal
// during the drain gives up on it: the graph is cancelled and the program exits 1.
//
//   build/release/examples/service --output readings.txt &
//   kill -TERM $!     # or Ctrl-C in the foreground
//
// Prints "ready" on stdout once the first record (--ready-after N: the first N) is written, and
// "sent N" when the input has ended (a test waits for the first line, sends SIGTERM and checks the
// file against the second: tests/flow/service_sigterm_test.sh).
//
// The signals are never handled by a handler: they are blocked in every thread and the main
// thread takes them with sigwait(), as ordinary code, so nothing has to be async-signal-safe.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "spate/flow.hpp"
#include "spate/flow/wake_timer.hpp"

namespace flow = spate::flow;
using namespace std::chrono_literals;

namespace {

struct reading {
  std::uint64_t seq;    // 1, 2, 3, ... with no gap
  std::uint64_t value;  // seq * seq, computed by the farm
};

// The input: a batch of readings every millisecond (a sensor, a socket, a queue in a real
// service) until `stop` is set; then the stream ends, which is what makes the graph drain.
struct sensor : flow::source<reading> {
  explicit sensor(const std::atomic<bool>* stop) : stop_(stop) {}
  void on_start() { timer_.start(*this, 1ms); }
  void on_stop() {
    timer_.stop();
    std::printf("sent %llu\n", static_cast<unsigned long long>(next_ - 1));
    std::fflush(stdout);
  }
  // Atomics only: the task's idle re-check. A tick comes every millisecond, so a stop
  // request is seen within one.
  bool has_news() const noexcept { return timer_.due(); }
  flow::produce_status produce() {
    if (stop_->load(std::memory_order_acquire)) return flow::produce_status::ended;
    if (!timer_.take()) return flow::produce_status::wait;
    for (int i = 0; i < 50; ++i) send_next(reading{next_++, 0});
    return flow::produce_status::more;
  }

 private:
  const std::atomic<bool>* stop_;
  flow::wake_timer timer_;
  std::uint64_t next_ = 1;
};

// The output: one line per reading in a file, buffered; on_stop (after the input has
// drained) writes the summary, flushes and closes, and a failure there fails the graph.
struct file_writer : flow::node<reading, void> {
  file_writer(std::string path, std::uint64_t ready_after)
      : path_(std::move(path)), ready_after_(ready_after) {}
  void on_start() {
    out_ = std::fopen(path_.c_str(), "w");
    if (out_ == nullptr) {
      throw std::runtime_error("cannot open '" + path_ + "': " + std::strerror(errno));
    }
  }
  void consume(reading& r) {
    std::fprintf(out_, "%llu %llu\n", static_cast<unsigned long long>(r.seq),
                 static_cast<unsigned long long>(r.value));
    if (++written_ == ready_after_) {  // the service is up and producing: say so once
      std::printf("ready\n");
      std::fflush(stdout);
    }
  }
  void on_stop() {
    std::fprintf(out_, "summary: %llu readings, drained\n",
                 static_cast<unsigned long long>(written_));
    const bool flushed = std::fflush(out_) == 0;
    const bool closed = std::fclose(out_) == 0;
    out_ = nullptr;
    if (!flushed || !closed) throw std::runtime_error("cannot write '" + path_ + "'");
  }
  void on_cancel() {  // no summary: the file is known to be incomplete
    if (out_ != nullptr) std::fclose(out_);
    out_ = nullptr;
  }

 private:
  std::string path_;
  std::uint64_t ready_after_;
  std::FILE* out_ = nullptr;
  std::uint64_t written_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string output = "service-output.txt";
  std::uint64_t ready_after = 1;  // records written before "ready" is printed
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--output") {
      output = argv[i + 1];
    } else if (option == "--ready-after") {
      ready_after = std::stoull(argv[i + 1]);
      if (ready_after == 0) {
        std::fprintf(stderr, "service: --ready-after must be at least 1\n");
        return 2;
      }
    } else {
      std::fprintf(stderr, "usage: service [--output FILE] [--ready-after RECORDS]\n");
      return 2;
    }
  }

  // 1. Block the stop signals before any thread starts: the runtime's workers inherit the
  //    mask, so a signal is never delivered to them and stays pending until sigwait() takes
  //    it. SIGUSR1 is the graph telling the main thread that it ended by itself.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  spate::runtime rt;
  std::atomic<bool> stop{false};
  flow::graph job(flow::pipeline(flow::make_stage<sensor>(&stop).named("sensor"),
                                 flow::ordered_farm(flow::map([](reading& r) {
                                                      r.value = r.seq * r.seq;
                                                      return r;
                                                    }).named("square"),
                                                    2),
                                 flow::make_stage<file_writer>(output, ready_after).named("file")));

  // 2. Start without blocking; the graph's end (however it comes) wakes the main thread.
  //    `ended` tells that SIGUSR1 from any other sender (kill -USR1) apart.
  const pthread_t main_thread = pthread_self();
  std::atomic<bool> ended{false};
  job.start(rt, [main_thread, &ended](const std::string&) {
    ended.store(true, std::memory_order_release);
    pthread_kill(main_thread, SIGUSR1);
  });

  // 3. The first SIGTERM/SIGINT ends the input (the graph drains); a second one cancels.
  bool cancelled = false;
  for (;;) {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig == SIGUSR1) {
      if (ended.load(std::memory_order_acquire)) break;
      continue;  // not from the graph
    }
    if (!stop.exchange(true, std::memory_order_release)) {
      std::fprintf(stderr, "service: %s, draining\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    } else if (!cancelled && !job.finished()) {  // (a drain already over is not cancelled)
      std::fprintf(stderr, "service: second signal, cancelling\n");
      job.cancel();
      cancelled = true;
    }
  }

  // 4. Collect the end: a node's failure (a file that cannot be written) is an error.
  try {
    job.wait();
  } catch (const flow::node_error& e) {
    std::fprintf(stderr, "service: %s\n", e.what());
    return 1;
  }
  if (cancelled) {
    std::fprintf(stderr, "service: cancelled, '%s' is incomplete\n", output.c_str());
    return 1;
  }
  std::fprintf(stderr, "service: drained, '%s' complete\n", output.c_str());
  return 0;
}
