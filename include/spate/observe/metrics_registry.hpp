#pragma once
// One place to read a running program's numbers: every model (flow graphs, actors,
// reactors, the worker pool, window patterns, io sources) registers a collector here, the
// user registers counters, gauges and histograms of their own, and a snapshot asks each of
// them for its current values. Snapshots are written as JSON or as Prometheus' text format
// (metrics_snapshot) and served over HTTP (observe/metrics_server.hpp).
//
// Collectors are pulled, never pushed: the hot paths keep the counters they already keep
// (relaxed atomics), and the cost of metrics is paid by whoever takes a snapshot. A user
// metric is one atomic that its handle updates lock-free from any thread.
//
//   spate::observe::metrics_registry registry;
//   auto watching = spate::observe::watch(registry, job, "wordcount");   // observe/watch.hpp
//   auto rejected = registry.add_counter("rejected_total", "Orders refused", {{"desk", "fx"}});
//   rejected.inc();                                                      // from any thread
//   std::cout << registry.snapshot().to_prometheus();
//
// Names are checked: a metric name is [a-zA-Z_:][a-zA-Z0-9_:]*, a label name
// [a-zA-Z_][a-zA-Z0-9_]* not starting with "__"; anything else is std::invalid_argument
// naming it, when it is registered or written. HELP text and label values may hold any text:
// the writers escape it.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spate/observe/latency_histogram.hpp"
#include "spate/platform/export.hpp"

namespace spate::observe {

/// Prometheus' metric types: a counter only grows, a gauge goes up and down, a histogram
/// counts observations in buckets.
enum class metric_type { counter, gauge, histogram };

/// True when `name` is a valid Prometheus metric name: [a-zA-Z_:][a-zA-Z0-9_:]*.
SPATE_API bool valid_metric_name(std::string_view name) noexcept;
/// True when `name` is a valid label name: [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__"
/// (reserved for Prometheus' own labels).
SPATE_API bool valid_label_name(std::string_view name) noexcept;

/// One label of a sample, as `node="splitter#0"`.
struct SPATE_API label {
  std::string name;   ///< a Prometheus label name
  std::string value;  ///< any text (escaped when exported)
  /// Same name and value.
  friend bool operator==(const label&, const label&) = default;
};
/// The labels of one sample, in the order they are exported.
using label_set = std::vector<label>;

/// A histogram sample's buckets, count and sum.
struct histogram_value {
  std::vector<std::pair<double, std::uint64_t>> buckets;  ///< (upper bound, cumulative count)
  std::uint64_t count = 0;                                ///< samples recorded (the +Inf bucket)
  double sum = 0;  ///< their sum (seconds for a latency_histogram)
};

/// One labelled value of a metric.
struct SPATE_API sample {
  label_set labels;                          ///< which subject it describes
  double value = 0;                          ///< counters and gauges
  std::optional<histogram_value> histogram;  ///< histograms
};

/// One metric name with every labelled sample of it.
struct SPATE_API metric_family {
  std::string name;                       ///< Prometheus style: spate_node_items_in_total
  std::string help;                       ///< one line saying what it counts
  metric_type type = metric_type::gauge;  ///< counter, gauge or histogram
  std::vector<sample> samples;            ///< one per labelled subject
};

/// Every metric's value at one moment (metrics_registry::snapshot()). Both writers throw
/// std::invalid_argument naming an invalid metric or label name (the families are public, so
/// they are checked again here) and escape HELP text and label values.
class SPATE_API metrics_snapshot {
 public:
  std::vector<metric_family> families;  ///< in the order the collectors wrote them

