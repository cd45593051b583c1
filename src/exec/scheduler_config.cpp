#include "spate/exec/scheduler_config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>
#include <vector>

#include <unistd.h>  // environ

#include "spate/platform/os.hpp"

namespace spate {
namespace {

using source_t = scheduler_config::setting_source;

constexpr std::string_view all_keys[] = {"threads",           "polling",
                                         "park-timeout-us",   "task-budget",
                                         "pin-threads",       "aggressive-attempts",
                                         "moderate-attempts", "moderate-sleep-us"};

constexpr std::string_view valid_keys_text =
    "threads, polling, park-timeout-us, task-budget, pin-threads, aggressive-attempts, "
    "moderate-attempts, moderate-sleep-us";

// SPATE_ variables read elsewhere (the library's stress hooks, the tests, tools/): not
// scheduler keys, and not misspellings of one.
constexpr std::string_view other_variables[] = {"SPATE_STRESS_INJECT",    "SPATE_STRESS_ROUNDS",
                                                "SPATE_DETERMINISM_RUNS", "SPATE_DETERMINISM_TIMES",
                                                "SPATE_KAFKA_BROKERS",    "SPATE_KAFKA_JARS",
                                                "SPATE_CAF1_ROOT",        "SPATE_CAF1_TARBALL"};

constexpr std::string_view command_line_prefix = "--spate.";

std::string variable_of(std::string_view key) {
  std::string variable = "SPATE_";
  for (char c : key) variable += c == '-' ? '_' : static_cast<char>(std::toupper(c));
  return variable;
}

// Where a setting came from, as a config_error names it.
std::string origin(std::string_view key, source_t source) {
  switch (source) {
    case source_t::environment:
      return " (environment variable " + variable_of(key) + ")";
    case source_t::command_line:
      return " (command-line option " + std::string(command_line_prefix) + std::string(key) + ")";
    case source_t::program:
      break;
  }
  return {};
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The key `key` is most likely a misspelling of, or empty when none is close (a third of
// its letters wrong, at most 3).
std::string_view nearest_key(std::string_view key) {
  std::string_view best;
  std::size_t best_distance = std::min<std::size_t>(3, std::max<std::size_t>(1, key.size() / 3));
  for (std::string_view candidate : all_keys) {
    const std::size_t d = edit_distance(key, candidate);
    if (d <= best_distance && (best.empty() || d < best_distance)) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

[[noreturn]] void throw_unknown_key(std::string_view key, source_t source) {
  const std::string_view near = nearest_key(key);
  std::string text;
  if (source == source_t::command_line) {
    text =
        "spate: unknown command-line option " + std::string(command_line_prefix) + std::string(key);
    if (!near.empty())
      text += " (did you mean " + std::string(command_line_prefix) + std::string(near) + "?)";
  } else {
    text = "spate: unknown scheduler option '" + std::string(key) + "'" + origin(key, source);
    if (!near.empty()) text += " (did you mean '" + std::string(near) + "'?)";
  }
  throw config_error(text + ": valid options are " + std::string(valid_keys_text));
}

bool is_key(std::string_view key) {
  for (std::string_view k : all_keys) {
    if (k == key) return true;
  }
  return false;
}

std::uint64_t parse_unsigned(std::string_view key, std::string_view value, source_t source,
                             std::uint64_t min, std::uint64_t max) {
  std::uint64_t result = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), result);
  if (error != std::errc{} || end != value.data() + value.size() || result < min || result > max) {
    throw config_error("spate: invalid value '" + std::string(value) + "' for '" +
                       std::string(key) + "'" + origin(key, source) +
                       ": expected a whole number from " + std::to_string(min) + " to " +
                       std::to_string(max));
  }
  return result;
}

bool parse_bool(std::string_view key, std::string_view value, source_t source) {
  if (value == "true" || value == "1" || value == "yes" || value == "on") return true;
  if (value == "false" || value == "0" || value == "no" || value == "off") return false;
  throw config_error("spate: invalid value '" + std::string(value) + "' for '" + std::string(key) +
                     "'" + origin(key, source) + ": expected true or false");
}

// `field` takes the new preset's value unless the program changed it from the old preset's.
template <typename T>
void follow_preset(T& field, const T& old_value, const T& new_value) {
  if (field == old_value) field = new_value;
}

void follow_preset(polling_strategy& phase, const polling_strategy& old_phase,
                   const polling_strategy& new_phase) {
  follow_preset(phase.attempts, old_phase.attempts, new_phase.attempts);
  follow_preset(phase.steal_interval, old_phase.steal_interval, new_phase.steal_interval);
  follow_preset(phase.sleep, old_phase.sleep, new_phase.sleep);
}

}  // namespace

scheduler_config scheduler_config::default_preset() {
  return scheduler_config{};
}

scheduler_config scheduler_config::spin() {
  scheduler_config c;
  c.aggressive = {UINT32_MAX, 10, std::chrono::microseconds{0}};
  c.moderate = {0, 1, std::chrono::microseconds{0}};
  c.relaxed = {1, 1, std::chrono::microseconds{0}};
  c.park_when_idle = false;
  c.polling_preset = "spin";
  return c;
}

scheduler_config scheduler_config::preset(std::string_view name) {
  if (name == "default") return default_preset();
  if (name == "spin") return spin();
  throw config_error("spate: unknown scheduler preset '" + std::string(name) +
                     "': expected default or spin");
}

void scheduler_config::set(std::string_view key, std::string_view value, setting_source source) {
  if (key == "threads") {
    threads = parse_unsigned(key, value, source, 0, 4096);
  } else if (key == "polling") {
    if (value != "default" && value != "spin") {
      throw config_error("spate: invalid value '" + std::string(value) + "' for 'polling'" +
                         origin(key, source) + ": expected default or spin");
    }
    // Only the polling knobs, and only those the program left at its preset's values.
    const scheduler_config from = preset(polling_preset);
    const scheduler_config to = preset(value);
    follow_preset(aggressive, from.aggressive, to.aggressive);
    follow_preset(moderate, from.moderate, to.moderate);
    follow_preset(relaxed, from.relaxed, to.relaxed);
    follow_preset(park_when_idle, from.park_when_idle, to.park_when_idle);
    polling_preset = to.polling_preset;
  } else if (key == "park-timeout-us") {
    park_timeout = std::chrono::microseconds{parse_unsigned(key, value, source, 0, 60'000'000)};
  } else if (key == "task-budget") {
    task_budget = parse_unsigned(key, value, source, 1, 1'000'000);
  } else if (key == "pin-threads") {
    pin_threads = parse_bool(key, value, source);
  } else if (key == "aggressive-attempts") {
    aggressive.attempts =
        static_cast<std::uint32_t>(parse_unsigned(key, value, source, 0, UINT32_MAX));
  } else if (key == "moderate-attempts") {
    moderate.attempts =
        static_cast<std::uint32_t>(parse_unsigned(key, value, source, 0, UINT32_MAX));
  } else if (key == "moderate-sleep-us") {
    moderate.sleep = std::chrono::microseconds{parse_unsigned(key, value, source, 0, 1'000'000)};
  } else {
    throw_unknown_key(key, source);
  }
  validate();
}

void scheduler_config::apply(const std::vector<setting>& settings, setting_source source) {
  // The preset first: it replaces the polling knobs that the other settings then adjust.
  const setting* polling = nullptr;
  for (const auto& s : settings) {
    if (s.first == "polling") polling = &s;
  }
  if (polling != nullptr) set(polling->first, polling->second, source);
  for (const auto& s : settings) {
    if (s.first != "polling") set(s.first, s.second, source);
  }
}

std::vector<scheduler_config::setting> scheduler_config::settings_from_environment() {
  std::vector<setting> settings;
  for (std::string_view key : all_keys) {
    if (const char* value = std::getenv(variable_of(key).c_str())) {
      settings.emplace_back(key, value);
    }
  }
  return settings;
}

std::vector<std::string> scheduler_config::environment_warnings() {
  std::vector<std::string> warnings;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text = *entry;
    if (text.substr(0, 6) != "SPATE_") continue;
    const std::string_view name = text.substr(0, text.find('='));
    bool known = false;
    for (std::string_view key : all_keys) known = known || variable_of(key) == name;
    for (std::string_view other : other_variables) known = known || other == name;
    if (known) continue;
    // SPATE_THREDS -> "thred"s: compare in key spelling.
    std::string key;
    for (char c : name.substr(6)) key += c == '_' ? '-' : static_cast<char>(std::tolower(c));
    std::string warning = "spate: ignoring unknown environment variable " + std::string(name);
    const std::string_view near = nearest_key(key);
    if (!near.empty()) warning += " (did you mean " + variable_of(near) + "?)";
    warnings.push_back(warning + ": scheduler variables are SPATE_ and one of " +
                       std::string(valid_keys_text) + ", upper-cased with _ for -");
  }
  return warnings;
}

std::vector<scheduler_config::setting> scheduler_config::settings_from_command_line(
    int argc, const char* const* argv, std::vector<std::string>* rest) {
  std::vector<setting> settings;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, command_line_prefix.size()) != command_line_prefix) {
      if (rest != nullptr) rest->emplace_back(arg);
      continue;
    }
    arg.remove_prefix(command_line_prefix.size());
    const auto equals = arg.find('=');
    const std::string_view key = arg.substr(0, equals);
    if (!is_key(key)) throw_unknown_key(key, setting_source::command_line);
    if (equals == std::string_view::npos) {
      throw config_error("spate: command-line option --spate." + std::string(arg) +
                         " needs a value (--spate.KEY=VALUE)");
    }
    settings.emplace_back(key, arg.substr(equals + 1));
  }
  return settings;
}

std::vector<std::string> scheduler_config::apply_environment() {
  apply(settings_from_environment(), setting_source::environment);
  return environment_warnings();
}

std::vector<std::string> scheduler_config::apply_command_line(int argc, const char* const* argv) {
  std::vector<std::string> rest;
  apply(settings_from_command_line(argc, argv, &rest), setting_source::command_line);
  return rest;
}

void scheduler_config::validate() const {
  if (polling_preset != "default" && polling_preset != "spin") {
    throw config_error("spate: polling_preset is '" + polling_preset +
                       "': expected default or spin");
  }
  if (task_budget == 0) throw config_error("spate: task-budget must be at least 1");
  if (local_queue_capacity < 2) throw config_error("spate: local queue capacity must be >= 2");
  if (aggressive.steal_interval == 0 || moderate.steal_interval == 0 ||
      relaxed.steal_interval == 0) {
    throw config_error("spate: a polling strategy's steal interval must be at least 1");
  }
}

std::size_t scheduler_config::effective_threads() const {
  return threads != 0 ? threads : available_cpus();
}

}  // namespace spate
