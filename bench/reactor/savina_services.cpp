// Savina's concurrency benchmarks concsll, bndbuffer and banking as spate reactors (impl
// `spate-reactor`), structured as Lingua Franca's benchmark suite writes them
// (lf-lang/benchmarks-lingua-franca, Cpp/Savina/src/concurrency: SortedList.lf,
// BoundedBuffer.lf, Banking.lf): a central reactor (the list, the buffer's manager, the
// teller) and banks of clients joined by multiports; where a request comes back to where it
// started, one logical action, the loop breaker, answers one microstep later. Inputs and
// checks are the actor versions' (bench/savina/savina_checks.hpp); every run is
// deterministic, the same `result` on any worker count and in either mode.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../savina/savina_checks.hpp"
#include "../savina/savina_support.hpp"
#include "../savina/savina_workloads.hpp"
#include "reactor_bench_support.hpp"

namespace spate_bench {
namespace {

using namespace spate::reactor;
using namespace savina;

// ---------------------------------------------------------------- concsll
// Each worker has one request at a time; the list serves a tag's requests in worker order
// and answers them one microstep later (as concdict's dictionary does).

struct sl_worker : reactor {
  output<list_operation> request{this, "request"};
  input<std::uint64_t> response{this, "response"};
  random64 random;
  std::int64_t messages, write_percent, size_percent;
  std::uint64_t replies = 0, answers = 0;  ///< answers: a digest of what the list answered

  sl_worker(context ctx, std::int64_t messages, std::int64_t write_percent,
            std::int64_t size_percent)
      : reactor(ctx),
        random(list_random(std::int64_t(bank_index()))),
        messages(messages),
        write_percent(write_percent),
        size_percent(size_percent) {
    reaction("start").triggers(startup).effects(request).body(
        [this](port_writer<list_operation>& out) { ask(out); });
    reaction("answer").triggers(response).effects(request).body(
        [this](port_writer<list_operation>& out) {
          answers = answers * 31 + response.get();
          if (++replies < std::uint64_t(this->messages)) ask(out);
        });
  }
  void ask(port_writer<list_operation>& out) {
    out.set(next_list_operation(random, write_percent, size_percent));
  }
};

struct sl_list : reactor {
  logical_action<void> send_answers{this, "send_answers"};
  multiport_input<list_operation> requests;
  multiport_output<std::uint64_t> responses;
  sorted_list list;
  std::vector<std::optional<std::uint64_t>> answers;

  sl_list(context ctx, std::size_t workers)
      : reactor(ctx),
        requests{this, "requests", workers},
        responses{this, "responses", workers},
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
          for (const std::size_t i : requests.present_indices()) {
            const list_operation& op = requests[i].get();
            switch (op.kind) {
              case list_operation_kind::size:
                answers[i] = list.size();
                break;
              case list_operation_kind::write:
                list.insert(op.value);
                answers[i] = op.value;
                break;
              case list_operation_kind::contains:
                answers[i] = list.contains(op.value) ? 1 : 0;
                break;
            }
          }
          later.schedule();
        });
  }
};

struct sl_program : reactor {
  sl_list list;
  bank<sl_worker> workers;
  sl_program(context ctx, std::size_t count, std::int64_t messages, std::int64_t write_percent,
             std::int64_t size_percent)
      : reactor(ctx),
        list{{this, "list"}, count},
        workers{this, "workers", count, messages, write_percent, size_percent} {
    connect(workers.ports(&sl_worker::request), list.requests);
    connect(list.responses, workers.ports(&sl_worker::response));
  }
};

json concsll(const bench_params& p) {
  const concsll_case c(p);
  spate::runtime rt{reactor_runtime_config(p)};
  json result;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<sl_program>(
        rt, p,
        [&](sl_program& program) {
          list_result r;
          std::uint64_t answers = 0;
          for (std::size_t i = 0; i < std::size_t(c.workers); ++i) {
            r.replies += program.workers[i].replies;
            answers += program.workers[i].answers * (2 * i + 1);
          }
          r.final_values = program.list.list.values();
          c.check(r);
          std::uint64_t sum = 0;
          for (const std::uint32_t v : r.final_values) sum += v;
          // The size and sum are fixed by the workers' generators; what the contains and size
          // requests saw depends on the order the list served them in, fixed here too.
          result = {{"size", r.final_values.size()}, {"sum", sum}, {"answers", answers}};
        },
        std::size_t(c.workers), c.messages, c.write_percent, c.size_percent);
  });
  m["result"] = result;
  return m;
}