  /// The family of that name, or null.
  const metric_family* find(const std::string& name) const;
  /// The value of the sample of `name` whose labels include all of `labels`; nullopt when
  /// there is none. For tests and tools.
  std::optional<double> value(const std::string& name, const label_set& labels = {}) const;
  /// Prometheus text exposition format 0.0.4: HELP text escapes backslash and line feed,
  /// label values backslash, double quote and line feed; bytes that are not UTF-8 become
  /// U+FFFD.
  std::string to_prometheus() const;
  /// {"metrics":[{"name":..,"type":..,"help":..,"samples":[{"labels":{..},"value":..}]}]};
  /// a histogram's sample adds "sum" and "buckets":[[upper bound, cumulative count],..].
  /// Strings escape double quote, backslash and control characters; bytes that are not UTF-8
  /// become U+FFFD; infinities and NaN are strings ("+Inf").
  std::string to_json() const;
};

/// What a collector writes its samples into. Samples of one name may come from several
/// collectors (two graphs): they are merged into one family. Each call throws
/// std::invalid_argument naming an invalid metric or label name, a label given twice, or a
/// name written with two types.
class SPATE_API metric_writer {
 public:
  /// A value that only grows (a total).
  void counter(const std::string& name, const std::string& help, label_set labels, double value);
  /// A value that goes up and down (a queue's length).
  void gauge(const std::string& name, const std::string& help, label_set labels, double value);
  /// A latency histogram's current buckets.
  void histogram(const std::string& name, const std::string& help, label_set labels,
                 const latency_histogram& h);
  /// A histogram's buckets as they are (cumulative counts, increasing bounds, no +Inf).
  void histogram(const std::string& name, const std::string& help, label_set labels,
                 histogram_value value);

 private:
  friend class metrics_registry;
  metric_family& family(const std::string& name, const std::string& help, metric_type type);
  std::vector<metric_family> families_;
};

/// The registry's shared part (defined in its source file).
struct registry_state;

namespace detail {
/// A user counter's or gauge's value, shared by the registry and the handles; on a cache
/// line of its own, so that two busy metrics do not slow each other down.
struct alignas(64) value_cell {
  std::atomic<double> value{0};  ///< the current value
};
/// A user histogram's buckets, shared by the registry and the handles.
struct histogram_cell {
  /// Buckets for these finite, increasing upper bounds (and +Inf).
  explicit histogram_cell(std::vector<double> upper_bounds)
      : bounds(std::move(upper_bounds)),
        counts(std::make_unique<std::atomic<std::uint64_t>[]>(bounds.size() + 1)) {}
  std::vector<double> bounds;  ///< upper bounds, increasing; the +Inf bucket is implicit
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts;  ///< per bucket, not cumulative
  std::atomic<double> sum{0};                            ///< of every observation
};
}  // namespace detail

/// A counter of the user's (metrics_registry::add_counter): a total that only grows.
/// Copies share one value. Threading: inc() from any thread, lock-free (one atomic add).
class SPATE_API counter {
 public:
  /// A counter of its own, in no registry (until assigned one from add_counter).
  counter() : cell_(std::make_shared<detail::value_cell>()) {}
  /// Adds `by`; throws std::invalid_argument when it is negative or NaN (a counter only
  /// grows: use a gauge).
  void inc(double by = 1) {
    if (!(by >= 0)) throw_negative(by);
    cell_->value.fetch_add(by, std::memory_order_relaxed);
  }
  /// The total so far.
  double value() const noexcept { return cell_->value.load(std::memory_order_relaxed); }

 private:
  friend class metrics_registry;
  explicit counter(std::shared_ptr<detail::value_cell> cell) : cell_(std::move(cell)) {}
  [[noreturn]] static void throw_negative(double by);
  std::shared_ptr<detail::value_cell> cell_;
};

/// A gauge of the user's (metrics_registry::add_gauge): a value that goes up and down.
/// Copies share one value. Threading: any thread, lock-free.
class SPATE_API gauge {
 public:
  /// A gauge of its own, in no registry (until assigned one from add_gauge).
  gauge() : cell_(std::make_shared<detail::value_cell>()) {}
  /// Sets the value.
  void set(double v) noexcept { cell_->value.store(v, std::memory_order_relaxed); }
  /// Adds `by` (one atomic add, so concurrent changes are all kept).
  void inc(double by = 1) noexcept { cell_->value.fetch_add(by, std::memory_order_relaxed); }
  /// Subtracts `by`.
  void dec(double by = 1) noexcept { cell_->value.fetch_sub(by, std::memory_order_relaxed); }
  /// The current value.
  double value() const noexcept { return cell_->value.load(std::memory_order_relaxed); }

