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

enum class metric_type { counter, gauge, histogram };

struct label {
  std::string name;
  std::string value;
  friend bool operator==(const label&, const label&) = default;
};
using label_set = std::vector<label>;

struct histogram_value {
  std::vector<std::pair<double, std::uint64_t>> buckets;  // (upper bound s, cumulative count)
  std::uint64_t count = 0;
  double sum = 0;
};

struct sample {
  label_set labels;
  double value = 0;                          // counters and gauges
  std::optional<histogram_value> histogram;  // histograms
};

// One metric name with every labelled sample of it.
struct metric_family {
  std::string name;  // Prometheus style: spate_node_items_in_total
  std::string help;
  metric_type type = metric_type::gauge;
  std::vector<sample> samples;
};

class metrics_snapshot {
 public:
  std::vector<metric_family> families;

  const metric_family* find(const std::string& name) const;
  // The value of the sample of `name` whose labels include all of `labels`; nullopt when
  // there is none. For tests and tools.
  std::optional<double> value(const std::string& name, const label_set& labels = {}) const;
  // Prometheus text exposition format 0.0.4.
  std::string to_prometheus() const;
  // {"metrics":[{"name":..,"type":..,"help":..,"samples":[{"labels":{..},"value":..}]}]}
  std::string to_json() const;
};

// What a collector writes its samples into. Samples of one name may come from several
// collectors (two graphs): they are merged into one family.
class metric_writer {
 public:
  void counter(const std::string& name, const std::string& help, label_set labels, double value);
  void gauge(const std::string& name, const std::string& help, label_set labels, double value);
  void histogram(const std::string& name, const std::string& help, label_set labels,
                 const latency_histogram& h);

 private:
  friend class metrics_registry;
  metric_family& family(const std::string& name, const std::string& help, metric_type type);
  std::vector<metric_family> families_;
};

struct registry_state;

// Threading: add(), snapshot() and a registration's destruction may run on any threads at
// once. A collector runs on the thread that takes the snapshot, one snapshot at a time, and
// reads only what is safe to read while its subject runs (atomics).
class metrics_registry {
 public:
  using collector = std::function<void(metric_writer&)>;

  // Removes its collector when destroyed (or reset): the subject it reads may be destroyed
  // after that. Destroying it waits for a snapshot that is running the collector.
  class registration {
   public:
    registration() = default;
    registration(registration&& other) noexcept { *this = std::move(other); }
    registration& operator=(registration&& other) noexcept;
    ~registration() { reset(); }
    void reset();

   private:
    friend class metrics_registry;
    registration(std::shared_ptr<registry_state> state, std::uint64_t id)
        : state_(std::move(state)), id_(id) {}
    std::shared_ptr<registry_state> state_;
    std::uint64_t id_ = 0;
  };

  metrics_registry();
  [[nodiscard]] registration add(collector collect);
  metrics_snapshot snapshot() const;

 private:
  std::shared_ptr<registry_state> state_;
};

}  // namespace spate::observe
