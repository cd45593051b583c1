#include "spate/observe/metrics_registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace spate::observe {

// The collectors, each under an id that its registration removes. `collecting` serializes
// snapshots and removal: a registration's destructor takes it, so once it returns no
// snapshot is still running its collector.
struct registry_state {
  std::mutex collecting;
  std::mutex collectors_mutex;
  std::map<std::uint64_t, metrics_registry::collector> collectors;
  std::uint64_t next_id = 1;
};

metrics_registry::metrics_registry() : state_(std::make_shared<registry_state>()) {}

metrics_registry::registration metrics_registry::add(collector collect) {
  const std::lock_guard lock(state_->collectors_mutex);
  const std::uint64_t id = state_->next_id++;
  state_->collectors.emplace(id, std::move(collect));
  return registration(state_, id);
}

metrics_registry::registration& metrics_registry::registration::operator=(
    registration&& other) noexcept {
  if (this != &other) {
    reset();
    state_ = std::move(other.state_);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

void metrics_registry::registration::reset() {
  if (!state_) return;
  const std::lock_guard wait_for_snapshot(state_->collecting);
  const std::lock_guard lock(state_->collectors_mutex);
  state_->collectors.erase(id_);
  state_.reset();
}

metrics_snapshot metrics_registry::snapshot() const {
  const std::lock_guard one_snapshot_at_a_time(state_->collecting);
  std::vector<collector> collectors;
  {
    const std::lock_guard lock(state_->collectors_mutex);
    for (const auto& [id, c] : state_->collectors) collectors.push_back(c);
  }
  metric_writer writer;
  for (const auto& c : collectors) c(writer);
  metrics_snapshot result;
  result.families = std::move(writer.families_);
  return result;
}

metric_family& metric_writer::family(const std::string& name, const std::string& help,
                                     metric_type type) {
  for (auto& f : families_) {
    if (f.name == name) return f;
  }
  families_.push_back({name, help, type, {}});
  return families_.back();
}

void metric_writer::counter(const std::string& name, const std::string& help, label_set labels,
                            double value) {
  family(name, help, metric_type::counter).samples.push_back({std::move(labels), value, {}});
}

void metric_writer::gauge(const std::string& name, const std::string& help, label_set labels,
                          double value) {
  family(name, help, metric_type::gauge).samples.push_back({std::move(labels), value, {}});
}

void metric_writer::histogram(const std::string& name, const std::string& help, label_set labels,
                              const latency_histogram& h) {
  histogram_value v;
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < latency_histogram::bucket_count; ++i) {
    cumulative += h.count_in(i);
    v.buckets.emplace_back(latency_histogram::upper_bound_seconds(i), cumulative);
  }
  v.count = cumulative + h.count_in(latency_histogram::bucket_count);
  v.sum = h.sum_seconds();
  family(name, help, metric_type::histogram)
      .samples.push_back({std::move(labels), static_cast<double>(v.count), std::move(v)});
}

const metric_family* metrics_snapshot::find(const std::string& name) const {
  for (const auto& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::optional<double> metrics_snapshot::value(const std::string& name,
                                              const label_set& labels) const {
  const metric_family* f = find(name);
  if (f == nullptr) return std::nullopt;
  for (const auto& s : f->samples) {
    const bool matches = std::all_of(labels.begin(), labels.end(), [&](const label& wanted) {
      return std::find(s.labels.begin(), s.labels.end(), wanted) != s.labels.end();
    });
    if (matches) return s.value;
  }
  return std::nullopt;
}

namespace {

const char* type_text(metric_type t) {
  switch (t) {
    case metric_type::counter:
      return "counter";
    case metric_type::gauge:
      return "gauge";
    case metric_type::histogram:
      return "histogram";
  }
  return "untyped";
}

// Integers print without a fraction (counters are counts); others with 17 digits.
std::string number_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buffer[40];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", v);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
  }
  return buffer;
}

// Prometheus label values escape backslash, double quote and line feed.
std::string escape_label_value(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string labels_text(const label_set& labels, const label* extra = nullptr) {
  if (labels.empty() && extra == nullptr) return "";
  std::string out = "{";
  bool first = true;
  auto put = [&](const label& l) {
    if (!first) out += ',';
    first = false;
    out += l.name + "=\"" + escape_label_value(l.value) + '"';
  };
  for (const auto& l : labels) put(l);
  if (extra != nullptr) put(*extra);
  return out + "}";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  return std::isfinite(v) ? number_text(v) : json_string(number_text(v));
}

}  // namespace

std::string metrics_snapshot::to_prometheus() const {
  std::string out;
  for (const auto& f : families) {
    out += "# HELP " + f.name + ' ' + f.help + '\n';
    out += "# TYPE " + f.name + ' ' + type_text(f.type) + '\n';
    for (const auto& s : f.samples) {
      if (!s.histogram) {
        out += f.name + labels_text(s.labels) + ' ' + number_text(s.value) + '\n';
        continue;
      }
      for (const auto& [bound, count] : s.histogram->buckets) {
        const label le{"le", number_text(bound)};
        out += f.name + "_bucket" + labels_text(s.labels, &le) + ' ' + number_text(count) + '\n';
      }
      const label inf{"le", "+Inf"};
      out += f.name + "_bucket" + labels_text(s.labels, &inf) + ' ' +
             number_text(s.histogram->count) + '\n';
      out += f.name + "_sum" + labels_text(s.labels) + ' ' + number_text(s.histogram->sum) + '\n';
      out +=
          f.name + "_count" + labels_text(s.labels) + ' ' + number_text(s.histogram->count) + '\n';
    }
  }
  return out;
}

std::string metrics_snapshot::to_json() const {
  std::string out = "{\"metrics\":[";
  for (std::size_t i = 0; i < families.size(); ++i) {
    const auto& f = families[i];
    if (i > 0) out += ',';
    out += "{\"name\":" + json_string(f.name) + ",\"type\":\"" + type_text(f.type) +
           "\",\"help\":" + json_string(f.help) + ",\"samples\":[";
    for (std::size_t j = 0; j < f.samples.size(); ++j) {
      const auto& s = f.samples[j];
      if (j > 0) out += ',';
      out += "{\"labels\":{";
      for (std::size_t k = 0; k < s.labels.size(); ++k) {
        if (k > 0) out += ',';
        out += json_string(s.labels[k].name) + ':' + json_string(s.labels[k].value);
      }
      out += "},\"value\":" + json_number(s.value);
      if (s.histogram) {
        out += ",\"sum\":" + json_number(s.histogram->sum) + ",\"buckets\":[";
        for (std::size_t k = 0; k < s.histogram->buckets.size(); ++k) {
          if (k > 0) out += ',';
          out += "[" + json_number(s.histogram->buckets[k].first) + ',' +
                 number_text(s.histogram->buckets[k].second) + ']';
        }
        out += ']';
      }
      out += '}';
    }
    out += "]}";
  }
  return out + "]}";
}

}  // namespace spate::observe
