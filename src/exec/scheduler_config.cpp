#include "spate/exec/scheduler_config.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>

#include "spate/platform/cpu_affinity.hpp"

namespace spate {
namespace {

constexpr std::string_view valid_keys_text =
    "threads, polling, park-timeout-us, task-budget, pin-threads, aggressive-attempts, "
    "moderate-attempts, moderate-sleep-us";

std::uint64_t parse_unsigned(std::string_view key, std::string_view value, std::uint64_t max) {
  std::uint64_t result = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), result);
  if (error != std::errc{} || end != value.data() + value.size() || result > max) {
    throw config_error("spate: invalid value '" + std::string(value) + "' for '" +
                       std::string(key) + "': expected a whole number from 0 to " +
                       std::to_string(max));
  }
  return result;
}

bool parse_bool(std::string_view key, std::string_view value) {
  if (value == "true" || value == "1" || value == "yes" || value == "on") return true;
  if (value == "false" || value == "0" || value == "no" || value == "off") return false;
  throw config_error("spate: invalid value '" + std::string(value) + "' for '" + std::string(key) +
                     "': expected true or false");
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
  return c;
}

scheduler_config scheduler_config::preset(std::string_view name) {
  if (name == "default") return default_preset();
  if (name == "spin") return spin();
  throw config_error("spate: unknown scheduler preset '" + std::string(name) +
                     "': expected default or spin");
}

void scheduler_config::set(std::string_view key, std::string_view value) {
  if (key == "threads") {
    threads = parse_unsigned(key, value, 4096);
  } else if (key == "polling") {
    const auto keep_threads = threads;
    const auto keep_pin = pin_threads;
    *this = preset(value);
    threads = keep_threads;
    pin_threads = keep_pin;
  } else if (key == "park-timeout-us") {
    park_timeout = std::chrono::microseconds{parse_unsigned(key, value, 60'000'000)};
  } else if (key == "task-budget") {
    task_budget = parse_unsigned(key, value, 1'000'000);
  } else if (key == "pin-threads") {
    pin_threads = parse_bool(key, value);
  } else if (key == "aggressive-attempts") {
    aggressive.attempts = static_cast<std::uint32_t>(parse_unsigned(key, value, UINT32_MAX));
  } else if (key == "moderate-attempts") {
    moderate.attempts = static_cast<std::uint32_t>(parse_unsigned(key, value, UINT32_MAX));
  } else if (key == "moderate-sleep-us") {
    moderate.sleep = std::chrono::microseconds{parse_unsigned(key, value, 1'000'000)};
  } else {
    throw config_error("spate: unknown scheduler option '" + std::string(key) +
                       "': valid options are " + std::string(valid_keys_text));
  }
  validate();
}

constexpr std::string_view all_keys[] = {"threads",           "polling",
                                         "park-timeout-us",   "task-budget",
                                         "pin-threads",       "aggressive-attempts",
                                         "moderate-attempts", "moderate-sleep-us"};

void scheduler_config::apply(const std::vector<setting>& settings) {
  // The preset first: it replaces the polling knobs that the other settings then adjust.
  const setting* polling = nullptr;
  for (const auto& s : settings) {
    if (s.first == "polling") polling = &s;
  }
  if (polling != nullptr) set(polling->first, polling->second);
  for (const auto& s : settings) {
    if (s.first != "polling") set(s.first, s.second);
  }
}

std::vector<scheduler_config::setting> scheduler_config::settings_from_environment() {
  std::vector<setting> settings;
  for (std::string_view key : all_keys) {
    std::string variable = "SPATE_";
    for (char c : key) variable += c == '-' ? '_' : static_cast<char>(std::toupper(c));
    if (const char* value = std::getenv(variable.c_str())) settings.emplace_back(key, value);
  }
  return settings;
}

std::vector<scheduler_config::setting> scheduler_config::settings_from_command_line(
    int argc, const char* const* argv, std::vector<std::string>* rest) {
  std::vector<setting> settings;
  constexpr std::string_view prefix = "--spate.";
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, prefix.size()) != prefix) {
      if (rest != nullptr) rest->emplace_back(arg);
      continue;
    }
    arg.remove_prefix(prefix.size());
    const auto equals = arg.find('=');
    if (equals == std::string_view::npos) {
      throw config_error("spate: option '--spate." + std::string(arg) +
                         "' needs a value (--spate.KEY=VALUE)");
    }
    settings.emplace_back(arg.substr(0, equals), arg.substr(equals + 1));
  }
  return settings;
}

void scheduler_config::apply_environment() {
  apply(settings_from_environment());
}

std::vector<std::string> scheduler_config::apply_command_line(int argc, const char* const* argv) {
  std::vector<std::string> rest;
  apply(settings_from_command_line(argc, argv, &rest));
  return rest;
}

void scheduler_config::validate() const {
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
