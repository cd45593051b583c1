#pragma once
// One place to read a running program's numbers: every model (flow graphs, actors,
// reactors, the worker pool) and the user's own counters register a collector here, and a
// snapshot asks each of them for its current values. Snapshots are exported as JSON or as
// Prometheus' text format (observe/exposition.hpp) and served over HTTP
// (observe/metrics_server.hpp).
//
// Collectors are pulled, never pushed: the hot paths keep the counters they already keep
// (relaxed atomics), and the cost of metrics is paid by whoever takes a snapshot.
//
//   spate::observe::metrics_registry registry;
//   auto watching = spate::observe::watch(registry, job, "wordcount");   // observe/watch.hpp
//   std::cout << registry.snapshot().to_prometheus();
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spate/observe/latency_histogram.hpp"

namespace spate::observe {

/// Prometheus' metric types: a counter only grows, a gauge goes up and down.
enum class metric_type { counter, gauge, histogram };

/// One label of a sample, as `node="splitter#0"`.
struct label {
  std::string name;   ///< a Prometheus label name
  std::string value;  ///< any text (escaped when exported)
  /// Same name and value.
  friend bool operator==(const label&, const label&) = default;
};
/// The labels of one sample, in the order they are exported.
using label_set = std::vector<label>;

/// A histogram sample's buckets, count and sum.
struct histogram_value {
  std::vector<std::pair<double, std::uint64_t>> buckets;  ///< (upper bound s, cumulative count)
  std::uint64_t count = 0;                                ///< samples recorded (the +Inf bucket)
  double sum = 0;                                         ///< their sum, in seconds
};

/// One labelled value of a metric.
struct sample {
  label_set labels;                          ///< which subject it describes
  double value = 0;                          ///< counters and gauges
  std::optional<histogram_value> histogram;  ///< histograms
};

/// One metric name with every labelled sample of it.
struct metric_family {
  std::string name;                       ///< Prometheus style: spate_node_items_in_total
  std::string help;                       ///< one line saying what it counts
  metric_type type = metric_type::gauge;  ///< counter, gauge or histogram
  std::vector<sample> samples;            ///< one per labelled subject
};

/// Every metric's value at one moment (metrics_registry::snapshot()).
class metrics_snapshot {
 public:
  std::vector<metric_family> families;  ///< in the order the collectors wrote them

  /// The family of that name, or null.
  const metric_family* find(const std::string& name) const;
  /// The value of the sample of `name` whose labels include all of `labels`; nullopt when
  /// there is none. For tests and tools.
  std::optional<double> value(const std::string& name, const label_set& labels = {}) const;
  /// Prometheus text exposition format 0.0.4.
  std::string to_prometheus() const;
  /// {"metrics":[{"name":..,"type":..,"help":..,"samples":[{"labels":{..},"value":..}]}]}
  std::string to_json() const;
};

/// What a collector writes its samples into. Samples of one name may come from several
/// collectors (two graphs): they are merged into one family.
class metric_writer {
 public:
  /// A value that only grows (a total).
  void counter(const std::string& name, const std::string& help, label_set labels, double value);
  /// A value that goes up and down (a queue's length).
  void gauge(const std::string& name, const std::string& help, label_set labels, double value);
  /// A latency histogram's current buckets.
  void histogram(const std::string& name, const std::string& help, label_set labels,
                 const latency_histogram& h);

 private:
  friend class metrics_registry;
  metric_family& family(const std::string& name, const std::string& help, metric_type type);
  std::vector<metric_family> families_;
};

/// The registry's shared part (defined in its source file).
struct registry_state;

/// Where a program's metrics are collected from.
/// Threading: add(), snapshot() and a registration's destruction may run on any threads at
/// once. A collector runs on the thread that takes the snapshot, one snapshot at a time, and
/// reads only what is safe to read while its subject runs (atomics).
class metrics_registry {
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
  /// Asks every collector for its values now.
  metrics_snapshot snapshot() const;

 private:
  std::shared_ptr<registry_state> state_;
};

}  // namespace spate::observe