 private:
  friend class metrics_registry;
  explicit gauge(std::shared_ptr<detail::value_cell> cell) : cell_(std::move(cell)) {}
  std::shared_ptr<detail::value_cell> cell_;
};

/// A histogram of the user's (metrics_registry::add_histogram): observations counted in
/// buckets of chosen upper bounds, exported as a Prometheus histogram (_bucket{le=..}, _sum,
/// _count). Copies share the buckets. Threading: observe() from any thread, lock-free (a
/// binary search and two atomic adds). For latencies measured in a hot path,
/// latency_histogram (fixed doubling buckets) with watch() is cheaper still.
class SPATE_API histogram {
 public:
  /// A histogram of its own with the default bounds, in no registry.
  histogram();
  /// Counts `v` in the first bucket whose upper bound is >= v (NaN: the +Inf bucket).
  void observe(double v) noexcept {
    const auto& b = cell_->bounds;
    std::size_t lo = 0, hi = b.size();  // the first bound >= v; NaN compares false: +Inf
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (v <= b[mid]) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    cell_->counts[lo].fetch_add(1, std::memory_order_relaxed);
    cell_->sum.fetch_add(v, std::memory_order_relaxed);
  }
  /// Counts a duration, in seconds.
  template <class Rep, class Period>
  void observe(std::chrono::duration<Rep, Period> d) noexcept {
    observe(std::chrono::duration<double>(d).count());
  }
  /// Observations so far.
  std::uint64_t count() const noexcept;
  /// Their sum.
  double sum() const noexcept { return cell_->sum.load(std::memory_order_relaxed); }

 private:
  friend class metrics_registry;
  explicit histogram(std::shared_ptr<detail::histogram_cell> cell) : cell_(std::move(cell)) {}
  std::shared_ptr<detail::histogram_cell> cell_;
};

/// Where a program's metrics are collected from.
/// Threading: add(), snapshot() and a registration's destruction may run on any threads at
/// once. A collector runs on the thread that takes the snapshot, one snapshot at a time, and
/// reads only what is safe to read while its subject runs (atomics).
class SPATE_API metrics_registry {
 public:
  /// Writes the current values of one subject (called on the snapshot's thread).
  using collector = std::function<void(metric_writer&)>;

  /// Removes its collector when destroyed (or reset): the subject it reads may be destroyed
  /// after that. Destroying it waits for a snapshot that is running the collector.
  class registration {
   public:
    /// Registers nothing.
    registration() = default;
    /// Takes the other's collector over.
    registration(registration&& other) noexcept { *this = std::move(other); }
    /// Removes this one's collector, then takes the other's over.
    registration& operator=(registration&& other) noexcept;
    /// Removes the collector.
    ~registration() { reset(); }
    /// Removes the collector now (waiting for a snapshot running it); idempotent. Not from
    /// inside a collector.
    void reset();

   private:
    friend class metrics_registry;
    registration(std::shared_ptr<registry_state> state, std::uint64_t id)
        : state_(std::move(state)), id_(id) {}
    std::shared_ptr<registry_state> state_;
    std::uint64_t id_ = 0;
  };

  /// An empty registry.
  metrics_registry();
  /// Adds a collector; it is asked at every snapshot until the registration goes.
  [[nodiscard]] registration add(collector collect);

  /// A counter of the user's under `name` with these labels, exported at every snapshot
  /// while the registry lives. Asking again for the same name and labels returns the same
  /// counter. Throws std::invalid_argument naming the problem: an invalid metric or label
  /// name, a label given twice, or a name already registered with another type, help text
  /// or set of label names.
  counter add_counter(const std::string& name, const std::string& help, label_set labels = {});
  /// A gauge of the user's (as add_counter).
  gauge add_gauge(const std::string& name, const std::string& help, label_set labels = {});
  /// A histogram of the user's with buckets up to these upper bounds (finite, increasing;
  /// +Inf is added) (as add_counter; the label "le" is the buckets' own, so it is refused).
  histogram add_histogram(const std::string& name, const std::string& help, label_set labels = {},
                          std::vector<double> upper_bounds = default_histogram_bounds());
  /// Prometheus' default buckets, for durations in seconds: 0.005, 0.01, 0.025, 0.05, 0.1,
  /// 0.25, 0.5, 1, 2.5, 5, 10.
  static std::vector<double> default_histogram_bounds();

  /// Asks every collector for its values now, then reads the user's metrics. Throws
  /// std::invalid_argument when a collector writes an invalid name (metric_writer).
  metrics_snapshot snapshot() const;

 private:
  std::shared_ptr<registry_state> state_;
};

}  // namespace spate::observe
