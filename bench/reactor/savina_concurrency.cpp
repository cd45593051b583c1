// Savina's concurrency benchmarks philosopher, concdict and logmap as spate reactors (impl
// `spate-reactor`), structured as Lingua Franca's benchmark suite writes them
// (lf-lang/benchmarks-lingua-franca, Cpp/Savina/src/concurrency): the central reactor (the
// arbitrator, the dictionary, the manager) answers a tag's requests one microstep later
// through its logical action, the one loop breaker; banks and multiports stand for the
// actors' references. In lock-step a client has one request per tag, so these runs send far
// fewer messages than the actor versions (philosophers retry once per round, not as fast as
// they are denied) and are deterministic. Inputs and checks: bench/savina/savina_workloads.hpp.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../savina/savina_checks.hpp"
#include "../savina/savina_workloads.hpp"
#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;
using namespace savina;

// ---------------------------------------------------------------- philosopher
// The arbitrator grants, in each round, every hungry philosopher whose two forks are free,
// starting from a rotating philosopher so that none is always last.

struct ph_philosopher : reactor {
  input<void> eat{this, "eat"};
  input<void> denied{this, "denied"};
  output<void> hungry{this, "hungry"};
  output<void> done{this, "done"};
  std::int64_t meals = 0, denials = 0;

  ph_philosopher(context ctx, std::int64_t rounds) : reactor(ctx) {
    reaction("start").triggers(startup).effects(hungry).body(
        [](port_writer<void>& hungry) { hungry.set(); });
    reaction("eat")
        .triggers(eat)
        .effects(done, hungry)
        .body([this, rounds](port_writer<void>& done, port_writer<void>& hungry) {
          ++meals;
          done.set();
          if (meals < rounds) hungry.set();
        });
    reaction("denied").triggers(denied).effects(hungry).body([this](port_writer<void>& hungry) {
      ++denials;
      hungry.set();
    });
  }
};

struct ph_arbitrator : reactor {
  logical_action<void> send_replies{this, "send_replies"};
  multiport_input<void> hungry, done;
  multiport_output<void> eat, denied;
  enum class answer : std::uint8_t { none, eat, denied };
  std::vector<bool> fork_taken;
  std::vector<answer> answers;
  std::size_t first = 0;  ///< where the next round's grants start
  std::int64_t conflicts = 0;

  ph_arbitrator(context ctx, std::size_t count)
      : reactor(ctx),
        hungry{this, "hungry", count},
        done{this, "done", count},
        eat{this, "eat", count},
        denied{this, "denied", count},
        fork_taken(count, false),
        answers(count, answer::none) {
    // Declared first: the replies of one microstep cause the done and hungry inputs of the
    // same microstep (through the philosophers), so they must come before them.
    reaction("reply")
        .triggers(send_replies)
        .effects(eat, denied)
        .body([this](multiport_writer<void>& eat, multiport_writer<void>& denied) {
          for (std::size_t i = 0; i < answers.size(); ++i) {
            if (answers[i] == answer::eat) eat[i].set();
            if (answers[i] == answer::denied) denied[i].set();
            answers[i] = answer::none;
          }
        });
    reaction("release").triggers(done).body([this] {
      for (std::size_t i = 0; i < done.size(); ++i) {
        if (!done[i].is_present()) continue;
        const std::size_t right = (i + 1) % fork_taken.size();
        if (!fork_taken[i] || !fork_taken[right]) ++conflicts;
        fork_taken[i] = fork_taken[right] = false;
      }
    });
    reaction("grant")
        .triggers(hungry)
        .effects(send_replies)
        .body([this](action_scheduler<void>& replies) {
          const std::size_t n = fork_taken.size();
          for (std::size_t k = 0; k < n; ++k) {
            const std::size_t i = (first + k) % n, right = (i + 1) % n;
            if (!hungry[i].is_present()) continue;
            if (fork_taken[i] || fork_taken[right]) {
              answers[i] = answer::denied;
            } else {
              fork_taken[i] = fork_taken[right] = true;
              answers[i] = answer::eat;
            }
          }
          first = (first + 1) % n;
          replies.schedule();
        });
  }
};

