// Two-phase commit at checkpoints (flow/checkpoints.hpp T1..T5), with a sink that commits
// to an outside "ledger" standing in for a transactional store such as Kafka: what it
// commits is the job's visible output. Whatever the stops, the ledger ends with every key's
// running counts 1, 2, ..., n exactly once and in order; and a restart resumes from the
// checkpoint the ledger saw committed last, not the newest on disk.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint_test_support.hpp"
#include "flow_test_support.hpp"

using namespace checkpoint_test;

namespace {

// The outside store: committed output, the checkpoint of the last commit, and what happened.
struct ledger {
  std::mutex mutex;
  std::vector<count_update> committed;
  std::optional<std::uint64_t> last_id;
  std::vector<std::string> events;  // "prepare 3", "commit 3", "abort 4", "end 5"
  // Commits of checkpoints after this one vanish (the process died before they reached the
  // store); 0: none do.
  std::uint64_t lose_commits_after = 0;
  bool fail_commits = false;
  void record(std::string e) {
    const std::lock_guard lock(mutex);
    events.push_back(std::move(e));
  }
};

// Writes into an open "transaction"; at a barrier the transaction is prepared, and
// committed to the ledger when the coordinator says so. `pending` is touched by this
// node's thread (prepare, the commit at the end) and the coordinator's (commit) in turn,
// never at once: T1..T4 order them, and ThreadSanitizer checks that here. Runs on a
// dedicated thread: at the end it waits for the outcome of what it prepared (T4).
struct committing_sink : flow::node<count_update, void> {
  struct outcome {
    std::mutex mutex;
    std::condition_variable came;
    bool waiting = false;
    bool interrupted = false;
  };
  std::shared_ptr<ledger> store;
  std::vector<count_update> open;
  std::vector<count_update> pending;
  std::unique_ptr<outcome> awaited = std::make_unique<outcome>();
  explicit committing_sink(std::shared_ptr<ledger> l) : store(std::move(l)) {}
  committing_sink(const committing_sink& other) : committing_sink(other.store) {}
  committing_sink(committing_sink&&) = default;

