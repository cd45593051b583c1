// Savina's micro benchmarks forkjoin (throughput), chameneos and big as spate reactors (impl
// `spate-reactor`), structured as Lingua Franca's benchmark suite writes them
// (lf-lang/benchmarks-lingua-franca, Cpp/Savina/src/micro: Throughput.lf, Chameneos.lf,
// Big.lf): banks of workers, multiports where an actor would hold references (big and
// chameneos wire every worker to every other, as LF's `interleaved` connections do), and
// one logical action wherever a request comes back to its sender, the loop breaker. Every
// run is deterministic: the same `result` on any worker count and in either mode.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../savina/savina_checks.hpp"
#include "../savina/savina_support.hpp"
#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;
using namespace savina;

// ---------------------------------------------------------------- forkjoin (throughput)
// The producer broadcasts one message to every worker per microstep, n times (LF's
// `(producer.out)+ -> workers.in`); a worker does Savina's small computation per message.

struct fj_producer : reactor {
  logical_action<void> send_next{this, "send_next"};
  output<void> message{this, "message"};
  std::int64_t total, sent = 0;

  fj_producer(context ctx, std::int64_t total) : reactor(ctx), total(total) {
    reaction("start").triggers(startup).effects(send_next).body(
        [](action_scheduler<void>& next) { next.schedule(); });
    reaction("send")
        .triggers(send_next)
        .effects(message, send_next)
        .body([this](port_writer<void>& message, action_scheduler<void>& next) {
          message.set();
          if (++sent < this->total) next.schedule();
        });
  }
};

struct fj_worker : reactor {
  input<void> message{this, "message"};
  std::int64_t received = 0;
  double sink = 0;  // the computations' results, kept (and checked) so none is optimised away

  explicit fj_worker(context ctx) : reactor(ctx) {
    // Savina's ThroughputConfig.performComputation is ForkJoinConfig's: sin²(37.2).
    reaction("compute").triggers(message).body([this] {
      ++received;
      sink += fjcreate_case::compute(fjcreate_case::theta);
    });
  }
};

struct fj_program : reactor {
  fj_producer producer;
  bank<fj_worker> workers;
  fj_program(context ctx, std::size_t count, std::int64_t n)
      : reactor(ctx), producer{{this, "producer"}, n}, workers{this, "workers", count} {
    connect(broadcast(port_list<void>(producer.message)), workers.ports(&fj_worker::message));
  }
};

json forkjoin(const bench_params& p) {
  const auto workers = p.integer("workers");
  const auto n = p.integer("n");
  if (workers < 1 || n < 1) {
    throw usage_error("forkjoin needs workers, n >= 1 (workers=" + std::to_string(workers) +
                      ", n=" + std::to_string(n) + ")");
  }
  // What every worker must end with: n results added in order, as the worker adds them.
  double expected_sink = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    expected_sink += fjcreate_case::compute(fjcreate_case::theta);
  }
  spate::runtime rt{reactor_runtime_config(p)};
  std::int64_t handled = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<fj_program>(
        rt, p,
        [&](fj_program& program) {
          handled = 0;
          for (std::size_t i = 0; i < program.workers.size(); ++i) {
            const fj_worker& w = program.workers[i];
            require(w.received == n, "forkjoin",
                    "worker " + std::to_string(i) + " handled " + std::to_string(w.received) +
                        " messages, expected " + std::to_string(n));
            require(w.sink == expected_sink, "forkjoin",
                    "worker " + std::to_string(i) + "'s results differ from the sequential sum");
            handled += w.received;
          }
        },
        std::size_t(workers), n);
  });
  m["result"] = handled;
  return m;
}

// ---------------------------------------------------------------- chameneos
// The mall keeps each chameneo's latest request and, one microstep after they arrive (its
// logical action), pairs the waiting ones: the first of a pair gets the second's request
// and tells the second its new colour directly (the chameneos' all-to-all mesh). LF's mall
// pairs in index order from 0 every time, so the same pairs always meet and colours stop
// changing after the first round; here each round starts one chameneo further on (as the
// philosophers' arbitrator does), so colours keep changing and their bookkeeping is checked.

enum class ch_color : std::uint8_t { red, yellow, blue, faded };
ch_color complement(ch_color a, ch_color b) {
  if (a == ch_color::faded || b == ch_color::faded) return ch_color::faded;
  if (a == b) return a;
  return static_cast<ch_color>(3 - int(a) - int(b));
}

enum class ch_kind : std::uint8_t { start, meet, exit, meeting_count };
struct ch_message {
  ch_kind kind;
  ch_color color;
  std::int64_t value;  ///< meet: the sender's index; meeting_count: its meetings
};