struct ph_program : reactor {
  ph_arbitrator arbitrator;
  bank<ph_philosopher> philosophers;
  ph_program(context ctx, std::size_t count, std::int64_t rounds)
      : reactor(ctx),
        arbitrator{{this, "arbitrator"}, count},
        philosophers{this, "philosophers", count, rounds} {
    connect(philosophers.ports(&ph_philosopher::hungry), arbitrator.hungry);
    connect(philosophers.ports(&ph_philosopher::done), arbitrator.done);
    connect(arbitrator.eat, philosophers.ports(&ph_philosopher::eat));
    connect(arbitrator.denied, philosophers.ports(&ph_philosopher::denied));
  }
};

json philosopher_bench(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const philosopher_case c(p);
  std::int64_t denials = 0;  // deterministic: the same on every worker count and mode
  json m = savina_iterations(p, [&] {
    return reactor_iteration<ph_program>(
        rt, p,
        [&](ph_program& program) {
          ph_result result = c.new_result();
          for (std::size_t i = 0; i < result.meals.size(); ++i) {
            result.meals[i] = program.philosophers[i].meals;
            result.denials += program.philosophers[i].denials;
          }
          result.conflicts = program.arbitrator.conflicts;
          result.forks_free_at_end =
              std::none_of(program.arbitrator.fork_taken.begin(),
                           program.arbitrator.fork_taken.end(), [](bool taken) { return taken; });
          c.check(result);
          denials = result.denials;
        },
        std::size_t(c.count), c.rounds);
  });
  m["result"] = denials;
  return m;
}

// ---------------------------------------------------------------- concdict
// Each worker has one request at a time; the dictionary serves a tag's requests in worker
// order and answers them one microstep later.

struct cd_worker : reactor {
  output<dictionary_operation> request{this, "request"};
  input<std::uint64_t> response{this, "response"};
  random64 random;
  std::int64_t messages, write_percent;
  bool last_was_write = false;
  std::uint64_t replies = 0, written_sum = 0, read_sum = 0;

  cd_worker(context ctx, std::int64_t messages, std::int64_t write_percent)
      : reactor(ctx),
        random(dictionary_random(std::int64_t(bank_index()))),
        messages(messages),
        write_percent(write_percent) {
    reaction("start").triggers(startup).effects(request).body(
        [this](port_writer<dictionary_operation>& out) { ask(out); });
    reaction("answer").triggers(response).effects(request).body(
        [this](port_writer<dictionary_operation>& out) {
          (last_was_write ? written_sum : read_sum) += response.get();
          if (++replies < std::uint64_t(this->messages)) ask(out);
        });
  }
  void ask(port_writer<dictionary_operation>& out) {
    const auto op = next_dictionary_operation(random, write_percent);
    last_was_write = op.write;
    out.set(op);
  }
};

struct cd_dictionary : reactor {
  logical_action<void> send_answers{this, "send_answers"};
  multiport_input<dictionary_operation> requests;
  multiport_output<std::uint64_t> responses;
  dictionary map;
  std::vector<std::optional<std::uint64_t>> answers;

  cd_dictionary(context ctx, std::size_t workers, const dictionary& prefill)
      : reactor(ctx),
        requests{this, "requests", workers},
        responses{this, "responses", workers},
        map(prefill),
        answers(workers) {
    reaction("answer")
        .triggers(send_answers)
        .effects(responses)
        .body([this](multiport_writer<std::uint64_t>& out) {
          for (std::size_t i = 0; i < answers.size(); ++i) {
            if (answers[i]) out[i].set(*answers[i]);
            answers[i].reset();
          }
        });
    reaction("serve")
        .triggers(requests)
        .effects(send_answers)
        .body([this](action_scheduler<void>& later) {
          for (std::size_t i = 0; i < requests.size(); ++i) {
            if (!requests[i].is_present()) continue;
            const dictionary_operation& op = requests[i].get();
            if (op.write) {
              map[op.key] = op.value;
              answers[i] = op.value;
            } else {
              const auto it = map.find(op.key);
              answers[i] = it == map.end() ? 0 : it->second;
            }
          }
          later.schedule();
        });
  }
};

struct cd_program : reactor {
  cd_dictionary dict;
  bank<cd_worker> workers;
  cd_program(context ctx, std::size_t count, std::int64_t messages, std::int64_t write_percent,
             const dictionary& prefill)
      : reactor(ctx),
        dict{{this, "dictionary"}, count, prefill},
        workers{this, "workers", count, messages, write_percent} {
    connect(workers.ports(&cd_worker::request), dict.requests);
    connect(dict.responses, workers.ports(&cd_worker::response));
  }
};

