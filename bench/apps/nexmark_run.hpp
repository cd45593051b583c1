#pragma once
// spate-bench nexmark (nexmark_bench.cpp, and a file per kind of query: nexmark_windows.cpp,
// nexmark_joins.cpp, nexmark_updates.cpp; what they share is here): a Nexmark query
// (examples/apps/nexmark) over `events` events, as source → farm of `replicas` → sink
// (topology=parallel: `replicas` sources, each chained to its query unless chaining=off, → sink;
// the queries with state: source → the query's emitter or projection → its `replicas` window,
// join or keyed workers → sink, and for q3 and q20 also topology=parallel: sources each chained
// to the query's first half → the join → sink), the sink folding every row into the digest the
// sequential run gives (a run whose rows differ fails). source=generator makes the events as it
// sends them (for the queries with state: before the clock starts, as their sequential run needs
// them too); source=file loads events_file (nexmark generate) before the clock starts and sends
// each event once, moved out of memory — what the Flink program (bench/flink/FlinkNexmark.java)
// does with the same file. query=generate times the generator alone, on one thread. Latency: source
// stamp to sink, every 16th row. steady_events_per_s: the source's rate between 25% and 75% of the
// events (bounded queues hold it to the graph's). rate=R (source=file): the events are sent at R
// a second instead, for the latency at a rate the graph sustains. sinks=per-replica (topology=
// parallel, the stateless queries): each replica folds its own rows, in a tally chained after
// its query, as the Flink program's sinks do; the tallies meet at the end.
#include <time.h>

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "../../examples/apps/common/replay_source.hpp"
#include "../../examples/apps/common/text_input.hpp"
#include "../../examples/apps/nexmark/generator.hpp"
#include "../../examples/apps/nexmark/queries.hpp"
#include "../runner/bench_registry.hpp"
#include "../runner/measure.hpp"
#include "../runner/spate_config.hpp"

namespace spate_bench::nexmark_run {

namespace flow = spate::flow;
namespace nx = apps::nexmark;

// The bench's sources note the time every mark_every events they send: the steady rate is
// taken between the marks at 25% and 75% of the run, leaving out its start and its end (the
// Flink program's source does the same).
inline constexpr std::uint64_t mark_every = 65'536;
struct mark {
  std::int64_t time_ns, cpu_ns;  // steady clock; the process's CPU time (all threads)
};
inline std::int64_t cpu_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return std::int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// Sends the loaded events once each, moved out (the memory is the run's), stamped as sent; at
// `rate` > 0 a second, paced (apps::send_pacer: what is due every millisecond).
class take_source : public flow::source<nx::event> {
 public:
  take_source(std::shared_ptr<std::vector<nx::event>> events, std::vector<mark>* marks, double rate)
      : events_(std::move(events)), marks_(marks), pacer_(rate) {}
  void on_start() { pacer_.start(*this); }
  bool has_news() const { return pacer_.has_news(); }
  flow::produce_status produce() {
    const std::size_t due = std::size_t(pacer_.due(events_->size()));
    for (int k = 0; k < 256 && next_ < due; ++k, ++next_) {
      nx::event& e = (*events_)[next_];
      e.stamp_ns = apps::steady_ns();  // per event, as the Flink program's source
      if (next_ % mark_every == 0) marks_->push_back(mark{e.stamp_ns, cpu_ns()});
      send_next(std::move(e));
    }
    if (next_ == events_->size()) {
      pacer_.stop();
      return flow::produce_status::ended;
    }
    return next_ < due ? flow::produce_status::more : flow::produce_status::wait;
  }

