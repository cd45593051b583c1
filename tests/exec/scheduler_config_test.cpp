#include "spate/exec/scheduler_config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "spate/exec/runtime.hpp"

TEST(scheduler_config, command_line_overrides_and_leaves_other_arguments) {
  spate::scheduler_config c;
  const char* argv[] = {"prog", "--spate.threads=3", "--other", "--spate.park-timeout-us=500",
                        "file.txt"};
  auto rest = c.apply_command_line(5, argv);
  EXPECT_EQ(c.threads, 3u);
  EXPECT_EQ(c.park_timeout.count(), 500);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0], "--other");
  EXPECT_EQ(rest[1], "file.txt");
}

TEST(scheduler_config, environment_overrides) {
  setenv("SPATE_THREADS", "5", 1);
  setenv("SPATE_POLLING", "spin", 1);
  spate::scheduler_config c;
  c.apply_environment();
  unsetenv("SPATE_THREADS");
  unsetenv("SPATE_POLLING");
  EXPECT_EQ(c.threads, 5u);
  EXPECT_FALSE(c.park_when_idle);
}

TEST(scheduler_config, invalid_values_name_the_problem) {
  spate::scheduler_config c;
  try {
    c.set("threads", "many");
    FAIL() << "expected config_error";
  } catch (const spate::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("'threads'"), std::string::npos) << e.what();
  }
  try {
    c.set("thread", "2");
    FAIL() << "expected config_error";
  } catch (const spate::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("valid options are"), std::string::npos) << e.what();
  }
  EXPECT_THROW(c.set("polling", "lazy"), spate::config_error);
  EXPECT_THROW(c.set("task-budget", "0"), spate::config_error);
  const char* argv[] = {"prog", "--spate.threads"};
  EXPECT_THROW(c.apply_command_line(2, argv), spate::config_error);
}

TEST(scheduler_config, presets) {
  EXPECT_TRUE(spate::scheduler_config::preset("default").park_when_idle);
  EXPECT_FALSE(spate::scheduler_config::preset("spin").park_when_idle);
  EXPECT_GE(spate::scheduler_config{}.effective_threads(), 1u);
}