struct ch_chameneo : reactor {
  input<ch_message> from_mall{this, "from_mall"};
  output<ch_message> to_mall{this, "to_mall"};
  multiport_output<ch_color> to_peers;
  multiport_input<ch_color> from_peers;
  ch_color color, color_at_exit = ch_color::faded;
  std::int64_t meetings = 0;

  ch_chameneo(context ctx, std::size_t count)
      : reactor(ctx),
        to_peers{this, "to_peers", count},
        from_peers{this, "from_peers", count},
        color(static_cast<ch_color>(bank_index() % 3)) {
    reaction("mall")
        .triggers(from_mall)
        .effects(to_mall, to_peers)
        .body([this](port_writer<ch_message>& mall, multiport_writer<ch_color>& peers) {
          const ch_message& m = from_mall.get();
          switch (m.kind) {
            case ch_kind::start:
              break;
            case ch_kind::meet:
              color = complement(color, m.color);
              ++meetings;
              peers[std::size_t(m.value)].set(color);
              break;
            case ch_kind::exit:
              color_at_exit = color;
              color = ch_color::faded;
              mall.set(ch_message{ch_kind::meeting_count, color, meetings});
              return;
            case ch_kind::meeting_count:
              break;
          }
          mall.set(ch_message{ch_kind::meet, color, std::int64_t(bank_index())});
        });
    reaction("change")
        .triggers(from_peers)
        .effects(to_mall)
        .body([this](port_writer<ch_message>& mall) {
          for (const std::size_t i : from_peers.present_indices()) {
            color = from_peers[i].get();
            ++meetings;
          }
          mall.set(ch_message{ch_kind::meet, color, std::int64_t(bank_index())});
        });
  }
};

struct ch_mall : reactor {
  logical_action<void> pair{this, "pair"};
  multiport_output<ch_message> to_chameneos;
  multiport_input<ch_message> from_chameneos;
  std::vector<std::optional<ch_message>> waiting;
  std::int64_t meetings_left, meetings_held = 0, reported_meetings = 0;
  std::size_t first = 0, faded = 0;

  ch_mall(context ctx, std::size_t count, std::int64_t meetings)
      : reactor(ctx),
        to_chameneos{this, "to_chameneos", count},
        from_chameneos{this, "from_chameneos", count},
        waiting(count),
        meetings_left(meetings) {
    reaction("start")
        .triggers(startup)
        .effects(to_chameneos)
        .body([](multiport_writer<ch_message>& out) {
          for (auto& w : out) w.set(ch_message{ch_kind::start, ch_color::faded, 0});
        });
    reaction("pair")
        .triggers(pair)
        .effects(to_chameneos)
        .body([this](multiport_writer<ch_message>& out) {
          const std::size_t n = waiting.size();
          std::optional<std::size_t> partner;
          for (std::size_t k = 0; k < n; ++k) {
            const std::size_t i = (first + k) % n;
            if (!waiting[i]) continue;
            if (meetings_left == 0) {  // no meetings left: every chameneo that comes fades
              out[i].set(ch_message{ch_kind::exit, ch_color::faded, 0});
              waiting[i].reset();
            } else if (!partner) {
              partner = i;
            } else {
              --meetings_left;
              ++meetings_held;
              out[*partner].set(*waiting[i]);
              waiting[*partner].reset();
              waiting[i].reset();
              partner.reset();
            }
          }
          first = (first + 1) % n;
        });
    reaction("collect")
        .triggers(from_chameneos)
        .effects(pair)
        .body([this](action_scheduler<void>& next) {
          for (const std::size_t i : from_chameneos.present_indices()) {
            const ch_message& m = from_chameneos[i].get();
            if (m.kind == ch_kind::meeting_count) {
              ++faded;
              reported_meetings += m.value;
            } else {
              waiting[i] = m;
            }
          }
          if (faded < waiting.size()) next.schedule();
        });
  }
};

struct ch_program : reactor {
  ch_mall mall;
  bank<ch_chameneo> chameneos;
  ch_program(context ctx, std::size_t count, std::int64_t meetings)
      : reactor(ctx),
        mall{{this, "mall"}, count, meetings},
        chameneos{this, "chameneos", count, count} {
    connect(chameneos.ports(&ch_chameneo::to_mall), mall.from_chameneos);
    connect(mall.to_chameneos, chameneos.ports(&ch_chameneo::from_mall));
    connect(chameneos.ports(&ch_chameneo::to_peers),
            chameneos.interleaved(&ch_chameneo::from_peers));
  }
};