 private:
  std::shared_ptr<std::vector<nx::event>> events_;
  std::vector<mark>* marks_;
  apps::send_pacer pacer_;
  std::size_t next_ = 0;
};

// What the replicas of a parallel source send, counted together: a mark every mark_every
// events over all of them (any replica's thread; the marks are sorted by time at the end).
struct shared_progress {
  std::atomic<std::uint64_t> sent{0};
  std::mutex mutex;
  std::vector<mark> marks;
  void add(std::uint64_t n, std::int64_t now_ns) {
    const std::uint64_t before = sent.fetch_add(n, std::memory_order_relaxed);
    if (before / mark_every == (before + n) / mark_every && before != 0) return;
    const std::lock_guard lock(mutex);
    marks.push_back(mark{now_ns, cpu_ns()});
  }
};

// Replica r of R sends the r-th of R contiguous blocks of the loaded events (a parallel
// source; blocks, not every R-th event, so that two replicas never write to one cache
// line), moved out and stamped as sent, as take_source does; at `rate` > 0 a second, all
// replicas together, each paced at its share of it (as the Flink program's rate limiter
// spreads its rate over its readers).
class take_share_source : public flow::source<nx::event> {
 public:
  static constexpr bool parallel_source = true;  ///< each replica sends its own block
  take_share_source(std::shared_ptr<std::vector<nx::event>> events, shared_progress* progress,
                    double rate)
      : events_(std::move(events)), progress_(progress), rate_(rate) {}
  void on_start() {
    begin_ = next_ = events_->size() * replica_index() / replica_count();
    end_ = events_->size() * (replica_index() + 1) / replica_count();
    pacer_.emplace(rate_ / double(replica_count()));
    pacer_->start(*this);
  }
  bool has_news() const { return !pacer_ || pacer_->has_news(); }
  flow::produce_status produce() {
    const std::size_t due = begin_ + std::size_t(pacer_->due(end_ - begin_));
    std::uint64_t sent = 0;
    std::int64_t now = 0;
    for (int k = 0; k < 256 && next_ < due; ++k, ++next_) {
      nx::event& e = (*events_)[next_];
      e.stamp_ns = now = apps::steady_ns();
      send_next(std::move(e));
      ++sent;
    }
    if (sent != 0) progress_->add(sent, now);
    if (next_ == end_) {
      pacer_->stop();
      return flow::produce_status::ended;
    }
    return next_ < due ? flow::produce_status::more : flow::produce_status::wait;
  }

 private:
  std::shared_ptr<std::vector<nx::event>> events_;
  shared_progress* progress_;
  double rate_;
  std::optional<apps::send_pacer> pacer_;  // made in on_start, when the share is known
  std::size_t begin_ = 0, next_ = 0, end_ = 0;
};

// Makes events [0, count) as it sends them (nexmark::generator_source, with the marks).
class generating_source : public flow::source<nx::event> {
 public:
  generating_source(nx::generator g, std::uint64_t count, std::vector<mark>* marks)
      : generator_(std::move(g)), count_(count), marks_(marks) {}
  flow::produce_status produce() {
    for (int k = 0; k < 256 && next_ < count_; ++k, ++next_) {
      nx::event e = generator_.at(next_);
      e.stamp_ns = apps::steady_ns();
      if (next_ % mark_every == 0) marks_->push_back(mark{e.stamp_ns, cpu_ns()});
      send_next(std::move(e));
    }
    return next_ == count_ ? flow::produce_status::ended : flow::produce_status::more;
  }

