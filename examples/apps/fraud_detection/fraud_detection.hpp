#pragma once
// Fraud Detection (StreamBenchmarks' FraudDetection; the CAF-PP paper, Sect. 5): credit-card
// transactions → a predictor keyed by entity that scores each entity's last 5 transaction
// states against a Markov model of normal behaviour → the alerts.
//
// Records follow the original's format, one transaction per line:
//     entity_id,transaction_id,STATE
// where STATE is one of the model's 18 states (LNL … HHS: amount low/medium/high, time since
// the previous transaction normal/high, amount vs the previous one less/normal/same...). The
// model (data/fraud-detection/model.txt) is a header of the 18 state names and an 18 × 18
// matrix of transition probabilities, one CSV row per state.
//
// Score (the original's "miss probability"): over the window's 4 transitions prev → cur, the
// mean of Σ_{j ≠ cur} P(prev → j) = 1 − P(prev → cur). Above 0.96 the entity is reported.
#include <spate/flow.hpp>
#include <spate/state/keyed.hpp>

#include "../common/operator_node.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace apps::fraud_detection {

class markov_model {
 public:
  static markov_model load(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("fraud detection: cannot open the model " + path);
    markov_model m;
    std::string line;
    if (!std::getline(in, line)) throw std::runtime_error(path + ": empty model");
    std::stringstream header(line);
    for (std::string name; std::getline(header, name, ',');) m.names_.push_back(name);
    const std::size_t n = m.names_.size();
    if (n == 0 || n > 255) throw std::runtime_error(path + ": bad state count");
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::getline(in, line))
        throw std::runtime_error(path + ": " + std::to_string(i) + " rows, expected " +
                                 std::to_string(n));
      std::stringstream row(line);
      std::vector<double> probabilities;
      for (std::string cell; std::getline(row, cell, ',');)
        probabilities.push_back(std::stod(cell));
      if (probabilities.size() != n)
        throw std::runtime_error(path + ": row " + std::to_string(i + 1) + " has " +
                                 std::to_string(probabilities.size()) + " values, expected " +
                                 std::to_string(n));
      m.transition_.push_back(std::move(probabilities));
    }
    return m;
  }
  std::size_t states() const noexcept { return names_.size(); }
  const std::string& name(std::size_t s) const { return names_.at(s); }
  std::optional<std::uint8_t> index_of(std::string_view name) const {
    for (std::size_t s = 0; s < names_.size(); ++s)
      if (names_[s] == name) return std::uint8_t(s);
    return std::nullopt;
  }
  double probability(std::size_t from, std::size_t to) const { return transition_[from][to]; }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<double>> transition_;
};

struct transaction {
  std::uint32_t entity = 0;  // the entity_id mapped to a dense key when parsed
  std::uint8_t state = 0;    // index into the model's states
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
};

struct alert {
  std::uint32_t entity;
  std::uint64_t seq;
  double score;
  std::int64_t stamp_ns;
  friend bool operator==(const alert& a, const alert& b) {
    return a.entity == b.entity && a.seq == b.seq && a.score == b.score;
  }
};

struct parameters {
  std::size_t window = 5;  // states per entity in a score
  double threshold = 0.96;
};

// Parses "entity,transaction,STATE", mapping entity ids to dense keys in order of first
// appearance. Not thread-safe (parsing happens before the run, as in the original).
class parser {
 public:
  explicit parser(const markov_model& model) : model_(&model) {}
  std::optional<transaction> operator()(std::string_view line) {
    const auto first = line.find(','), second = line.find(',', first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos || first == 0)
      return std::nullopt;
    std::string_view state = line.substr(second + 1);
    while (!state.empty() && (state.back() == '\r' || state.back() == ' ')) state.remove_suffix(1);
    const auto index = model_->index_of(state);
    if (!index) return std::nullopt;
    const auto [it, added] =
        entities_.try_emplace(std::string(line.substr(0, first)), std::uint32_t(entities_.size()));
    return transaction{it->second, *index, 0, 0};
  }
  std::size_t entities() const noexcept { return entities_.size(); }

 private:
  const markov_model* model_;
  std::unordered_map<std::string, std::uint32_t> entities_;
};