/// What each chameneo must end with, replayed from the mall's rule: every round all of them
/// are waiting (a pair's two requests are back before the next round), and pairs form in
/// order from the round's first chameneo until the meetings run out.
struct ch_expected {
  std::vector<ch_color> colors;
  std::vector<std::int64_t> meetings;
};
ch_expected replay_chameneos(std::size_t count, std::int64_t meetings) {
  ch_expected e;
  for (std::size_t i = 0; i < count; ++i) e.colors.push_back(static_cast<ch_color>(i % 3));
  e.meetings.assign(count, 0);
  for (std::size_t first = 0; meetings > 0; first = (first + 1) % count) {
    for (std::size_t k = 0; k + 1 < count && meetings > 0; k += 2) {
      const std::size_t a = (first + k) % count, b = (first + k + 1) % count;
      e.colors[a] = e.colors[b] = complement(e.colors[a], e.colors[b]);
      ++e.meetings[a];
      ++e.meetings[b];
      --meetings;
    }
  }
  return e;
}

/// (red - yellow, yellow - blue) mod 3: a meeting of two colours turns both into the third,
/// which changes each count difference by a multiple of 3, so this never changes.
std::pair<int, int> color_invariant(const std::vector<ch_color>& colors) {
  int count[3] = {0, 0, 0};
  for (const ch_color c : colors) ++count[int(c)];
  return {((count[0] - count[1]) % 3 + 3) % 3, ((count[1] - count[2]) % 3 + 3) % 3};
}

json chameneos(const bench_params& p) {
  const auto count = p.integer("chameneos");
  const auto meetings = p.integer("meetings");
  // meetings < 0 would never reach 0 in the mall: it would pair the chameneos forever.
  if (count < 2 || meetings < 0) {
    throw usage_error("chameneos needs chameneos >= 2, meetings >= 0 (chameneos=" +
                      std::to_string(count) + ", meetings=" + std::to_string(meetings) + ")");
  }
  const ch_expected expected = replay_chameneos(std::size_t(count), meetings);
  std::vector<ch_color> initial;
  for (std::int64_t i = 0; i < count; ++i) initial.push_back(static_cast<ch_color>(i % 3));
  spate::runtime rt{reactor_runtime_config(p)};
  std::uint64_t digest = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<ch_program>(
        rt, p,
        [&](ch_program& program) {
          const ch_mall& mall = program.mall;
          require(mall.meetings_held == meetings, "chameneos",
                  std::to_string(mall.meetings_held) + " meetings, expected " +
                      std::to_string(meetings));
          require(
              mall.faded == std::size_t(count), "chameneos",
              std::to_string(mall.faded) + " chameneos faded, expected " + std::to_string(count));
          require(mall.reported_meetings == 2 * meetings, "chameneos",
                  "the chameneos report " + std::to_string(mall.reported_meetings) +
                      " meetings, expected " + std::to_string(2 * meetings));
          std::vector<ch_color> colors;
          digest = 0;
          for (std::size_t i = 0; i < std::size_t(count); ++i) {
            const ch_chameneo& c = program.chameneos[i];
            require(c.meetings == expected.meetings[i] && c.color_at_exit == expected.colors[i],
                    "chameneos",
                    "chameneo " + std::to_string(i) + " met " + std::to_string(c.meetings) +
                        " times and ended " + std::to_string(int(c.color_at_exit)) + ", expected " +
                        std::to_string(expected.meetings[i]) + " and " +
                        std::to_string(int(expected.colors[i])));
            colors.push_back(c.color_at_exit);
            digest += (i + 1) * (std::uint64_t(c.meetings) * 4 + std::uint64_t(c.color_at_exit));
          }
          require(color_invariant(colors) == color_invariant(initial), "chameneos",
                  "the colour counts changed other than by meetings");
        },
        std::size_t(count), meetings);
  });
  m["result"] = digest;
  return m;
}

// ---------------------------------------------------------------- big
// Every worker pings a random peer (maybe itself) and waits for its pong before the next
// ping, which its logical action sends one microstep later; pings and pongs travel over the
// all-to-all mesh of multiports (LF's `worker.outPing -> interleaved(worker.inPing)`). A
// sink counts the workers that are done.