namespace {

// The message of the config_error `action` throws ("" when it throws none).
template <typename F>
std::string error_of(F&& action) {
  try {
    action();
  } catch (const spate::config_error& e) {
    return e.what();
  }
  return {};
}

// Sets an environment variable for one scope, so a failing assertion cannot leak it into
// the next test.
struct scoped_env {
  scoped_env(const char* name, const char* value) : name(name) { setenv(name, value, 1); }
  ~scoped_env() { unsetenv(name); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;
  const char* name;
};

}  // namespace

// Issue 23: SPATE_POLLING=default used to reset task_budget and park_timeout set in code.
TEST(scheduler_config, a_preset_keeps_what_the_program_set) {
  spate::scheduler_config c;
  c.task_budget = 7;
  c.park_timeout = std::chrono::microseconds{250};
  c.threads = 3;
  c.pin_threads = true;
  c.aggressive.attempts = 9;  // a polling knob changed from the default preset
  const scoped_env polling("SPATE_POLLING", "default");
  c.apply_environment();
  EXPECT_EQ(c.task_budget, 7u);
  EXPECT_EQ(c.park_timeout.count(), 250);
  EXPECT_EQ(c.threads, 3u);
  EXPECT_TRUE(c.pin_threads);
  EXPECT_EQ(c.aggressive.attempts, 9u);

  // spin replaces the knobs still at the default preset's values, keeps the one changed.
  const char* argv[] = {"prog", "--spate.polling=spin"};
  c.apply_command_line(2, argv);
  EXPECT_FALSE(c.park_when_idle);
  EXPECT_EQ(c.relaxed.sleep.count(), 0);
  EXPECT_EQ(c.moderate.steal_interval, 1u);
  EXPECT_EQ(c.aggressive.attempts, 9u);
  EXPECT_EQ(c.task_budget, 7u);
  EXPECT_EQ(c.polling_preset, "spin");
}

TEST(scheduler_config, a_later_preset_replaces_an_earlier_one) {
  // SPATE_POLLING=spin, then --spate.polling=default: the knobs spin set are the preset's,
  // not the program's, so default takes them back.
  spate::scheduler_config c;
  c.set("polling", "spin", spate::scheduler_config::setting_source::environment);
  c.set("polling", "default", spate::scheduler_config::setting_source::command_line);
  const auto d = spate::scheduler_config::default_preset();
  EXPECT_TRUE(c.park_when_idle);
  EXPECT_EQ(c.aggressive.attempts, d.aggressive.attempts);
  EXPECT_EQ(c.relaxed.sleep, d.relaxed.sleep);
  EXPECT_EQ(c.moderate.steal_interval, d.moderate.steal_interval);
  // A program that chose spin in code, then SPATE_POLLING=default: the program's choice is
  // the polling key's value, which the environment overrides like any other key.
  auto s = spate::scheduler_config::spin();
  s.task_budget = 5;
  s.set("polling", "default");
  EXPECT_TRUE(s.park_when_idle);
  EXPECT_EQ(s.task_budget, 5u);
}

TEST(scheduler_config, an_error_names_its_source_value_and_range) {
  {
    const scoped_env threads("SPATE_THREADS", "-1");
    spate::scheduler_config c;
    EXPECT_EQ(error_of([&] { c.apply_environment(); }),
              "spate: invalid value '-1' for 'threads' (environment variable SPATE_THREADS): "
              "expected a whole number from 0 to 4096");
  }
  spate::scheduler_config c;
  const char* argv[] = {"prog", "--spate.threads=-1"};
  EXPECT_EQ(error_of([&] { c.apply_command_line(2, argv); }),
            "spate: invalid value '-1' for 'threads' (command-line option --spate.threads): "
            "expected a whole number from 0 to 4096");
  EXPECT_EQ(error_of([&] { c.set("threads", "-1"); }),
            "spate: invalid value '-1' for 'threads': expected a whole number from 0 to 4096");
  const char* budget[] = {"prog", "--spate.task-budget=0"};
  EXPECT_EQ(error_of([&] { c.apply_command_line(2, budget); }),
            "spate: invalid value '0' for 'task-budget' (command-line option "
            "--spate.task-budget): expected a whole number from 1 to 1000000");
  const char* polling[] = {"prog", "--spate.polling=lazy"};
  EXPECT_EQ(error_of([&] { c.apply_command_line(2, polling); }),
            "spate: invalid value 'lazy' for 'polling' (command-line option --spate.polling): "
            "expected default or spin");
  const scoped_env pin("SPATE_PIN_THREADS", "maybe");
  EXPECT_EQ(error_of([&] { c.apply_environment(); }),
            "spate: invalid value 'maybe' for 'pin-threads' (environment variable "
            "SPATE_PIN_THREADS): expected true or false");
}

TEST(scheduler_config, a_misspelled_command_line_option_is_an_error_naming_the_nearest) {
  const char* argv[] = {"prog", "--spate.thread=2", "input.txt"};
  EXPECT_EQ(error_of([&] { spate::scheduler_config::settings_from_command_line(3, argv); }),
            "spate: unknown command-line option --spate.thread (did you mean --spate.threads?): "
            "valid options are threads, polling, park-timeout-us, task-budget, pin-threads, "
            "aggressive-attempts, moderate-attempts, moderate-sleep-us");
  // Nothing close: no guess, still the list.
  const char* far[] = {"prog", "--spate.colour=blue"};
  const std::string text =
      error_of([&] { spate::scheduler_config::settings_from_command_line(2, far); });
  EXPECT_EQ(text.rfind("spate: unknown command-line option --spate.colour: valid options are", 0),
            0u)
      << text;
  // Unknown even without a value: the key is what is wrong.
  const char* bare[] = {"prog", "--spate.park-timeout"};
  EXPECT_NE(error_of([&] {
              spate::scheduler_config::settings_from_command_line(2, bare);
            }).find("did you mean --spate.park-timeout-us?"),
            std::string::npos);
}

TEST(scheduler_config, a_misspelled_environment_variable_is_a_warning_naming_the_nearest) {
  const scoped_env typo("SPATE_THREDS", "4");
  const scoped_env kafka("SPATE_KAFKA_BROKERS", "localhost:9092");  // read by tests/kafka
  const scoped_env runs("SPATE_DETERMINISM_RUNS", "2");             // read by tests/reactor
  spate::scheduler_config c;
  // Only the warnings about the variables set here: the environment the test runs in may
  // hold others.
  auto about = [](const std::vector<std::string>& warnings, const std::string& name) {
    std::vector<std::string> found;
    for (const auto& w : warnings) {
      if (w.find(" " + name + " ") != std::string::npos ||
          w.find(" " + name + ":") != std::string::npos) {
        found.push_back(w);
      }
    }
    return found;
  };
  const auto warnings = c.apply_environment();
  const auto typo_warnings = about(warnings, "SPATE_THREDS");
  ASSERT_EQ(typo_warnings.size(), 1u);
  EXPECT_EQ(typo_warnings[0].rfind("spate: ignoring unknown environment variable SPATE_THREDS "
                                   "(did you mean SPATE_THREADS?): scheduler variables are",
                                   0),
            0u)
      << typo_warnings[0];
  EXPECT_TRUE(about(warnings, "SPATE_KAFKA_BROKERS").empty());
  EXPECT_TRUE(about(warnings, "SPATE_DETERMINISM_RUNS").empty());
  EXPECT_EQ(c.threads, 0u);                            // not applied
  const scoped_env mine("SPATE_MY_APP_MODE", "fast");  // nothing close: no guess
  const auto more = about(spate::scheduler_config::environment_warnings(), "SPATE_MY_APP_MODE");
  ASSERT_EQ(more.size(), 1u);
  EXPECT_EQ(more[0].rfind("spate: ignoring unknown environment variable SPATE_MY_APP_MODE: "
                          "scheduler variables are",
                          0),
            0u)
      << more[0];
}

// The case end to end: the program sets task_budget and park_timeout, the operator
// exports SPATE_POLLING=default, a misspelled variable and passes --spate.polling=spin.
TEST(scheduler_config, a_runtime_keeps_the_program_settings_and_reports_misspelled_variables) {
  const scoped_env polling("SPATE_POLLING", "default");
  const scoped_env typo("SPATE_TASK_BUDGT", "3");
  const char* argv[] = {"prog", "--spate.polling=spin"};
  auto config = spate::runtime_config::from_command_line(2, argv);
  config.scheduler.threads = 1;
  config.scheduler.task_budget = 7;
  config.scheduler.park_timeout = std::chrono::microseconds{250};
  std::vector<std::string> reported;
  config.error_reporter = [&](const std::string& text) { reported.push_back(text); };
  spate::runtime rt(config);
  EXPECT_EQ(rt.config().scheduler.task_budget, 7u);
  EXPECT_EQ(rt.config().scheduler.park_timeout.count(), 250);
  EXPECT_FALSE(rt.config().scheduler.park_when_idle);  // spin, from the command line
  std::size_t about_typo = 0;
  for (const auto& text : reported) {
    if (text.find("SPATE_TASK_BUDGT (did you mean SPATE_TASK_BUDGET?)") != std::string::npos) {
      ++about_typo;
    }
  }
  EXPECT_EQ(about_typo, 1u);
}

TEST(scheduler_config, a_runtime_names_the_source_of_a_bad_setting) {
  spate::runtime_config config;
  config.read_environment = false;
  config.command_line = {{"threads", "-1"}};
  EXPECT_EQ(error_of([&] { spate::runtime rt(config); }),
            "spate: invalid value '-1' for 'threads' (command-line option --spate.threads): "
            "expected a whole number from 0 to 4096");
  const scoped_env threads("SPATE_THREADS", "-1");
  config.read_environment = true;
  config.command_line.clear();
  EXPECT_EQ(error_of([&] { spate::runtime rt(config); }),
            "spate: invalid value '-1' for 'threads' (environment variable SPATE_THREADS): "
            "expected a whole number from 0 to 4096");
}