json concdict(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const concdict_case c(p);
  // What the reads saw and what the dictionary ends with: deterministic as reactors (a tag's
  // requests are served in worker order), the same on every worker count and mode.
  std::uint64_t digest = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<cd_program>(
        rt, p,
        [&](cd_program& program) {
          std::uint64_t replies = 0, echoed = 0;
          digest = 0;
          for (std::size_t i = 0; i < std::size_t(c.workers); ++i) {
            replies += program.workers[i].replies;
            echoed += program.workers[i].written_sum;
            digest += program.workers[i].read_sum * (2 * i + 1);
          }
          for (const auto& [key, value] : program.dict.map) digest += (key + 1) * value;
          c.check(dict_result{replies, echoed, std::move(program.dict.map)});
        },
        std::size_t(c.workers), c.messages, c.write_percent, c.prefill);
  });
  m["result"] = digest;
  return m;
}

// ---------------------------------------------------------------- logmap
// Each series worker contains its rate computer: a term is asked, computed and taken in one
// tag, and the manager's action starts the next term.

struct lm_computer : reactor {
  input<double> x{this, "x"};
  output<double> next{this, "next"};
  lm_computer(context ctx, double rate) : reactor(ctx) {
    reaction("compute").triggers(x).effects(next).body(
        [this, rate](port_writer<double>& out) { out.set(logistic_step(rate, x.get())); });
  }
};

struct lm_series : reactor {
  input<void> next_term{this, "next_term"};
  input<void> get_term{this, "get_term"};
  output<double> term{this, "term"};
  lm_computer computer;
  double x;
  std::int64_t terms = 0;

  lm_series(context ctx, double start_rate)
      : reactor(ctx),
        computer{{this, "computer"}, series_rate(start_rate, std::int64_t(bank_index()))},
        x(series_start(std::int64_t(bank_index()))) {
    reaction("ask").triggers(next_term).effects(computer.x).body([this](port_writer<double>& out) {
      out.set(x);
    });
    reaction("take").triggers(computer.next).body([this] {
      x = computer.next.get();
      ++terms;
    });
    reaction("report").triggers(get_term).effects(term).body(
        [this](port_writer<double>& out) { out.set(x); });
  }
};

struct lm_program : reactor {
  logical_action<void> next{this, "next"};
  bank<lm_series> series;
  std::int64_t terms, sent = 0;
  double sum = 0;

  lm_program(context ctx, std::size_t count, std::int64_t terms, double start_rate)
      : reactor(ctx), series{this, "series", count, start_rate}, terms(terms) {
    reaction("start").triggers(startup).effects(next).body(
        [](action_scheduler<void>& next) { next.schedule(); });
    reaction("step")
        .triggers(next)
        .effects(series.ports(&lm_series::next_term), series.ports(&lm_series::get_term), next)
        .body([this](multiport_writer<void>& next_term, multiport_writer<void>& get_term,
                     action_scheduler<void>& again) {
          if (sent == this->terms) {
            for (auto& w : get_term) w.set();
            return;
          }
          for (auto& w : next_term) w.set();
          ++sent;
          again.schedule();
        });
    reaction("sum").triggers(series.ports(&lm_series::term)).body([this] {
      for (std::size_t i = 0; i < series.size(); ++i) sum += series[i].term.get();
    });
  }
};

json logmap(const bench_params& p) {
  spate::runtime rt{reactor_runtime_config(p)};
  const logmap_case c(p);
  double reported = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<lm_program>(
        rt, p,
        [&](lm_program& program) {
          // The sum in series order, as the actor versions' masters add it.
          std::vector<lm_term> results;
          for (std::size_t i = 0; i < std::size_t(c.series); ++i) {
            results.push_back({std::int32_t(i), program.series[i].x, program.series[i].terms});
          }
          c.check(results);
          require(program.sum == c.expected, "logmap", "the reported terms' sum differs");
          reported = program.sum;
        },
        std::size_t(c.series), c.terms, c.rate);
  });
  m["result"] = reported;  // checked equal to the sequential sum, bit for bit
  return m;
}

}  // namespace

void register_spate_reactor_concurrency(bench_registry& r) {
  r.implement("philosopher", "spate-reactor", philosopher_bench);
  r.implement("concdict", "spate-reactor", concdict);
  r.implement("logmap", "spate-reactor", logmap);
}

}  // namespace spate_bench