// ---------------------------------------------------------------- bndbuffer
// LF's manager, reactors for Savina's actors: producers produce when commanded, consumers say
// when they are available again (their logical action, one microstep after an item). The
// manager applies Savina's policy, which LF's version leaves out (there, pending items never
// outnumber the producers): an item goes to an available consumer or to the buffer, and its
// producer is asked for the next one unless the buffer holds `buffer - producers` items, in
// which case it waits until a consumer takes one. Asking a producer in the tag its item
// arrives would close a loop, so those requests go out one microstep later (`ask`).

struct bb_item {
  double value;
  std::int32_t producer;
  std::int64_t seq;
};

struct bb_producer : reactor {
  input<void> produce{this, "produce"};
  output<bb_item> data{this, "data"};
  output<void> finished{this, "finished"};
  std::int64_t items, cost, produced = 0;
  double value = 0;

  bb_producer(context ctx, std::int64_t items, std::int64_t cost)
      : reactor(ctx), items(items), cost(cost) {
    // The last item carries `finished` with it (LF), so no command is wasted on an exit.
    reaction("produce")
        .triggers(produce)
        .effects(data, finished)
        .body([this](port_writer<bb_item>& data, port_writer<void>& finished) {
          if (produced < this->items) {
            value = process_item(value, this->cost);
            data.set(bb_item{value, std::int32_t(bank_index()), produced});
            ++produced;
          }
          if (produced == this->items) finished.set();
        });
  }
};

struct bb_consumer : reactor {
  logical_action<void> send_available{this, "send_available"};
  input<bb_item> data{this, "data"};
  output<void> available{this, "available"};
  std::int64_t cost, seq_sum = 0;
  double value = 0;
  std::vector<std::int64_t> consumed;  ///< [producer]

  bb_consumer(context ctx, std::size_t producers, std::int64_t cost)
      : reactor(ctx), cost(cost), consumed(producers, 0) {
    reaction("available")
        .triggers(send_available)
        .effects(available)
        .body([](port_writer<void>& out) { out.set(); });
    reaction("consume")
        .triggers(data)
        .effects(send_available)
        .body([this](action_scheduler<void>& again) {
          const bb_item& item = data.get();
          value = process_item(value + item.value, this->cost);
          ++consumed[std::size_t(item.producer)];
          seq_sum += item.seq;
          again.schedule();
        });
  }
};

struct bb_manager : reactor {
  logical_action<void> ask{this, "ask"};
  multiport_output<void> produce;
  multiport_input<bb_item> data;
  multiport_input<void> producer_finished;
  multiport_input<void> consumer_available;
  multiport_output<bb_item> to_consumer;
  std::size_t adjusted_buffer, max_pending = 0, exited = 0;
  std::deque<bb_item> pending;
  std::deque<std::size_t> available_consumers, waiting_producers;
  std::vector<std::size_t> to_ask;
  std::vector<bool> producer_exited;

  bb_manager(context ctx, std::size_t producers, std::size_t consumers, std::size_t adjusted)
      : reactor(ctx),
        produce{this, "produce", producers},
        data{this, "data", producers},
        producer_finished{this, "producer_finished", producers},
        consumer_available{this, "consumer_available", consumers},
        to_consumer{this, "to_consumer", consumers},
        adjusted_buffer(adjusted),
        producer_exited(producers, false) {
    for (std::size_t c = 0; c < consumers; ++c) available_consumers.push_back(c);
    reaction("start").triggers(startup).effects(produce).body([](multiport_writer<void>& out) {
      for (auto& w : out) w.set();
    });
    reaction("ask").triggers(ask).effects(produce).body([this](multiport_writer<void>& out) {
      for (const std::size_t q : to_ask) out[q].set();
      to_ask.clear();
    });
    // Consumers back for more: the buffer's oldest items, each taken wakes a waiting producer.
    reaction("available")
        .triggers(consumer_available)
        .effects(to_consumer, produce)
        .body([this](multiport_writer<bb_item>& give, multiport_writer<void>& wake) {
          for (const std::size_t c : consumer_available.present_indices()) {
            if (pending.empty()) {
              available_consumers.push_back(c);
              continue;
            }
            give[c].set(pending.front());
            pending.pop_front();
            if (!waiting_producers.empty()) {
              wake[waiting_producers.front()].set();
              waiting_producers.pop_front();
            }
          }
        });
    // Before "data": a producer that has finished is not asked again.
    reaction("finished").triggers(producer_finished).body([this] {
      for (const std::size_t q : producer_finished.present_indices()) {
        producer_exited[q] = true;
        ++exited;
      }
    });
    reaction("data")
        .triggers(data)
        .effects(to_consumer, ask)
        .body([this](multiport_writer<bb_item>& give, action_scheduler<void>& later) {
          for (const std::size_t q : data.present_indices()) {
            if (!available_consumers.empty()) {
              give[available_consumers.front()].set(data[q].get());
              available_consumers.pop_front();
            } else {
              pending.push_back(data[q].get());
              max_pending = std::max(max_pending, pending.size());
            }
            if (producer_exited[q]) continue;
            if (pending.size() >= adjusted_buffer) {
              waiting_producers.push_back(q);
            } else {
              to_ask.push_back(q);
            }
          }
          if (!to_ask.empty()) later.schedule();
        });
  }
};

