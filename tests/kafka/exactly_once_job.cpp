// The Kafka job the exactly-once kill test (exactly_once_kill_test.cpp) runs, kills with
// SIGKILL and starts again: lines from a topic split into words, counted per word in keyed
// state by a farm of two replicas, every count written to a topic in Kafka transactions that
// commit at each completed checkpoint, together with the input offsets they came from.
//
//   exactly_once_job <brokers> <input topic> <output topic> <group> <checkpoint dir>
//                    <interval ms> <microseconds per line> [partitioned]
//
// "partitioned": the same count as a kafka::partitioned_job (stateful scale-out: one graph
// per input partition this process holds in the group, each checkpointing under the
// directory given). Several processes then share the group; each prints
// "started P restored_from N" as it starts partition P's graph, "stopped P" once it has
// stopped it. Its input must be keyed by
// word (each record one word), so that a word's count lives in one partition.
//
// The pause per line stretches the job over the kill test's kill times, so that kills land
// while it is still reading and writing.
// It prints "restored_from N" (the checkpoint it restored, 0: none) once started, then runs
// until it is killed or gets SIGTERM, which cancels the graph: exit 0; 1 (the error on stderr)
// when the graph failed or ended by itself.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "../flow/keyed_word_count.hpp"
#include "../test_runtime.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/flow.hpp"
#include "spate/kafka/partitioned_job.hpp"
#include "spate/kafka/sink.hpp"
#include "spate/kafka/source.hpp"
#include "spate/log/log.hpp"
#include "spate/state/keyed.hpp"

namespace flow = spate::flow;
namespace kafka = spate::kafka;
namespace state = spate::state;

namespace {

using update = spate::test::word_update;

struct split_words : flow::node<kafka::record, std::string> {
  std::chrono::microseconds pause{0};
  // With checkpoints the source tracks offsets itself: records need no done().
  void consume(kafka::record& line) {
    if (pause.count() > 0) std::this_thread::sleep_for(pause);
    spate::test::for_each_word(line.value, [this](std::string w) { send_next(std::move(w)); });
  }
};

using word_count = spate::test::keyed_word_count;

// Crash points for the kill test: SPATE_CRASH_AT_COMMIT=before:N (or after:N) ends the
// process (std::_Exit, as abrupt as SIGKILL) just before (after) the sink commits the N-th
// transaction that carries input offsets. "before" is the window T5 is for: the checkpoint's
// manifest is durable, its transaction not committed, so a restart must restore the previous
// one; "after" is a commit made and older checkpoints not yet retired. It prints what the
// restart must restore first ("expect_restore N").
template <class ToMessage>
struct crashing_sink : kafka::detail::producer_writer<update, ToMessage, true> {
  using base = kafka::detail::producer_writer<update, ToMessage, true>;
  bool before = true;
  int at = 0;                        // the N-th commit with offsets
  int seen = 0;                      // commits with offsets so far (the coordinator's thread)
  std::uint64_t committed_last = 0;  // (not last_committed: that is the base's T5)
  crashing_sink(kafka::producer_options o, ToMessage m, bool before_commit, int nth)
      : base(std::move(o), std::move(m)), before(before_commit), at(nth) {}

