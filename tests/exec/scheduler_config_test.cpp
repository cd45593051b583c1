#include "spate/exec/scheduler_config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

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