struct bb_program : reactor {
  bb_manager manager;
  bank<bb_producer> producers;
  bank<bb_consumer> consumers;
  explicit bb_program(context ctx, const bndbuffer_case& c)
      : reactor(ctx),
        manager{{this, "manager"},
                std::size_t(c.producers),
                std::size_t(c.consumers),
                c.adjusted_buffer()},
        producers{this, "producers", std::size_t(c.producers), c.items, c.produce_cost},
        consumers{this, "consumers", std::size_t(c.consumers), std::size_t(c.producers),
                  c.consume_cost} {
    connect(manager.produce, producers.ports(&bb_producer::produce));
    connect(producers.ports(&bb_producer::data), manager.data);
    connect(producers.ports(&bb_producer::finished), manager.producer_finished);
    connect(consumers.ports(&bb_consumer::available), manager.consumer_available);
    connect(manager.to_consumer, consumers.ports(&bb_consumer::data));
  }
};

json bndbuffer(const bench_params& p) {
  const bndbuffer_case c(p);
  spate::runtime rt{reactor_runtime_config(p)};
  json result;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<bb_program>(
        rt, p,
        [&](bb_program& program) {
          const bb_manager& manager = program.manager;
          // Savina's exit condition: every producer done, the buffer empty, every consumer idle.
          require(manager.exited == std::size_t(c.producers) && manager.pending.empty() &&
                      manager.available_consumers.size() == std::size_t(c.consumers),
                  "bndbuffer",
                  "the run ended with " + std::to_string(manager.exited) + " producers done, " +
                      std::to_string(manager.pending.size()) + " items buffered, " +
                      std::to_string(manager.available_consumers.size()) + " consumers idle");
          bb_result r = c.new_result();
          r.max_pending = manager.max_pending;
          // Who consumed what depends on the order the manager serves a tag's messages in,
          // which is fixed: a digest of it is deterministic too.
          std::uint64_t spread = 0;
          for (std::size_t k = 0; k < std::size_t(c.consumers); ++k) {
            r.consumed_per_consumer[k] = program.consumers[k].consumed;
            r.seq_sum_per_consumer[k] = program.consumers[k].seq_sum;
            for (std::size_t q = 0; q < r.consumed_per_consumer[k].size(); ++q) {
              spread += std::uint64_t(r.consumed_per_consumer[k][q]) * (k * 131 + q + 1);
            }
          }
          c.check(r);
          result = {{"max_pending", r.max_pending}, {"spread", spread}};
        },
        c);
  });
  m["result"] = result;
  return m;
}

// ---------------------------------------------------------------- banking
// LF's teller queues each account's transfers and sends every account the next one of its
// own per microstep (its logical action); an account pays and sends the payee a debit, which
// the payee adds in the same tag. LF wires every account to every other (accounts.outDebit
// -> interleaved(accounts.inDebit)): 10^6 ports each way at 1,000 accounts, about 600 MB of
// ports here (304 bytes each). A clearing reactor stands for that mesh instead: it takes
// each account's debit on one channel and hands each payee the debits of the tag on one
// (several payers may pay one payee in a tag). Same tags, the accounts' reactions still in
// parallel, one more (serial) reaction per tag; 6,000 ports in all instead of 2,000,000.

struct bk_debit {
  std::int32_t to;
  std::int64_t amount;
};

struct bk_account : reactor {
  input<transfer> credit{this, "credit"};
  output<bk_debit> debit{this, "debit"};
  input<std::vector<std::int64_t>> debits{this, "debits"};
  std::int64_t balance = initial_balance, paid = 0, received = 0;