// A seeded generator in the original's format: `entities` card holders whose transactions
// follow the model's chain, except that about one transaction in 50 jumps to a state chosen
// uniformly (the behaviour the predictor should flag).
inline std::vector<std::string> generate_lines(const markov_model& model, std::size_t n,
                                               std::uint64_t seed, std::uint32_t entities = 1000) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<std::uint8_t> current(entities);
  for (auto& s : current) s = std::uint8_t(random() % model.states());
  std::vector<std::string> lines;
  lines.reserve(n);
  char buffer[64];
  for (std::size_t i = 0; i < n; ++i) {
    const auto e = std::uint32_t(random() % entities);
    std::size_t next = 0;
    if (unit(random) < 0.02) {
      next = random() % model.states();
    } else {
      double u = unit(random), sum = 0;
      for (next = 0; next + 1 < model.states(); ++next) {
        sum += model.probability(current[e], next);
        if (u < sum) break;
      }
    }
    current[e] = std::uint8_t(next);
    std::snprintf(buffer, sizeof buffer, "CARD%06u,TX%010zu,%s", e, i, model.name(next).c_str());
    lines.emplace_back(buffer);
  }
  return lines;
}

// An entity's score: `recent` gets the transaction's state (dropping the oldest beyond the
// window); once it holds `window` states, the mean miss probability of its transitions.
inline std::optional<double> push_and_score(std::vector<std::uint8_t>& recent, const transaction& t,
                                            const markov_model& model, const parameters& p) {
  if (recent.size() == p.window) recent.erase(recent.begin());
  recent.push_back(t.state);
  if (recent.size() < p.window || p.window < 2) return std::nullopt;
  double missed = 0;
  for (std::size_t i = 1; i < recent.size(); ++i)
    missed += 1 - model.probability(recent[i - 1], recent[i]);
  return missed / double(recent.size() - 1);
}

// Keyed by entity (a farm routes by_key on entity): emits an alert when the score is above
// the threshold. Its work is `process(t, emit)`, which the flow node's consume(), the CAF
// actors of `spate-bench apps` and the sequential reference all call. Each entity's recent
// states are in a map of its own.
class predictor : public operator_node<predictor, transaction, alert> {
 public:
  predictor(std::shared_ptr<const markov_model> model, parameters p = {})
      : model_(std::move(model)), p_(p) {}
  template <class Emit>
  void process(const transaction& t, Emit&& emit) {
    const auto score = push_and_score(entities_[t.entity], t, *model_, p_);
    if (score && *score > p_.threshold) emit(alert{t.entity, t.seq, *score, t.stamp_ns});
  }

 private:
  std::shared_ptr<const markov_model> model_;
  parameters p_;
  std::unordered_map<std::uint32_t, std::vector<std::uint8_t>> entities_;
};

// The same predictor with each entity's recent states in spate's keyed state, so that
// checkpoints hold them (and a keyed state backend may keep them on disk).
class keyed_predictor : public spate::flow::node<transaction, alert> {
 public:
  keyed_predictor(std::shared_ptr<const markov_model> model, parameters p = {})
      : model_(std::move(model)), p_(p) {}
  auto state_fields() { return std::tie(recent_); }
  void consume(transaction& t) {
    const auto score = push_and_score(recent_.get_or_init(), t, *model_, p_);
    if (score && *score > p_.threshold) send_next(alert{t.entity, t.seq, *score, t.stamp_ns});
  }

 private:
  std::shared_ptr<const markov_model> model_;
  parameters p_;
  spate::state::value<std::vector<std::uint8_t>> recent_{"recent"};
};

inline auto entity_of = [](const transaction& t) { return t.entity; };

// The graph; `Predictor` is `predictor` (a map the node keeps) or `keyed_predictor`.
template <class Predictor = predictor, class Source, class Sink>
auto pipeline(Source source, Sink sink, std::shared_ptr<const markov_model> model,
              std::size_t predictors, parameters p = {}) {
  namespace flow = spate::flow;
  return flow::pipeline(
      std::move(source),
      flow::farm(flow::make_stage<Predictor>(std::move(model), p).named("predictor"), predictors,
                 flow::by_key{entity_of}),
      std::move(sink));
}

// The reference: the predictor on one thread over the first `total` records of the replay
// (cycling through `records`, numbered as the replay source numbers them).
inline std::vector<alert> sequential(const std::vector<transaction>& records, std::uint64_t total,
                                     std::shared_ptr<const markov_model> model, parameters p = {}) {
  predictor predict(std::move(model), p);
  std::vector<alert> out;
  for (std::uint64_t seq = 0; seq < total && !records.empty(); ++seq) {
    transaction t = records[seq % records.size()];
    t.seq = seq;
    predict.process(t, [&](alert&& a) { out.push_back(a); });
  }
  return out;
}

}  // namespace apps::fraud_detection
