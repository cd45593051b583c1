#pragma once
// Spike Detection (StreamBenchmarks' SpikeDetection; the CAF-PP paper, Sect. 5): sensor
// readings → a moving average per device over its last 1,000 readings → a detector that
// reports a reading more than `threshold` (relative) away from its device's average → sink.
//
// Records follow the Intel Berkeley Research Lab format that the original reads: one line
// per reading, whitespace-separated
//     date time epoch device temperature humidity light voltage
// e.g. "2004-03-31 03:38:15.757551 2 1 122.153 -3.91901 11.04 2.03397"; the temperature is
// monitored. A line with fewer than 8 fields or a field that is not a number is malformed.
#include <spate/flow.hpp>

#include "../common/operator_node.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace apps::spike_detection {

struct reading {
  std::uint32_t device = 0;
  double value = 0;  // the monitored field: temperature
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
};

struct averaged {
  reading r;
  double average = 0;
};

struct spike {
  std::uint32_t device;
  std::uint64_t seq;
  double value, average;
  std::int64_t stamp_ns;
  friend bool operator==(const spike& a, const spike& b) {
    return a.device == b.device && a.seq == b.seq && a.value == b.value && a.average == b.average;
  }
};

struct parameters {
  std::size_t window = 1000;  // readings per device in the moving average
  double threshold = 0.25;    // relative distance from the average that is a spike
};

namespace detail {
inline bool next_field(std::string_view& line, std::string_view& field) {
  const auto start = line.find_first_not_of(" \t\r");
  if (start == std::string_view::npos) return false;
  line.remove_prefix(start);
  const auto end = line.find_first_of(" \t\r");
  field = line.substr(0, end);
  line.remove_prefix(end == std::string_view::npos ? line.size() : end);
  return true;
}
template <class Number>
bool number(std::string_view field, Number& out) {
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), out);
  return error == std::errc{} && end == field.data() + field.size();
}
}  // namespace detail

inline std::optional<reading> parse(std::string_view line) {
  std::string_view fields[8];
  for (auto& f : fields)
    if (!detail::next_field(line, f)) return std::nullopt;
  long epoch = 0;
  std::uint32_t device = 0;
  double values[4];
  if (!detail::number(fields[2], epoch) || !detail::number(fields[3], device)) return std::nullopt;
  for (int k = 0; k < 4; ++k)
    if (!detail::number(fields[4 + k], values[k]) || !std::isfinite(values[k])) return std::nullopt;
  return reading{device, values[0], 0, 0};
}

// A seeded generator of readings in the lab's format: `devices` motes (the lab had 54),
// each temperature a slow random walk around its own level, and about one reading in 200 a
// spike 30–60% off the walk.
inline std::vector<std::string> generate_lines(std::size_t n, std::uint64_t seed,
                                               std::uint32_t devices = 54) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> level(17, 25), unit(0, 1), spike_size(0.3, 0.6);
  std::normal_distribution<double> step(0, 0.02);
  std::vector<double> temperature(devices);
  for (auto& t : temperature) t = level(random);
  std::vector<std::string> lines;
  lines.reserve(n);
  char buffer[160];
  for (std::size_t i = 0; i < n; ++i) {
    const auto d = std::uint32_t(random() % devices);
    temperature[d] += step(random);
    double value = temperature[d];
    if (unit(random) < 0.005)
      value *= unit(random) < 0.5 ? 1 - spike_size(random) : 1 + spike_size(random);
    const long epoch = long(i / devices) + 1;
    const unsigned seconds = unsigned(i / 10 % 86400);
    std::snprintf(buffer, sizeof buffer,
                  "2004-03-%02u %02u:%02u:%02u.%06u %ld %u %.4f %.4f %.2f %.5f",
                  1 + unsigned(i / 864000 % 28), seconds / 3600, seconds / 60 % 60, seconds % 60,
                  unsigned(random() % 1000000), epoch, d + 1, value, 30 + 15 * unit(random),
                  1000 * unit(random), 2.3 + 0.4 * unit(random));
    lines.emplace_back(buffer);
  }
  return lines;
}

// The operators. Each one's work is `process(item, emit)`, which the flow node's consume(), the
// CAF actors of `spate-bench apps` and the sequential reference all call. The moving average
// is keyed by device (a farm routes by_key on device).
class moving_average : public operator_node<moving_average, reading, averaged> {
 public:
  explicit moving_average(parameters p = {}) : window_(p.window) {}
  template <class Emit>
  void process(const reading& r, Emit&& emit) {
    emit(averaged{r, update(r)});
  }

 private:
  double update(const reading& r) {
    device_window& w = devices_[r.device];
    if (w.values.size() == window_) {
      w.sum -= w.values.front();
      w.values.pop_front();
    }
    w.values.push_back(r.value);
    w.sum += r.value;
    return w.sum / double(w.values.size());
  }

  struct device_window {
    std::deque<double> values;
    double sum = 0;
  };
  std::size_t window_;
  std::unordered_map<std::uint32_t, device_window> devices_;
};

class spike_detector : public operator_node<spike_detector, averaged, spike> {
 public:
  explicit spike_detector(parameters p = {}) : threshold_(p.threshold) {}
  template <class Emit>
  void process(const averaged& a, Emit&& emit) {
    if (std::abs(a.r.value - a.average) > threshold_ * a.average)
      emit(spike{a.r.device, a.r.seq, a.r.value, a.average, a.r.stamp_ns});
  }

 private:
  double threshold_;
};

inline auto device_of = [](const reading& r) { return r.device; };

// The operator graph with `averages` moving-average replicas (by device) and `detectors`
// detector replicas, between `source` and `sink`.
template <class Source, class Sink>
auto pipeline(Source source, Sink sink, std::size_t averages, std::size_t detectors,
              parameters p = {}) {
  namespace flow = spate::flow;
  return flow::pipeline(
      std::move(source),
      flow::farm(flow::make_stage<moving_average>(p).named("moving_average"), averages,
                 flow::by_key{device_of}),
      flow::farm(flow::make_stage<spike_detector>(p).named("spike_detector"), detectors),
      std::move(sink));
}

// The same operators, one after the other on one thread: the reference the tests compare
// with, over the first `total` records of the replay (cycling through `records`, numbered
// as the replay source numbers them).
inline std::vector<spike> sequential(const std::vector<reading>& records, std::uint64_t total,
                                     parameters p = {}) {
  moving_average average(p);
  spike_detector detector(p);
  std::vector<spike> out;
  for (std::uint64_t seq = 0; seq < total && !records.empty(); ++seq) {
    reading r = records[seq % records.size()];
    r.seq = seq;
    average.process(
        r, [&](averaged&& a) { detector.process(a, [&](spike&& s) { out.push_back(s); }); });
  }
  return out;
}

}  // namespace apps::spike_detection