 private:
  nx::generator generator_;
  std::uint64_t count_, next_ = 0;
  std::vector<mark>* marks_;
};

// The steady rate, and the events per CPU second (all threads) between the same marks.
void add_steady_rate(json& m, const std::vector<mark>& marks);

// The first `count` events of the events file at `path`, numbered (throws usage_error or
// std::runtime_error, naming the file, when it is missing, short or has malformed lines).
std::shared_ptr<std::vector<nx::event>> load(const std::string& path, std::uint64_t count);

// The options every query run takes, checked.
struct run_options {
  std::uint64_t count;
  std::size_t replicas;
  std::string source, topology, chaining;
  std::string sinks;  // one, or per-replica (topology=parallel, the stateless queries)
  nx::generator generator;
  std::shared_ptr<std::vector<nx::event>> loaded;  // source=file
  double rate;                                     // events per second; 0: as fast as taken
};
run_options checked_options(const bench_params& p);

// A query whose rows are an upsert changelog that may interleave differently from run to run
// (q4, q6: two farms keyed differently): its result is the final table, each key's last row.
template <class Row>
concept table_row = requires(const Row& r) {
  { r.table_key() } -> std::convertible_to<std::int64_t>;
};
// A query whose rows split each key's count differently from run to run (q12: processing-time
// windows): its result is each key's total.
template <class Row>
concept totalled_row = requires(const Row& r) {
  { r.total_key() } -> std::convertible_to<std::int64_t>;
  { r.total_count() } -> std::convertible_to<std::int64_t>;
};

// The rows a sink received, folded into the digest the Flink program computes: every row's, or
// for a table_row or totalled_row query its final table's or its totals' (after close()).
struct sink_tally {
  std::uint64_t rows = 0, digest = 0;
  std::vector<std::int64_t> latencies;  // every 16th row
  std::uint64_t updates = 0;            // the rows received
  template <class Row>
  void add(const Row& r) {
    count(r);
    if (updates % 16 == 0) latencies.push_back(apps::steady_ns() - r.stamp_ns);
  }
  // Folds a row in, without its latency.
  template <class Row>
  void count(const Row& r) {
    ++updates;
    if constexpr (table_row<Row>) {
      table_[r.table_key()] = r.digest();
    } else if constexpr (totalled_row<Row>) {
      totals_[r.total_key()] += r.total_count();
    } else {
      ++rows;
      digest += r.digest();
    }
  }
  // Adds what another tally received (a replica's, before close()). Not for table_row rows:
  // which of two tallies saw a key's last row is not known (throws std::logic_error).
  void merge(sink_tally&& other) {
    if (!other.table_.empty()) throw std::logic_error("sink_tally: tables do not merge");
    rows += other.rows;
    digest += other.digest;
    updates += other.updates;
    latencies.insert(latencies.end(), other.latencies.begin(), other.latencies.end());
    for (const auto& [key, total] : other.totals_) totals_[key] += total;
  }
  // After the last row: a table_row or totalled_row query's rows and digest.
  void close() {
    for (const auto& [key, row_digest] : table_) {
      ++rows;
      digest += row_digest;
    }
    for (const auto& [key, total] : totals_) {
      ++rows;
      digest += nx::fold(nx::fold(0, key), total);
    }
  }

 private:
  std::unordered_map<std::int64_t, std::uint64_t> table_;  // key → its last row's digest
  std::unordered_map<std::int64_t, std::int64_t> totals_;  // key → the sum of its counts
};
// What the sink saw, checked against the sequential run (throws std::runtime_error when it
// differs), and the run's metrics.
void finish(json& m, const bench_params& p, const run_options& o, sink_tally& got,
            std::uint64_t expected_rows, std::uint64_t expected_digest,
            const std::vector<mark>& marks);

// sinks=per-replica: each replica's rows folded into its own tally, chained after its query
// (as the Flink program's sink writers, one per reader, each chained to it), the tally sent
// once, at the end of the replica's stream, to the one sink that merges them. Latency is
// taken as the row reaches the replica's tally.
template <class Row>
class replica_tally : public flow::node<Row, sink_tally> {
 public:
  explicit replica_tally(std::size_t expected_samples) : expected_samples_(expected_samples) {}
  void on_start() { tally_.latencies.reserve(expected_samples_ / this->replica_count() + 16); }
  void consume(Row& r) { tally_.add(r); }
  void on_stop() { this->send_next(std::move(tally_)); }

