// restore: the time from a restart to the first new output, against the size of the state
// restored (issue 25, "Measured"). A by_key farm of two counters builds `keys` keys of
// keyed state; once a checkpoint holds all of them the graph is cancelled, and the same
// graph is started again on the checkpoint directory. Reported: the checkpoint's bytes, the
// time start() takes (reading, checking and decoding every part: the restore), and the time
// from start() to the sink's first item (the restore, the tasks starting, and one item
// through the graph).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/flow.hpp"
#include "spate/state/keyed.hpp"
#ifdef SPATE_BENCH_HAVE_ROCKSDB
#include "spate/state/rocksdb_backend.hpp"
#endif

namespace spate_bench {
namespace {

namespace flow = spate::flow;

// Sends 0 .. keys-1, then one probe item (keys) once told to go on, then ends. Its position
// is the items it sent, so a restore after the keys sends the probe at once.
struct key_source : flow::source<std::uint64_t> {
  struct control {
    std::atomic<bool> keys_sent{false};
    std::atomic<bool> go_on{false};
  };
  std::shared_ptr<control> ctl;
  std::uint64_t keys = 0, sent = 0;
  key_source(std::shared_ptr<control> c, std::uint64_t k) : ctl(std::move(c)), keys(k) {}
  bool has_news() const { return ctl->go_on.load(std::memory_order_acquire); }
  flow::produce_status produce() {
    for (int k = 0; k < 256 && sent < keys; ++k) send_next(std::uint64_t(sent++));
    if (sent < keys) return flow::produce_status::more;
    ctl->keys_sent.store(true, std::memory_order_release);
    if (sent == keys) {
      if (!ctl->go_on.load(std::memory_order_acquire)) return flow::produce_status::wait;
      send_next(std::uint64_t(sent++));
    }
    return flow::produce_status::ended;
  }
  std::uint64_t checkpoint_position() const { return sent; }
  void seek(std::uint64_t position) { sent = position; }
};

struct count_key : flow::node<std::uint64_t, std::uint64_t> {
  spate::state::value<std::uint64_t> seen{"seen"};
  auto state_fields() { return std::tie(seen); }
  void consume(std::uint64_t& key) {
    ++seen.get_or_init(0u);
    send_next(std::uint64_t(key));
  }
};

json restore(const bench_params& p) {
  const auto keys = static_cast<std::uint64_t>(p.integer("keys"));
  const auto replicas = static_cast<std::size_t>(p.integer("replicas"));
  const auto dir = std::filesystem::absolute(p.text("checkpoint_dir")) /
                   ("restore-" + std::to_string(::getpid()) + "-" + std::to_string(now_ns()));
  spate::runtime rt(spate_runtime_config(p));
  using clock = std::chrono::steady_clock;
  // state_backend=rocksdb: both runs keep the keyed state in RocksDB tables under state_dir.
  std::shared_ptr<spate::state::keyed_state_backend> backend;
  const auto tables = dir / "tables";
  if (p.text("state_backend") == "rocksdb") {
#ifdef SPATE_BENCH_HAVE_ROCKSDB
    backend = spate::state::rocksdb_backend({.directory = tables});
#else
    throw usage_error("restore: built without RocksDB (librocksdb-dev)");
#endif
  } else if (p.text("state_backend") != "memory") {
    throw usage_error("restore: --state_backend must be memory or rocksdb");
  }
  auto job = [&](std::shared_ptr<key_source::control> ctl, flow::checkpoint_options c,
                 std::function<void(std::uint64_t)> on_item) {
    return flow::graph(
        flow::pipeline(flow::make_stage<key_source>(ctl, keys),
                       flow::farm(count_key{}, replicas,
                                  flow::by_key{[](const std::uint64_t& k) { return k; }}),
                       flow::sink([on_item](std::uint64_t& k) { on_item(k); })),
        flow::graph_options{.checkpoints = std::move(c), .keyed_state_backend = backend});
  };

  // 1. Build the state; wait for a checkpoint triggered after the last key was sent: the
  //    second one to complete after keys_sent (the first may have started before).
  auto ctl = std::make_shared<key_source::control>();
  std::mutex m;
  std::condition_variable cv;
  int completions_after_keys = 0;
  std::uint64_t bytes = 0;
  auto first = job(ctl,
                   {.directory = dir / "checkpoints",
                    .interval = std::chrono::milliseconds(20),
                    .on_complete =
                        [&](std::uint64_t) {
                          const std::lock_guard lock(m);
                          if (ctl->keys_sent.load()) ++completions_after_keys;
                          cv.notify_all();
                        }},
                   [](std::uint64_t) {});
  first.start(rt);
  {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return completions_after_keys >= 2; });
  }
  bytes = first.checkpoints().last_bytes;
  first.cancel();
  first.wait();

  // 2. Restart and time it.
  auto ctl2 = std::make_shared<key_source::control>();
  ctl2->go_on = true;
  std::promise<clock::time_point> first_output;
  std::atomic<bool> seen{false};
  auto second = job(ctl2, {.directory = dir / "checkpoints"}, [&](std::uint64_t) {
    if (!seen.exchange(true)) first_output.set_value(clock::now());
  });
  const auto t0 = clock::now();
  second.start(rt);
  const auto started = clock::now();
  const auto out_at = first_output.get_future().get();
  second.wait();
  std::filesystem::remove_all(dir);
  if (second.checkpoints().restored_from == 0)
    throw std::runtime_error("restore: nothing restored");

  json r;
  r["keys"] = keys;
  r["checkpoint_bytes"] = bytes;
  r["restore_ms"] = std::chrono::duration<double, std::milli>(started - t0).count();
  r["first_output_ms"] = std::chrono::duration<double, std::milli>(out_at - t0).count();
  return r;
}

}  // namespace

void register_restore_impls(bench_registry& r) {
  r.define("restore",
           "a by_key farm's keyed state of `keys` keys checkpointed, then the graph restarted "
           "from it: the checkpoint's bytes, start() (the restore) and start() to the first "
           "output, in ms; state_backend=rocksdb: the keyed state in RocksDB",
           {{"keys", "100000"},
            {"replicas", "2"},
            {"checkpoint_dir", "bench-checkpoints"},
            {"state_backend", "memory"}});
  r.implement("restore", "spate", restore);
}

}  // namespace spate_bench