  bool commit(const flow::checkpoint_commit& done) {
    bool offsets = false;
    for (const auto& [source, bytes] : done.positions) {
      offsets = offsets || !state::from_bytes<kafka::source_position>(bytes).next_offsets.empty();
    }
    const bool crash = offsets && !done.at_end && ++seen == at;
    if (crash && before) crash_expecting(committed_last);
    const bool committed = base::commit(done);
    if (committed && offsets) committed_last = done.id;
    if (crash) crash_expecting(committed ? done.id : committed_last);
    return committed;
  }
  [[noreturn]] static void crash_expecting(std::uint64_t id) {
    std::printf("expect_restore %llu\n", static_cast<unsigned long long>(id));
    std::fflush(stdout);
    std::_Exit(86);
  }
};

std::runtime_error call_failed(const char* call, int error) {
  return std::runtime_error(std::string(call) + ": " + std::strerror(error));
}

// Takes the stop signals of `signals` until SIGTERM (or SIGINT) calls stop(), or the job
// ends by itself: `ended` is set, then SIGUSR1 sent to this (the main) thread.
void run_until_stopped(const sigset_t& signals, const std::atomic<bool>& ended,
                       const std::function<void()>& stop) {
  bool stopped = false;
  while (!ended.load(std::memory_order_acquire)) {
    int sig = 0;
    if (const int rc = sigwait(&signals, &sig); rc != 0) throw call_failed("sigwait", rc);
    if ((sig == SIGTERM || sig == SIGINT) && !stopped) {
      stop();
      stopped = true;
    }
  }
  if (!stopped) throw std::runtime_error("the job ended by itself before SIGTERM");
}

// The "partitioned" mode: one graph per partition held (kafka/partitioned_job.hpp).
void run_partitioned(spate::runtime& rt, const sigset_t& signals, kafka::consumer_options in,
                     kafka::producer_options out, const std::filesystem::path& root,
                     std::chrono::milliseconds interval, const split_words& splitter) {
  kafka::partitioned_options options;
  options.brokers = in.brokers;
  options.group = in.group;
  options.topic = in.topic;
  options.checkpoint_root = root;
  options.settings = {{"session.timeout.ms", "6000"}};
  if (const auto debug = out.settings.find("debug"); debug != out.settings.end()) {
    options.settings["debug"] = debug->second;  // SPATE_JOB_KAFKA_DEBUG ("cgrp")
  }
  options.on_started = [](std::int32_t partition, const flow::graph& g) {
    std::printf("started %d restored_from %llu\n", int(partition),
                static_cast<unsigned long long>(g.checkpoints().restored_from));
    std::fflush(stdout);
  };
  options.on_stopped = [](std::int32_t partition) {
    std::printf("stopped %d\n", int(partition));
    std::fflush(stdout);
  };
  in.settings.erase("group.instance.id");
  kafka::partitioned_job job(rt, options, [&](const kafka::partition_context& p) {
    kafka::consumer_options partition_in = in;
    partition_in.partitions = {p.partition};
    kafka::producer_options partition_out = out;
    partition_out.transactional_id = p.transactional_id;
    return flow::graph(
        flow::pipeline(
            kafka::source(partition_in), splitter,
            flow::farm(word_count{}, 2, flow::by_key{[](const std::string& w) { return w; }}),
            kafka::exactly_once_sink<update>(
                partition_out,
                [](update& u) {
                  return kafka::message{std::move(u.first), std::to_string(u.second), std::nullopt};
                })),
        p.graph_options(interval));
  });
  const pthread_t main_thread = pthread_self();
  std::atomic<bool> ended{false};
  std::exception_ptr failure;
  std::thread waiter([&] {
    try {
      job.wait();
    } catch (...) {
      failure = std::current_exception();
    }
    ended.store(true, std::memory_order_release);
    pthread_kill(main_thread, SIGUSR1);
  });
  try {
    run_until_stopped(signals, ended, [&] { job.stop(); });
  } catch (...) {
    job.stop();
    waiter.join();
    if (failure) std::rethrow_exception(failure);  // the cause, not "ended by itself"
    throw;
  }
  waiter.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

int main(int argc, char** argv) {
  const bool partitioned = argc == 9 && std::strcmp(argv[8], "partitioned") == 0;
  if (argc != 8 && !partitioned) {
    std::fprintf(stderr,
                 "usage: exactly_once_job <brokers> <input topic> <output topic> <group> "
                 "<checkpoint dir> <interval ms> <microseconds per line> [partitioned]\n");
    return 2;
  }
  const std::string brokers = argv[1], input = argv[2], output = argv[3], group = argv[4],
                    directory = argv[5];
  int interval_ms = 0;
  const char* interval_end = argv[6] + std::strlen(argv[6]);
  if (std::from_chars(argv[6], interval_end, interval_ms).ptr != interval_end || interval_ms <= 0) {
    std::fprintf(stderr, "exactly_once_job: bad interval '%s'\n", argv[6]);
    return 2;
  }
  split_words splitter;
  splitter.pause = std::chrono::microseconds(std::atoi(argv[7]));

  // The stop signals are blocked before any thread starts (the runtime's workers, the Kafka
  // threads inherit the mask) and taken by sigwait() below, so nothing runs in a signal
  // handler. SIGUSR1 is the graph telling the main thread that it ended by itself (failed).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGUSR1);
  if (const int rc = pthread_sigmask(SIG_BLOCK, &signals, nullptr); rc != 0) {
    std::fprintf(stderr, "exactly_once_job: pthread_sigmask: %s\n", std::strerror(rc));
    return 1;
  }

  kafka::consumer_options in;
  in.brokers = brokers;
  in.group = group;
  in.topic = input;
  // Static membership: a restarted process (same group.instance.id) takes the killed one's
  // partitions at once instead of after the dead member's session times out.
  in.settings = {{"group.instance.id", group + "-member"},
                 {"session.timeout.ms", "6000"},
                 {"auto.offset.reset", "earliest"}};  // no checkpoint yet: the whole topic
  kafka::producer_options out;
  out.brokers = brokers;
  out.topic = output;
  out.transactional_id = group + "-tx";  // a restart fences the killed process's producer
  // Within the kill test's 20 s for SIGTERM: a commit in progress, the abort, the source
  // leaving its group.
  out.commit_timeout = std::chrono::seconds(5);
  in.shutdown_timeout = std::chrono::seconds(2);
  if (const char* d = std::getenv("SPATE_JOB_KAFKA_DEBUG")) {
    out.settings["debug"] = d;  // librdkafka's debug contexts ("eos,msg"), for debugging
    spate::log::set_min_level(spate::log::level::debug);
  }

  flow::checkpoint_options checkpoints;
  checkpoints.directory = directory;
  checkpoints.interval = std::chrono::milliseconds(interval_ms);
  flow::graph_options options;
  options.checkpoints = checkpoints;

  try {
    // The runtime before the graph: a graph must never outlive the runtime it runs on.
    spate::runtime rt(spate::test::two_workers());
    if (partitioned) {
      run_partitioned(rt, signals, in, out, directory, checkpoints.interval, splitter);
      return 0;
    }
    const pthread_t main_thread = pthread_self();
    std::atomic<bool> ended{false};
    auto to_message = [](update& u) {
      return kafka::message{std::move(u.first), std::to_string(u.second), std::nullopt};
    };
    auto counting =
        flow::farm(word_count{}, 2, flow::by_key{[](const std::string& w) { return w; }});
    std::optional<flow::graph> built;
    const char* crash = std::getenv("SPATE_CRASH_AT_COMMIT");
    if (crash != nullptr) {
      const std::string point = crash;
      const bool before = point.rfind("before:", 0) == 0;
      if (!before && point.rfind("after:", 0) != 0) {
        throw std::invalid_argument("SPATE_CRASH_AT_COMMIT='" + point + "': before:N or after:N");
      }
      const int nth = std::atoi(point.c_str() + point.find(':') + 1);
      built.emplace(flow::pipeline(kafka::source(in), splitter, counting,
                                   flow::make_stage<crashing_sink<decltype(to_message)>>(
                                       out, to_message, before, nth)
                                       .named("kafka(" + output + ")")
                                       .on_dedicated_thread()),
                    options);
    } else {
      built.emplace(flow::pipeline(kafka::source(in), splitter, counting,
                                   kafka::exactly_once_sink<update>(out, to_message)),
                    options);
    }
    flow::graph& g = *built;
    g.start(rt, [main_thread, &ended](const std::string&) {
      ended.store(true, std::memory_order_release);
      pthread_kill(main_thread, SIGUSR1);  // blocked there: pending until sigwait() takes it
    });
    std::printf("restored_from %llu\n",
                static_cast<unsigned long long>(g.checkpoints().restored_from));
    std::fflush(stdout);

    try {
      // A cancel does not commit the open transaction: a restart redoes it.
      run_until_stopped(signals, ended, [&g] { g.cancel(); });
    } catch (...) {
      g.wait();  // rethrows a node's failure, which says more
      throw;
    }
    g.wait();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exactly_once_job: %s\n", e.what());
    return 1;
  }
  return 0;
}
