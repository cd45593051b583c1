#pragma once
// Scheduler configuration: polling strategies (reducing-message-latency paper, Table I) and
// the event-notified parking that replaces the paper's relaxed sleep (Sect. III).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "spate/platform/export.hpp"

namespace spate {

/// Thrown for an invalid configuration value; the message names the key, the value, the valid
/// range and, for a setting from the environment or the command line, the variable or option.
class SPATE_API config_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// One polling phase of an idle worker: `attempts` polls of its own queues, a steal attempt
/// every `steal_interval` polls, and a sleep of `sleep` between polls (zero: spin).
struct polling_strategy {
  std::uint32_t attempts = 0;          ///< polls in this phase (0: skip it)
  std::uint32_t steal_interval = 1;    ///< a steal attempt every this many polls
  std::chrono::microseconds sleep{0};  ///< between polls (zero: spin)
};

/// How the worker pool runs (the reducing-message-latency paper's polling phases, then
/// parking); see docs/scheduler.md for every knob and its key.
struct SPATE_API scheduler_config {
  std::size_t threads = 0;  ///< 0: one per available CPU
  /// First phase of an idle worker: spin-polling, stealing now and then.
  polling_strategy aggressive{100, 10, std::chrono::microseconds{0}};
  /// Second phase: polls with short sleeps (off by default: 0 attempts).
  polling_strategy moderate{0, 5, std::chrono::microseconds{1}};
  /// Without park_when_idle: the phase an idle worker stays in.
  polling_strategy relaxed{1, 1, std::chrono::microseconds{10'000}};
  /// true: after aggressive and moderate, park on the worker's event until it is woken (on
  /// enqueue, or when stealable work appears). false: use the relaxed strategy forever
  /// (CAF's behaviour).
  bool park_when_idle = true;
  /// Zero (the default): a parked worker sleeps until it is woken, so an idle pool uses no
  /// CPU. A positive value wakes it at least that often to look for work: a safety net that
  /// the wake-up protocol does not need (tests/stress checks it without one).
  std::chrono::microseconds park_timeout{0};
  std::size_t task_budget = 64;             ///< messages an activation may process before yielding
  std::size_t local_queue_capacity = 1024;  ///< tasks a worker's own queue holds before overflow
  bool pin_threads = false;                 ///< pin worker i to CPU i % available_cpus()
  std::string thread_name_prefix = "spate-worker";  ///< workers are named PREFIX-i
  /// The preset the polling knobs (aggressive, moderate, relaxed, park_when_idle) started
  /// from: "default" or "spin". The `polling` key uses it to tell the knobs the program
  /// changed (kept) from those still at the preset's values (replaced); see apply().
  std::string polling_preset = "default";

  /// Presets. `default_preset`: event-notified idling (tuned on a 2-vCPU VM). `spin`: never
  /// parks nor sleeps (lowest latency, 100% CPU per worker).
  static scheduler_config default_preset();
  /// Never parks nor sleeps.
  static scheduler_config spin();
  static scheduler_config preset(std::string_view name);  ///< "default" | "spin"

  /// Where a setting came from; config_error messages name it (`environment variable
  /// SPATE_THREADS`, `command-line option --spate.threads`).
  enum class setting_source {
    program,       ///< set in code (set(), apply() without a source)
    environment,   ///< a SPATE_KEY environment variable
    command_line,  ///< a `--spate.KEY=VALUE` argument
  };

  /// Settings as KEY=VALUE pairs. Keys: threads, polling (default|spin), park-timeout-us,
  /// task-budget, pin-threads, aggressive-attempts, moderate-attempts, moderate-sleep-us.
  /// `polling` is applied first wherever it stands, so the order of the settings does not
  /// matter; for a key given twice the later value wins. Throws config_error naming the
  /// setting's source, the key, the value and the valid range.
  ///
  /// A preset never overrides what the program set explicitly: `polling` touches only the
  /// polling knobs (never threads, pin-threads, task-budget, park-timeout-us, the queue
  /// capacity or the thread names), and of those only the ones that still hold the values of
  /// the preset they started from (`polling_preset`); a knob the program changed keeps its
  /// value. So `SPATE_POLLING=spin` over a program that set `aggressive.attempts = 7` spins
  /// with 7 aggressive attempts. Keys other than `polling` (`SPATE_TASK_BUDGET=…`) are
  /// explicit requests and do override the program. A knob set to exactly its preset's value
  /// cannot be told from one left alone.
  using setting = std::pair<std::string, std::string>;
  /// Applies settings (see above) that came from `source`.
  void apply(const std::vector<setting>& settings, setting_source source = setting_source::program);
  /// SPATE_KEY variables (SPATE_PARK_TIMEOUT_US for park-timeout-us), as settings.
  static std::vector<setting> settings_from_environment();
  /// One warning per SPATE_ environment variable that is neither a scheduler key nor one of
  /// the variables spate's tests and tools read (SPATE_STRESS_INJECT, SPATE_STRESS_ROUNDS,
  /// SPATE_DETERMINISM_RUNS, SPATE_DETERMINISM_TIMES, SPATE_KAFKA_BROKERS, SPATE_KAFKA_JARS,
  /// SPATE_CAF1_ROOT, SPATE_CAF1_TARBALL), naming the nearest key when one is close. A
  /// warning, not an error: the environment is inherited by every process, so a variable
  /// meant for another program must not stop this one. A runtime reports them to its
  /// error_reporter when one is set, else to the log at level warn (component "config").
  static std::vector<std::string> environment_warnings();
  /// Splits `--spate.KEY=VALUE` arguments from the others (returned in `rest`, argv[0]
  /// excluded); throws config_error for a `--spate.KEY` argument without a value or with an
  /// unknown KEY (naming the nearest valid one).
  static std::vector<setting> settings_from_command_line(int argc, const char* const* argv,
                                                         std::vector<std::string>* rest = nullptr);
  /// apply(settings_from_environment(), environment); returns environment_warnings() for the
  /// caller to print.
  std::vector<std::string> apply_environment();
  /// Applies the `--spate.KEY=VALUE` arguments; returns the other arguments.
  std::vector<std::string> apply_command_line(int argc, const char* const* argv);
  /// Applies one setting from `source`; throws config_error naming a bad key or value.
  void set(std::string_view key, std::string_view value,
           setting_source source = setting_source::program);

  /// Throws config_error when the combination is invalid.
  void validate() const;
  /// The worker count: `threads`, or the CPUs available to the process when it is 0.
  std::size_t effective_threads() const;
};

}  // namespace spate