inline random64 big_random(std::size_t worker) {
  return random64(0xB16'0000ull + worker);
}

struct big_worker : reactor {
  logical_action<void> next{this, "next"};
  multiport_output<void> out_ping, out_pong;
  multiport_input<void> in_ping, in_pong;
  output<void> finished{this, "finished"};
  random64 random;
  std::int64_t pings, sent = 0, pongs = 0, unexpected = 0, pinged = 0;
  std::size_t expected_pong = 0;

  big_worker(context ctx, std::size_t workers, std::int64_t pings)
      : reactor(ctx),
        out_ping{this, "out_ping", workers},
        out_pong{this, "out_pong", workers},
        in_ping{this, "in_ping", workers},
        in_pong{this, "in_pong", workers},
        random(big_random(bank_index())),
        pings(pings) {
    reaction("start").triggers(startup).effects(next).body(
        [](action_scheduler<void>& next) { next.schedule(); });
    reaction("ping").triggers(next).effects(out_ping).body([this](multiport_writer<void>& out) {
      expected_pong = std::size_t(random.below(out.size()));
      ++sent;
      out[expected_pong].set();
    });
    reaction("pong").triggers(in_ping).effects(out_pong).body([this](multiport_writer<void>& out) {
      for (const std::size_t i : in_ping.present_indices()) {
        ++pinged;
        out[i].set();
      }
    });
    reaction("answered")
        .triggers(in_pong)
        .effects(next, finished)
        .body([this](action_scheduler<void>& next, port_writer<void>& done) {
          for (const std::size_t i : in_pong.present_indices()) {
            ++pongs;
            if (i != expected_pong) ++unexpected;
          }
          if (sent == this->pings) {
            done.set();
          } else {
            next.schedule();
          }
        });
  }
};

struct big_sink : reactor {
  multiport_input<void> finished;
  std::size_t done = 0;
  big_sink(context ctx, std::size_t workers) : reactor(ctx), finished{this, "finished", workers} {
    reaction("count").triggers(finished).body(
        [this] { done += finished.present_indices().size(); });
  }
};

struct big_program : reactor {
  bank<big_worker> workers;
  big_sink sink;
  big_program(context ctx, std::size_t count, std::int64_t pings)
      : reactor(ctx), workers{this, "workers", count, count, pings}, sink{{this, "sink"}, count} {
    connect(workers.ports(&big_worker::out_ping), workers.interleaved(&big_worker::in_ping));
    connect(workers.ports(&big_worker::out_pong), workers.interleaved(&big_worker::in_pong));
    connect(workers.ports(&big_worker::finished), sink.finished);
  }
};

json big(const bench_params& p) {
  const auto workers = p.integer("workers");
  const auto n = p.integer("n");
  if (workers < 1 || n < 1) {
    throw usage_error("big needs workers, n >= 1 (workers=" + std::to_string(workers) +
                      ", n=" + std::to_string(n) + ")");
  }
  // How many pings each worker receives depends only on the others' generators: replayed.
  std::vector<std::int64_t> expected_pinged(std::size_t(workers), 0);
  for (std::size_t w = 0; w < std::size_t(workers); ++w) {
    random64 random = big_random(w);
    for (std::int64_t i = 0; i < n; ++i) ++expected_pinged[random.below(std::uint64_t(workers))];
  }
  spate::runtime rt{reactor_runtime_config(p)};
  std::uint64_t digest = 0;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<big_program>(
        rt, p,
        [&](big_program& program) {
          require(program.sink.done == std::size_t(workers), "big",
                  std::to_string(program.sink.done) + " workers finished, expected " +
                      std::to_string(workers));
          digest = 0;
          for (std::size_t i = 0; i < std::size_t(workers); ++i) {
            const big_worker& w = program.workers[i];
            require(w.sent == n && w.pongs == n, "big",
                    "worker " + std::to_string(i) + " sent " + std::to_string(w.sent) +
                        " pings and got " + std::to_string(w.pongs) + " pongs, expected " +
                        std::to_string(n));
            require(w.unexpected == 0, "big",
                    "worker " + std::to_string(i) + " got " + std::to_string(w.unexpected) +
                        " pongs from a peer it had not pinged");
            require(w.pinged == expected_pinged[i], "big",
                    "worker " + std::to_string(i) + " was pinged " + std::to_string(w.pinged) +
                        " times, expected " + std::to_string(expected_pinged[i]));
            digest += (i + 1) * std::uint64_t(w.pinged);
          }
        },
        std::size_t(workers), n);
  });
  m["result"] = digest;
  return m;
}

}  // namespace

void register_reactor_savina_micro(bench_registry& r) {
  r.implement("forkjoin", "spate-reactor", forkjoin);
  r.implement("chameneos", "spate-reactor", chameneos);
  r.implement("big", "spate-reactor", big);
}

}  // namespace spate_bench
