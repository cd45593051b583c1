#include "spate/observe/metrics_registry.hpp"
#include "spate/platform/utf8.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace spate::observe {

namespace {

// A user metric's samples: one family per name, registered in this order.
struct user_sample {
  label_set labels;
  std::shared_ptr<detail::value_cell> value;          // counters and gauges
  std::shared_ptr<detail::histogram_cell> histogram;  // histograms
};
struct user_family {
  std::string name, help;
  metric_type type;
  std::vector<std::string> label_names;  // every sample's, in order
  std::vector<double> bounds;            // histograms
  std::vector<user_sample> samples;
};

}  // namespace

// The collectors, each under an id that its registration removes, and the user's metrics.
// `collecting` serializes snapshots and removal: a registration's destructor takes it, so
// once it returns no snapshot is still running its collector.
struct registry_state {
  std::mutex collecting;
  std::mutex collectors_mutex;  // guards collectors, next_id and user_families
  std::map<std::uint64_t, metrics_registry::collector> collectors;
  std::uint64_t next_id = 1;
  std::vector<user_family> user_families;
};

bool valid_metric_name(std::string_view name) noexcept {
  if (name.empty()) return false;
  auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  };
  if (!letter(name[0])) return false;
  return std::all_of(name.begin() + 1, name.end(),
                     [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

bool valid_label_name(std::string_view name) noexcept {
  if (name.empty() || name.rfind("__", 0) == 0) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(name[0])) return false;
  return std::all_of(name.begin() + 1, name.end(),
                     [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

namespace {

// A name as an error message shows it: quoted, its control characters and bytes beyond
// ASCII as \xNN, so that a hostile name cannot break the message's line or terminal.
std::string shown(std::string_view name) {
  std::string out = "'";
  for (unsigned char c : name) {
    if (c < 0x20 || c >= 0x7f || c == '\\' || c == '\'') {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "'";
}

void check_metric_name(std::string_view name) {
  if (!valid_metric_name(name))
    throw std::invalid_argument("spate::observe: invalid metric name " + shown(name) +
                                " (a metric name is [a-zA-Z_:][a-zA-Z0-9_:]*)");
}

// A sample's labels: valid names, none twice; a histogram's may not use "le", its buckets'.
void check_labels(std::string_view metric, const label_set& labels, metric_type type) {
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::string& name = labels[i].name;
    if (!valid_label_name(name))
      throw std::invalid_argument("spate::observe: metric " + shown(metric) +
                                  ": invalid label name " + shown(name) +
                                  " (a label name is [a-zA-Z_][a-zA-Z0-9_]* and does not start "
                                  "with __)");
    if (type == metric_type::histogram && name == "le")
      throw std::invalid_argument("spate::observe: histogram " + shown(metric) +
                                  ": the label name 'le' is reserved for its buckets");
    for (std::size_t j = 0; j < i; ++j)
      if (labels[j].name == name)
        throw std::invalid_argument("spate::observe: metric " + shown(metric) + ": label " +
                                    shown(name) + " given twice");
  }
}

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

void check_family(const metric_family& f) {
  check_metric_name(f.name);
  for (const auto& s : f.samples) check_labels(f.name, s.labels, f.type);
}

}  // namespace

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

void counter::throw_negative(double by) {
  throw std::invalid_argument("spate::observe::counter::inc(" + std::to_string(by) +
                              "): a counter only grows (use a gauge)");
}

histogram::histogram()
    : cell_(
          std::make_shared<detail::histogram_cell>(metrics_registry::default_histogram_bounds())) {}

std::uint64_t histogram::count() const noexcept {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i <= cell_->bounds.size(); ++i)
    n += cell_->counts[i].load(std::memory_order_relaxed);
  return n;
}

std::vector<double> metrics_registry::default_histogram_bounds() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

namespace {

std::vector<std::string> names_of(const label_set& labels) {
  std::vector<std::string> names;
  for (const auto& l : labels) names.push_back(l.name);
  return names;
}

// The sample of `name` with `labels` in the user's metrics, created when there is none;
// everything a registration could get wrong is refused here, before anything is added.
user_sample& find_or_add(registry_state& state, const std::string& name, const std::string& help,
                         metric_type type, label_set labels, const std::vector<double>& bounds) {
  check_metric_name(name);
  // spate's collectors name their metrics spate_*: a user metric there could clash with one
  // of them (same name, other type) only at snapshot time, and then every scrape would fail.
  if (name.starts_with("spate_")) {
    throw std::invalid_argument("spate::observe: metric " + shown(name) +
                                ": names starting with spate_ are reserved for spate's own "
                                "metrics");
  }
  check_labels(name, labels, type);
  auto family = std::find_if(state.user_families.begin(), state.user_families.end(),
                             [&](const user_family& f) { return f.name == name; });
  if (family == state.user_families.end()) {
    state.user_families.push_back({name, help, type, names_of(labels), bounds, {}});
    family = std::prev(state.user_families.end());
  } else {
    const std::string what =
        std::string("spate::observe: metric ") + shown(name) + " is already registered with ";
    if (family->type != type)
      throw std::invalid_argument(what + "type " + type_text(family->type) + ", not " +
                                  type_text(type));
    if (family->help != help)
      throw std::invalid_argument(what + "other help text: " + shown(family->help));
    if (family->label_names != names_of(labels))
      throw std::invalid_argument(what +
                                  "other label names (every sample of a metric has the "
                                  "same label names, in the same order)");
    if (family->bounds != bounds) throw std::invalid_argument(what + "other bucket bounds");
  }
  for (auto& s : family->samples)
    if (s.labels == labels) return s;
  family->samples.push_back({std::move(labels), nullptr, nullptr});
  auto& added = family->samples.back();
  if (type == metric_type::histogram) {
    added.histogram = std::make_shared<detail::histogram_cell>(bounds);
  } else {
    added.value = std::make_shared<detail::value_cell>();
  }
  return added;
}

}  // namespace

counter metrics_registry::add_counter(const std::string& name, const std::string& help,
                                      label_set labels) {
  const std::lock_guard lock(state_->collectors_mutex);
  return counter(
      find_or_add(*state_, name, help, metric_type::counter, std::move(labels), {}).value);
}

gauge metrics_registry::add_gauge(const std::string& name, const std::string& help,
                                  label_set labels) {
  const std::lock_guard lock(state_->collectors_mutex);
  return gauge(find_or_add(*state_, name, help, metric_type::gauge, std::move(labels), {}).value);
}

histogram metrics_registry::add_histogram(const std::string& name, const std::string& help,
                                          label_set labels, std::vector<double> upper_bounds) {
  for (std::size_t i = 0; i < upper_bounds.size(); ++i) {
    if (!std::isfinite(upper_bounds[i]) || (i > 0 && !(upper_bounds[i - 1] < upper_bounds[i])))
      throw std::invalid_argument("spate::observe: histogram " + shown(name) +
                                  ": bucket bounds must be finite and increasing (+Inf is "
                                  "added), bound " +
                                  std::to_string(i) + " is not");
  }
  const std::lock_guard lock(state_->collectors_mutex);
  return histogram(
      find_or_add(*state_, name, help, metric_type::histogram, std::move(labels), upper_bounds)
          .histogram);
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
  {
    const std::lock_guard lock(state_->collectors_mutex);
    for (const auto& f : state_->user_families) {
      for (const auto& s : f.samples) {
        if (f.type == metric_type::counter) {
          writer.counter(f.name, f.help, s.labels, s.value->value.load(std::memory_order_relaxed));
        } else if (f.type == metric_type::gauge) {
          writer.gauge(f.name, f.help, s.labels, s.value->value.load(std::memory_order_relaxed));
        } else {
          // _count is the +Inf bucket, so it always equals the buckets' total; the sum is read
          // separately and may include an observation the buckets do not yet (or miss one).
          const auto& cell = *s.histogram;
          histogram_value v;
          std::uint64_t cumulative = 0;
          for (std::size_t i = 0; i < cell.bounds.size(); ++i) {
            cumulative += cell.counts[i].load(std::memory_order_relaxed);
            v.buckets.emplace_back(cell.bounds[i], cumulative);
          }
          v.count = cumulative + cell.counts[cell.bounds.size()].load(std::memory_order_relaxed);
          v.sum = cell.sum.load(std::memory_order_relaxed);
          writer.histogram(f.name, f.help, s.labels, std::move(v));
        }
      }
    }
  }
  metrics_snapshot result;
  result.families = std::move(writer.families_);
  return result;
}

metric_family& metric_writer::family(const std::string& name, const std::string& help,
                                     metric_type type) {
  for (auto& f : families_) {
    if (f.name != name) continue;
    if (f.type != type)
      throw std::invalid_argument("spate::observe: metric " + shown(name) + " written as a " +
                                  type_text(f.type) + " and as a " + type_text(type));
    return f;
  }
  check_metric_name(name);
  families_.push_back({name, help, type, {}});
  return families_.back();
}

void metric_writer::counter(const std::string& name, const std::string& help, label_set labels,
                            double value) {
  auto& f = family(name, help, metric_type::counter);
  check_labels(name, labels, metric_type::counter);
  f.samples.push_back({std::move(labels), value, {}});
}

void metric_writer::gauge(const std::string& name, const std::string& help, label_set labels,
                          double value) {
  auto& f = family(name, help, metric_type::gauge);
  check_labels(name, labels, metric_type::gauge);
  f.samples.push_back({std::move(labels), value, {}});
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
  histogram(name, help, std::move(labels), std::move(v));
}

void metric_writer::histogram(const std::string& name, const std::string& help, label_set labels,
                              histogram_value value) {
  auto& f = family(name, help, metric_type::histogram);
  check_labels(name, labels, metric_type::histogram);
  const auto count = static_cast<double>(value.count);
  f.samples.push_back({std::move(labels), count, std::move(value)});
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

// Integers print without a fraction (counters are counts); others as the shortest text that
// reads back as the same double (a bucket bound of 0.005 is le="0.005").
std::string number_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buffer[40];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", v);
    return buffer;
  }
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return error == std::errc{} ? std::string(buffer, end) : std::string("NaN");
}

// Copies `s` with `escape(c)` for each ASCII character (nullptr: as it is) and U+FFFD for each
// byte that does not start a well-formed UTF-8 sequence: both formats are UTF-8 text.
template <class Escape>
std::string escaped(std::string_view s, Escape escape) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else if (n == 1) {
      if (const char* e = escape(s[i])) {
        out += e;
      } else {
        out += s[i];
      }
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

// Prometheus HELP text escapes backslash and line feed.
std::string escape_help(const std::string& s) {
  return escaped(s, [](char c) -> const char* {
    if (c == '\\') return "\\\\";
    if (c == '\n') return "\\n";
    return nullptr;
  });
}

// Prometheus label values escape backslash, double quote and line feed.
std::string escape_label_value(const std::string& s) {
  return escaped(s, [](char c) -> const char* {
    if (c == '\\') return "\\\\";
    if (c == '"') return "\\\"";
    if (c == '\n') return "\\n";
    return nullptr;
  });
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

// JSON strings escape double quote, backslash and every control character.
std::string json_string(const std::string& s) {
  char buffer[8];
  return '"' +
         escaped(s,
                 [&buffer](char c) -> const char* {
                   if (c == '"') return "\\\"";
                   if (c == '\\') return "\\\\";
                   if (static_cast<unsigned char>(c) < 0x20) {
                     std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned char>(c));
                     return buffer;
                   }
                   return nullptr;
                 }) +
         '"';
}

std::string json_number(double v) {
  return std::isfinite(v) ? number_text(v) : json_string(number_text(v));
}

}  // namespace

std::string metrics_snapshot::to_prometheus() const {
  std::string out;
  for (const auto& f : families) {
    check_family(f);
    out += "# HELP " + f.name + ' ' + escape_help(f.help) + '\n';
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
    check_family(f);
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