  explicit bk_account(context ctx) : reactor(ctx) {
    reaction("pay").triggers(credit).effects(debit).body([this](port_writer<bk_debit>& out) {
      const transfer& t = credit.get();
      balance -= t.amount;
      ++paid;
      out.set(bk_debit{t.to, t.amount});
    });
    reaction("receive").triggers(debits).body([this] {
      for (const std::int64_t amount : debits.get()) {
        balance += amount;
        ++received;
      }
    });
  }
};

struct bk_clearing : reactor {
  multiport_input<bk_debit> from_payers;
  multiport_output<std::vector<std::int64_t>> to_payees;
  std::vector<std::vector<std::int64_t>> batches;  ///< [payee]: this tag's debits

  bk_clearing(context ctx, std::size_t accounts)
      : reactor(ctx),
        from_payers{this, "from_payers", accounts},
        to_payees{this, "to_payees", accounts},
        batches(accounts) {
    reaction("route")
        .triggers(from_payers)
        .effects(to_payees)
        .body([this](multiport_writer<std::vector<std::int64_t>>& out) {
          std::vector<std::size_t> payees;
          for (const std::size_t i : from_payers.present_indices()) {
            const bk_debit& d = from_payers[i].get();
            auto& batch = batches[std::size_t(d.to)];
            if (batch.empty()) payees.push_back(std::size_t(d.to));
            batch.push_back(d.amount);
          }
          for (const std::size_t j : payees) out[j].set(std::exchange(batches[j], {}));
        });
  }
};

struct bk_teller : reactor {
  logical_action<void> next{this, "next"};
  multiport_output<transfer> credit;
  std::vector<std::deque<transfer>> queues;  ///< [payer]: its transfers, in the teller's order
  std::int64_t rounds = 0;

  bk_teller(context ctx, std::size_t accounts, const std::vector<transfer>& transfers)
      : reactor(ctx), credit{this, "credit", accounts}, queues(accounts) {
    for (const transfer& t : transfers) queues[std::size_t(t.from)].push_back(t);
    reaction("start").triggers(startup).effects(next).body(
        [](action_scheduler<void>& next) { next.schedule(); });
    reaction("send")
        .triggers(next)
        .effects(credit, next)
        .body([this](multiport_writer<transfer>& out, action_scheduler<void>& again) {
          bool sent = false;
          for (std::size_t i = 0; i < queues.size(); ++i) {
            if (queues[i].empty()) continue;
            out[i].set(queues[i].front());
            queues[i].pop_front();
            sent = true;
          }
          if (sent) {
            ++rounds;
            again.schedule();
          }
        });
  }
};

struct bk_program : reactor {
  bk_teller teller;
  bank<bk_account> accounts;
  bk_clearing clearing;
  bk_program(context ctx, std::size_t count, const std::vector<transfer>& transfers)
      : reactor(ctx),
        teller{{this, "teller"}, count, transfers},
        accounts{this, "accounts", count},
        clearing{{this, "clearing"}, count} {
    connect(teller.credit, accounts.ports(&bk_account::credit));
    connect(accounts.ports(&bk_account::debit), clearing.from_payers);
    connect(clearing.to_payees, accounts.ports(&bk_account::debits));
  }
};

json banking(const bench_params& p) {
  const banking_case c(p);
  spate::runtime rt{reactor_runtime_config(p)};
  json result;
  json m = savina_iterations(p, [&] {
    return reactor_iteration<bk_program>(
        rt, p,
        [&](bk_program& program) {
          std::vector<std::int64_t> balances;
          std::int64_t paid = 0, received = 0, sum = 0;
          std::uint64_t checksum = 0;
          for (std::size_t i = 0; i < std::size_t(c.accounts); ++i) {
            const bk_account& a = program.accounts[i];
            balances.push_back(a.balance);
            paid += a.paid;
            received += a.received;
            sum += a.balance;
            checksum += (i + 1) * std::uint64_t(a.balance);
          }
          require(paid == c.transactions && received == c.transactions, "banking",
                  std::to_string(paid) + " payments and " + std::to_string(received) +
                      " debits, expected " + std::to_string(c.transactions) + " of each");
          c.check(balances);
          require(sum == c.accounts * initial_balance, "banking", "money was made or lost");
          result = {{"sum", sum}, {"checksum", checksum}, {"rounds", program.teller.rounds}};
        },
        std::size_t(c.accounts), c.transfers);
  });
  m["result"] = result;
  return m;
}

}  // namespace

void register_reactor_savina_services(bench_registry& r) {
  r.implement("concsll", "spate-reactor", concsll);
  r.implement("bndbuffer", "spate-reactor", bndbuffer);
  r.implement("banking", "spate-reactor", banking);
}

}  // namespace spate_bench