 private:
  std::size_t expected_samples_;  // over all replicas
  sink_tally tally_;
};

// topology=parallel: `replicas` sources, each sending its share of the loaded events through
// its own `front` stages (chained to it unless chaining=off), all into `rest`.
template <class Rest, class... Front>
void run_parallel(json& m, spate::runtime& rt, const run_options& o, std::vector<mark>& marks,
                  Rest rest, Front... front) {
  shared_progress progress;
  progress.marks.reserve(std::size_t(o.count / mark_every + o.replicas + 1));
  // One flat pipeline: chaining joins neighbours of one pipeline, not a nested one.
  auto worker =
      flow::pipeline(flow::make_stage<take_share_source>(o.loaded, &progress, o.rate), front...);
  if (o.chaining == "on") {
    flow::graph job(flow::pipeline(flow::farm(worker, o.replicas), rest));
    timed_run(m, [&] { job.run(rt); });
  } else {
    flow::graph job(flow::pipeline(flow::farm(flow::unchained(worker), o.replicas), rest));
    timed_run(m, [&] { job.run(rt); });
  }
  std::sort(progress.marks.begin(), progress.marks.end(),
            [](const mark& a, const mark& b) { return a.time_ns < b.time_ns; });
  marks = std::move(progress.marks);
}

// What a query with state has for --topology=parallel: none (one source: its pattern's emitter
// is the graph's one place where time advances), or its two halves.
struct single_source_only {};
template <class Sides, class Join>
struct split_query {
  Sides sides;  // sides(): a stage with no state, one per source replica
  Join join;    // join(workers): the rest
};

// The queries with state (q3, q4, q5, q6, q7, q8, q9, q11, q12, q15–q20): source → the query's
// stage, made by make_query(replicas) (its own emitter or projection, `replicas` window, join or
// keyed workers, its rows) → sink, checked against sequential(events). topology=parallel, for the
// regular joins (q3, q20, whose results take the events in any order): `replicas` sources,
// each chained to the query's sides, → the join → sink.
template <class Row, class MakeQuery, class Sequential, class Split = single_source_only>
json run_stateful(const bench_params& p, MakeQuery make_query, Sequential sequential,
                  Split split = {}) {
  constexpr bool splits = !std::is_same_v<Split, single_source_only>;
  if (!splits && p.text("topology") != "single")
    throw usage_error("nexmark: " + p.text("query") + " runs --topology=single");
  run_options o = checked_options(p);
  if (o.sinks != "one")
    throw usage_error("nexmark: " + p.text("query") +
                      " runs --sinks=one (its rows meet in one sink)");
  std::vector<nx::event> events;
  if (!o.loaded) {
    events.reserve(std::size_t(o.count));
    for (std::uint64_t n = 0; n < o.count; ++n) events.push_back(o.generator.at(n));
  }
  sink_tally expected;
  for (const Row& row : sequential(o.loaded ? *o.loaded : events)) expected.count(row);
  expected.close();
  const std::uint64_t expected_rows = expected.rows, expected_digest = expected.digest;

  spate::runtime rt(spate_runtime_config(p));
  sink_tally got;
  std::vector<mark> marks;
  // The rows the sink will receive: the one-thread loop's for most queries; for q4, q6 and q12
  // (table_row, totalled_row) a number that varies, and may exceed it (the vector then grows).
  got.latencies.reserve(std::size_t(expected.updates / 16 + 16));
  marks.reserve(std::size_t(o.count / mark_every + 1));
  auto sink = flow::sink([&](Row& r) { got.add(r); });
  json m;
  if (o.topology == "parallel") {
    if constexpr (splits)
      run_parallel(m, rt, o, marks, flow::pipeline(split.join(o.replicas), sink), split.sides());
  } else {
    // source=generator: the events the sequential run needed, made before the clock starts
    // (as source=file's), so that one source type serves every run of a query with state.
    auto taken = o.loaded ? o.loaded : std::make_shared<std::vector<nx::event>>(std::move(events));
    flow::graph job(flow::pipeline(flow::make_stage<take_source>(taken, &marks, o.rate),
                                   make_query(o.replicas), sink));
    timed_run(m, [&] { job.run(rt); });
  }
  got.close();
  // What a table_row or totalled_row query's sink received (this run's interleaving or windows).
  if constexpr (table_row<Row> || totalled_row<Row>) m["updates"] = got.updates;
  finish(m, p, o, got, expected_rows, expected_digest, marks);
  return m;
}

// The queries with state, each file's: the run of query p.text("query"), or nullopt when the
// file has no such query.
std::optional<json> run_window_query(const bench_params& p);  // q5, q7, q8, q11, q12
std::optional<json> run_join_query(const bench_params& p);    // q3, q20
std::optional<json> run_update_query(const bench_params& p);  // q4, q6, q9, q15–q19

}  // namespace spate_bench::nexmark_run