  void consume(count_update& u) { open.push_back(u); }
  void prepare_commit(std::uint64_t id) {
    pending.insert(pending.end(), open.begin(), open.end());
    open.clear();
    const std::lock_guard lock(awaited->mutex);
    awaited->waiting = true;
    store->record("prepare " + std::to_string(id));
  }
  void resolved() {
    {
      const std::lock_guard lock(awaited->mutex);
      awaited->waiting = false;
    }
    awaited->came.notify_all();
  }
  bool commit(const flow::checkpoint_commit& done) {
    if (done.at_end) {
      std::unique_lock lock(awaited->mutex);
      awaited->came.wait(lock, [&] { return !awaited->waiting || awaited->interrupted; });
      if (awaited->interrupted) return false;
      lock.unlock();
      pending.insert(pending.end(), open.begin(), open.end());
      open.clear();
    }
    commit_pending(done);
    resolved();
    return true;
  }
  void commit_pending(const flow::checkpoint_commit& done) {
    if (store->fail_commits) throw std::runtime_error("the ledger refuses the commit");
    store->record((done.at_end ? "end " : "commit ") + std::to_string(done.id));
    EXPECT_FALSE(done.positions.empty()) << "the source's position travels with the commit";
    const std::lock_guard lock(store->mutex);
    if (store->lose_commits_after != 0 && done.id > store->lose_commits_after) return;
    store->committed.insert(store->committed.end(), pending.begin(), pending.end());
    pending.clear();
    // T4's id is a label (the last checkpoint complete when the input ended): never older
    // than what was committed before.
    if (!done.at_end || !store->last_id || *store->last_id < done.id) store->last_id = done.id;
  }
  // graph::cancel() (a failed commit fails the graph): no outcome is coming.
  void interrupt() noexcept {
    {
      const std::lock_guard lock(awaited->mutex);
      awaited->interrupted = true;
    }
    awaited->came.notify_all();
  }
  void abort_commit(std::uint64_t id) {
    store->record("abort " + std::to_string(id));
    resolved();
  }
  std::optional<std::uint64_t> last_committed(const flow::checkpoint_commit&) const {
    const std::lock_guard lock(store->mutex);
    return store->last_id;
  }
};

flow::graph committing_job(std::size_t n, std::shared_ptr<ledger> store,
                           flow::checkpoint_options checkpoints) {
  return flow::graph(
      flow::pipeline(flow::generate<int>(n, [](std::size_t i) { return key_of(i); }),
                     flow::farm(counter{}, 2, flow::by_key{[](const int& k) { return k; }}),
                     flow::make_stage<committing_sink>(std::move(store))
                         .named("ledger")
                         .on_dedicated_thread()),
      flow::graph_options{.links = {.capacity = 64}, .checkpoints = std::move(checkpoints)});
}

// Every key's committed counts are 1..n in order, each once, and every key is there.
void expect_exactly_once(const ledger& store, std::size_t n) {
  counts expected_total;
  for (std::size_t i = 0; i < n; ++i) ++expected_total[key_of(i)];
  counts last;
  for (const auto& [key, count] : store.committed) {
    ASSERT_EQ(count, last[key] + 1) << "key " << key << ": a repeat or a gap";
    last[key] = count;
  }
  EXPECT_EQ(last, expected_total);
}

// Runs until `count` checkpoints completed, then cancels (a crash as far as checkpoints can
// tell); returns the last one's id.
std::uint64_t run_until_checkpoints(spate::runtime& rt, const fs::path& dir, std::size_t n,
                                    std::shared_ptr<ledger> store, int count) {
  std::promise<std::uint64_t> reached;
  std::atomic<int> completions{0};
  // Every checkpoint kept: the test stands for a crash right after checkpoint `count`, but
  // the run goes on for a moment, and its later checkpoints must not retire the one the
  // ledger committed last.
  auto g = committing_job(n, std::move(store),
                          {.directory = dir,
                           .interval = std::chrono::milliseconds(5),
                           .retain = 1000,
                           .on_complete = [&](std::uint64_t id) {
                             if (++completions == count) reached.set_value(id);
                           }});
  auto reached_id = reached.get_future();
  g.start(rt);
  if (reached_id.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    g.cancel();
    g.wait();
    ADD_FAILURE() << "the run ended or stalled before " << count << " checkpoints";
    return 0;
  }
  const std::uint64_t id = reached_id.get();
  g.cancel();
  g.wait();
  return id;
}

}  // namespace

// Run to the end: each checkpoint prepared, then committed, in order; the rest committed
// at the end of the input; the ledger holds everything once.
TEST(two_phase_commit, every_update_is_committed_once_in_checkpoint_order_and_at_the_end) {
  temp_dir dir;
  spate::runtime rt(runtime_with(workers(2)));
  auto store = std::make_shared<ledger>();
  const std::size_t n = 300'000;
  auto g =
      committing_job(n, store, {.directory = dir.path, .interval = std::chrono::milliseconds(5)});
  g.run(rt);
  expect_exactly_once(*store, n);
  ASSERT_FALSE(store->events.empty());
  EXPECT_EQ(store->events.back().rfind("end ", 0), 0u) << store->events.back();
  // prepare n, then commit n or abort n, before prepare n+1.
  std::uint64_t open = 0;
  for (const auto& e : store->events) {
    const auto space = e.find(' ');
    const std::string what = e.substr(0, space);
    const std::uint64_t id = std::stoull(e.substr(space + 1));
    if (what == "prepare") {
      EXPECT_EQ(open, 0u) << "prepare " << id << " while " << open << " waits";
      open = id;
    } else if (what == "commit" || what == "abort") {
      EXPECT_EQ(id, open) << e;
      open = 0;
    }
  }
  EXPECT_GE(g.checkpoints().completed, 1u);
}

// The commits after checkpoint k are lost (the process died between writing checkpoint k+1
// and committing it): the restart restores k, not the newer k+1 on disk, and the ledger
// still ends with every update once. Three rounds, the loss after the 1st, 2nd, 3rd.
TEST(two_phase_commit, a_restart_resumes_from_the_checkpoint_committed_last_not_the_newest) {
  spate::runtime rt(runtime_with(workers(2)));
  const std::size_t n = 400'000;
  for (std::uint64_t kept = 1; kept <= 3; ++kept) {
    temp_dir dir;
    auto store = std::make_shared<ledger>();
    store->lose_commits_after = kept;
    const std::uint64_t newest = run_until_checkpoints(rt, dir.path, n, store, int(kept) + 1);
    ASSERT_EQ(store->last_id, std::optional<std::uint64_t>(kept));
    ASSERT_GT(newest, kept);
    store->lose_commits_after = 0;
    auto second = committing_job(n, store, {.directory = dir.path});
    second.run(rt);
    EXPECT_EQ(second.checkpoints().restored_from, kept) << "round " << kept;
    expect_exactly_once(*store, n);
  }
}

// Nothing committed yet, though checkpoints are on disk: the restart starts afresh.
TEST(two_phase_commit, a_restart_with_nothing_committed_starts_afresh) {
  temp_dir dir;
  spate::runtime rt(runtime_with(workers(2)));
  const std::size_t n = 400'000;
  // The first run commits to a ledger of its own; the restart's ledger never saw a commit.
  run_until_checkpoints(rt, dir.path, n, std::make_shared<ledger>(), 2);
  auto store = std::make_shared<ledger>();
  auto second = committing_job(n, store, {.directory = dir.path});
  second.run(rt);
  EXPECT_EQ(second.checkpoints().restored_from, 0u);
  expect_exactly_once(*store, n);
}

// A commit that fails fails the graph, naming the sink.
TEST(two_phase_commit, a_commit_that_throws_fails_the_graph_naming_the_sink) {
  temp_dir dir;
  spate::runtime rt(runtime_with(workers(2)));
  auto store = std::make_shared<ledger>();
  store->fail_commits = true;
  auto g = committing_job(2'000'000, store,
                          {.directory = dir.path, .interval = std::chrono::milliseconds(5)});
  try {
    g.run(rt);
    FAIL() << "the graph ended without the failure";
  } catch (const flow::node_error& e) {
    EXPECT_EQ(e.node(), "ledger");
    EXPECT_NE(std::string(e.what()).find("the ledger refuses the commit"), std::string::npos)
        << e.what();
  }
}

// Two committing nodes would both claim which checkpoint the outside world saw: refused.
TEST(two_phase_commit, two_committing_nodes_are_refused) {
  // Passes items on and commits nothing, but takes part as a committing node.
  struct committing_relay : flow::node<count_update, count_update> {
    void consume(count_update& u) { send_next(u); }
    void prepare_commit(std::uint64_t) {}
    bool commit(const flow::checkpoint_commit&) { return true; }
    void abort_commit(std::uint64_t) {}
    std::optional<std::uint64_t> last_committed(const flow::checkpoint_commit&) const {
      return std::nullopt;
    }
  };
  temp_dir dir;
  spate::runtime rt(runtime_with(workers(1)));
  auto store = std::make_shared<ledger>();
  flow::graph g(
      flow::pipeline(flow::generate<int>(10, [](std::size_t i) { return key_of(i); }),
                     flow::farm(counter{}, 2, flow::by_key{[](const int& k) { return k; }}),
                     flow::as_stage(committing_relay{}).named("relay").on_dedicated_thread(),
                     flow::make_stage<committing_sink>(store).named("ledger")),
      flow::graph_options{.checkpoints = flow::checkpoint_options{.directory = dir.path}});
  expect_refused(g, rt, "'relay' and 'ledger' both commit output at checkpoints");
}

// A committing node on a pool worker could block it at the end of the input: refused.
TEST(two_phase_commit, a_committing_node_on_the_pool_is_refused) {
  temp_dir dir;
  spate::runtime rt(runtime_with(workers(1)));
  auto store = std::make_shared<ledger>();
  flow::graph g(
      flow::pipeline(flow::generate<int>(10, [](std::size_t i) { return key_of(i); }),
                     flow::farm(counter{}, 2, flow::by_key{[](const int& k) { return k; }}),
                     flow::make_stage<committing_sink>(store).named("ledger")),
      flow::graph_options{.checkpoints = flow::checkpoint_options{.directory = dir.path}});
  expect_refused(g, rt, "'ledger' commits output at checkpoints and may wait");
}
