#include "spate/exec/worker_pool.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "spate/platform/backoff.hpp"
#include "spate/platform/os.hpp"
#include "spate/exec/detail/handshake_fence.hpp"
#include "spate/exec/detail/parking_event.hpp"
#include "spate/platform/single_writer_counter.hpp"
#include "spate/platform/stress_point.hpp"
#include "spate/exec/detail/local_run_queue.hpp"

namespace spate {
namespace {

enum worker_state : int { running, searching, parked, notified };

// A LIFO-slot task may run this many times in a row before the worker turns to its FIFO
// queue; two actors messaging each other would otherwise starve everything else.
constexpr unsigned max_lifo_streak = 16;
// Tasks moved from the inbox to the (stealable) local queue in one go.
constexpr unsigned inbox_batch = 32;
// The inbox goes before the LIFO slot and the local queue once in this many look-ups (a
// prime, as in Tokio, so that it does not fall into step with a periodic workload).
constexpr unsigned inbox_check_interval = 61;
// A busy worker looks at the timers every this many tasks.
constexpr unsigned timer_check_interval = 16;

std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// A worker's state, split by who may touch it (as Tokio splits its worker's `Core` from its
// shared `Remote`): `own` is its thread's alone; the rest is shared, each field with the
// protocol that makes that safe.
struct worker_pool::worker {
  explicit worker(std::size_t index, std::size_t capacity)
      : index(index), queue(capacity) {
    own.rng = 0x9E3779B97F4A7C15ull * (index + 1);
  }

  // ---- owner only: the worker's thread (and stop(), after joining it) ----
  struct owner_state {
    task* lifo_slot = nullptr;  // the task it made ready last: runs next, not stealable
    unsigned lifo_streak = 0;   // LIFO-slot runs in a row (fairness cap)
    unsigned ticks = 0;         // next_local() calls (the inbox's turn comes every so often)
    std::uint64_t rng = 0;      // steal victim order

    std::uint64_t next_random() noexcept {  // xorshift64
      rng ^= rng << 13;
      rng ^= rng >> 7;
      rng ^= rng << 17;
      return rng;
    }
  } own;

  // ---- shared ----
  const std::size_t index;
  // The owner pushes and pops at one end, thieves steal at the other (local_run_queue.hpp).
  local_run_queue queue;
  // Any thread pushes; one consumer at a time, the one that set inbox_consumer_busy.
  intrusive_mpsc_queue<task> inbox;
  std::atomic_flag inbox_consumer_busy;
  // The owner waits on it; any thread notifies (the park/wake handshake, worker_pool.hpp).
  parking_event event;
  alignas(64) std::atomic<int> state{running};
  // Counters: written by the owner only (single-writer adds), read by stats() anywhere.
  std::atomic<std::uint64_t> idle_ns{0};
  std::atomic<std::uint64_t> tasks_run{0};
  std::atomic<std::uint64_t> steals{0};
  std::atomic<std::uint64_t> parks{0};
  std::atomic<std::uint64_t> wakeups{0};
  const std::int64_t started_ns = now_ns();
  // The pool's constructor starts it, stop() joins it.
  std::thread thread;
};

namespace {
thread_local const worker_pool* current_pool = nullptr;
thread_local void* current_worker = nullptr;
}  // namespace

worker_pool::worker_pool(scheduler_config config) : config_(std::move(config)) {
  config_.validate();
  const std::size_t n = config_.effective_threads();
  workers_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    workers_.push_back(std::make_unique<worker>(i, config_.local_queue_capacity));
  }
  for (auto& w : workers_) {
    w->thread = std::thread([this, raw = w.get()] { run_worker(*raw); });
  }
}

worker_pool::~worker_pool() {
  stop();
}

void worker_pool::stop() {
  if (stopping_.exchange(true)) {
    for (auto& w : workers_) {
      if (w->thread.joinable()) w->thread.join();
    }
    return;
  }
  timers_.close();
  for (auto& w : workers_) w->event.notify();
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
  // Tasks still queued will never run: let them release what they own. Tasks scheduled
  // from now on are discarded too (schedule_external re-checks `stopped_` after its push:
  // the same publish-then-check handshake as parking, so no task is left in an inbox).
  stopped_.store(true, std::memory_order_relaxed);
  handshake_fence();
  for (auto& w : workers_) {
    if (w->own.lifo_slot != nullptr) std::exchange(w->own.lifo_slot, nullptr)->discard();
    while (task* t = w->queue.pop()) t->discard();
  }
  discard_inboxes();
}

void worker_pool::discard_inboxes() {
  for (auto& w : workers_) {
    while (w->inbox_consumer_busy.test_and_set(std::memory_order_acquire))
      std::this_thread::yield();
    while (task* t = w->inbox.pop()) t->discard();
    w->inbox_consumer_busy.clear(std::memory_order_release);
  }
}

bool worker_pool::is_worker_thread() const noexcept {
  return current_pool == this;
}

std::vector<worker_stats> worker_pool::stats() const {
  std::vector<worker_stats> result;
  const auto now = now_ns();
  for (const auto& w : workers_) {
    worker_stats s;
    s.idle = std::chrono::nanoseconds{w->idle_ns.load(std::memory_order_relaxed)};
    const auto alive = std::chrono::nanoseconds{now - w->started_ns};
    s.busy = alive > s.idle ? alive - s.idle : std::chrono::nanoseconds{0};
    s.tasks_run = w->tasks_run.load(std::memory_order_relaxed);
    s.steals = w->steals.load(std::memory_order_relaxed);
    s.parks = w->parks.load(std::memory_order_relaxed);
    s.wakeups = w->wakeups.load(std::memory_order_relaxed);
    result.push_back(s);
  }
  return result;
}

void worker_pool::schedule(task* t) {
  if (current_pool == this) {
    schedule_local(*static_cast<worker*>(current_worker), t);
  } else {
    schedule_external(t);
  }
}

void worker_pool::schedule_stealable(task* t) {
  if (current_pool != this) {
    schedule_external(t);
    return;
  }
  auto& w = *static_cast<worker*>(current_worker);
  push_local(w, t);
  wake_if_stealable(w);
}

void worker_pool::schedule_local(worker& w, task* t) {
  task* displaced = w.own.lifo_slot;
  w.own.lifo_slot = t;
  if (displaced != nullptr) {
    push_local(w, displaced);
    wake_if_stealable(w);
  }
}

void worker_pool::push_local(worker& w, task* t) {
  if (!w.queue.push(t)) w.inbox.push(t);  // overflow: the owner drains its inbox later
}

void worker_pool::schedule_external(task* t) {
  if (stopped_.load(std::memory_order_relaxed)) {
    t->discard();
    return;
  }
  // Algorithm 2: hand the task to a parked worker and signal its event. With no parked
  // worker, prefer one that is searching (it polls its inbox), else round-robin.
  for (auto& w : workers_) {
    int expected = parked;
    if (w->state.compare_exchange_strong(expected, notified, std::memory_order_acq_rel)) {
      w->inbox.push(t);
      w->event.notify();
      stress_point();
      handshake_fence();  // pairs with stop()'s: as below, a stop that drained first is seen
      if (stopped_.load(std::memory_order_relaxed)) discard_inboxes();
      return;
    }
  }
  worker* target = nullptr;
  for (auto& w : workers_) {
    if (w->state.load(std::memory_order_relaxed) == searching) {
      target = w.get();
      break;
    }
  }
  if (target == nullptr) {
    target =
        workers_[next_external_.fetch_add(1, std::memory_order_relaxed) % workers_.size()].get();
  }
  target->inbox.push(t);
  stress_point();
  handshake_fence();  // pairs with the fence in park(), and with stop()'s
  if (stopped_.load(std::memory_order_relaxed)) {  // stop() may have drained before our push
    discard_inboxes();
    return;
  }
  int expected = parked;
  if (target->state.compare_exchange_strong(expected, notified, std::memory_order_acq_rel)) {
    target->event.notify();
  }
}

void worker_pool::wake_if_stealable(worker&) {
  stress_point();
  handshake_fence();  // pairs with the fence in park()
  if (searching_.load(std::memory_order_relaxed) == 0 &&
      parked_.load(std::memory_order_relaxed) != 0) {
    wake_one_parked();
  }
}

bool worker_pool::wake_one_parked() {
  for (auto& w : workers_) {
    int expected = parked;
    if (w->state.compare_exchange_strong(expected, notified, std::memory_order_acq_rel)) {
      w->event.notify();
      return true;
    }
  }
  return false;
}

timer_queue::timer_id worker_pool::add_timer(timer_queue::clock::time_point deadline,
                                             std::function<void()> callback,
                                             std::chrono::nanoseconds period) {
  bool earliest = false;
  const auto id = timers_.add(deadline, std::move(callback), period, &earliest);
  if (id != 0 && earliest) deadline_published();
  return id;
}

void worker_pool::deadline_published() {
  stress_point();
  handshake_fence();  // step 2 (header): the deadline is published, now look for a keeper
  const int keeper = timer_keeper_.load(std::memory_order_relaxed);
  if (keeper != no_keeper) {
    workers_[static_cast<std::size_t>(keeper)]->event.notify();
  } else if (parked_.load(std::memory_order_relaxed) != 0) {
    wake_one_parked();
  }
}

void worker_pool::run_due_timers() {
  if (timers_.next_deadline_ns() == timer_queue::no_deadline) return;
  const auto now = timer_queue::clock::now();
  if (timers_.next_deadline_ns() > timer_queue::to_ns(now)) return;
  if (timers_.run_due(now) == 0 || timers_.next_deadline_ns() == timer_queue::no_deadline) return;
  // Step 4 (header): a periodic timer re-armed by this run is a new deadline that a keeper
  // (another worker: this one cleared itself as keeper before running timers) may be
  // sleeping past. Without a keeper nobody needs waking: this worker is awake and will
  // itself become keeper when it parks, or look at the timers again while it polls.
  stress_point();
  handshake_fence();  // the re-armed deadline is published; now read the keeper
  const int keeper = timer_keeper_.load(std::memory_order_relaxed);
  const auto* self = current_pool == this ? static_cast<const worker*>(current_worker) : nullptr;
  if (keeper != no_keeper && (self == nullptr || static_cast<int>(self->index) != keeper)) {
    workers_[static_cast<std::size_t>(keeper)]->event.notify();
  }
}

bool worker_pool::become_timer_keeper(worker& w) {
  if (timers_.next_deadline_ns() == timer_queue::no_deadline) return false;
  int expected = no_keeper;
  if (!timer_keeper_.compare_exchange_strong(expected, static_cast<int>(w.index),
                                             std::memory_order_acq_rel)) {
    return false;
  }
  handshake_fence();  // step 1: the keeper is published, now re-read the deadline
  return true;
}

void worker_pool::run_worker(worker& w) {
  current_pool = this;
  current_worker = &w;
  name_current_thread((config_.thread_name_prefix + "-" + std::to_string(w.index)).c_str());
  if (config_.pin_threads) pin_current_thread_to_cpu(w.index % available_cpus());
  // The timer keeper sleeps until a deadline (header, "Timers"): with the kernel's default
  // 50 us slack on that sleep every timer would fire ~50-80 us late.
  set_current_thread_timer_slack(std::chrono::microseconds(1));
  unsigned until_timer_check = timer_check_interval;
  while (!stopping_.load(std::memory_order_acquire)) {
    if (--until_timer_check == 0) {
      until_timer_check = timer_check_interval;
      run_due_timers();
    }
    task* t = find_work(w);
    if (t == nullptr) continue;
    add_single_writer(w.tasks_run);
    if (t->resume(config_.task_budget) == resume_result::resume_later) {
      push_local(w, t);
      // The re-queued task is stealable; if the worker has something else to run, let a
      // parked worker take one of them.
      if (w.own.lifo_slot != nullptr || w.queue.size_approx() > 1) wake_if_stealable(w);
    }
  }
  current_pool = nullptr;
  current_worker = nullptr;
}

task* worker_pool::next_local(worker& w) {
  // Every so often the inbox goes first: a worker whose queue never empties (a task that
  // keeps returning resume_later) would otherwise starve work scheduled from outside.
  if (++w.own.ticks % inbox_check_interval == 0) {
    if (task* t = take_inbox(w)) return t;
  }
  if (w.own.lifo_slot != nullptr) {
    task* t = w.own.lifo_slot;
    w.own.lifo_slot = nullptr;
    if (w.own.lifo_streak < max_lifo_streak) {
      ++w.own.lifo_streak;
      return t;
    }
    // Fairness: let the FIFO queue go first. When the queue holds other tasks, the moved
    // task waits while this worker runs one of them, which may be long: a parked worker
    // must hear of it (without the 10 ms park timeout that used to hide this, it waited for
    // the long task to end). With the queue empty the task runs next, here: waking another
    // worker would only split a chain of actors (ping-pong) across cores.
    const bool others_first = w.queue.size_approx() > 0;
    push_local(w, t);
    if (others_first) wake_if_stealable(w);
  }
  w.own.lifo_streak = 0;
  if (task* t = w.queue.pop()) return t;
  return take_inbox(w);
}

// Takes the inbox's oldest task and moves a batch more into the local queue, where idle
// workers can steal it.
task* worker_pool::take_inbox(worker& w) {
  if (w.inbox.empty_approx() || w.inbox_consumer_busy.test_and_set(std::memory_order_acquire)) {
    return nullptr;
  }
  task* first = w.inbox.pop();
  for (unsigned i = 1; first != nullptr && i < inbox_batch; ++i) {
    task* more = w.inbox.pop();
    if (more == nullptr) break;
    if (!w.queue.push(more)) {
      w.inbox.push(more);
      break;
    }
  }
  w.inbox_consumer_busy.clear(std::memory_order_release);
  if (first != nullptr && w.queue.size_approx() > 0) wake_if_stealable(w);
  return first;
}

task* worker_pool::pop_inbox(worker& victim) {
  if (victim.inbox.empty_approx() ||
      victim.inbox_consumer_busy.test_and_set(std::memory_order_acquire)) {
    return nullptr;
  }
  task* t = victim.inbox.pop();
  victim.inbox_consumer_busy.clear(std::memory_order_release);
  return t;
}

task* worker_pool::steal(worker& w) {
  const std::size_t n = workers_.size();
  if (n < 2) return nullptr;
  const std::size_t start = w.own.next_random() % n;
  for (std::size_t i = 0; i < n; ++i) {
    worker& victim = *workers_[(start + i) % n];
    if (&victim == &w) continue;
    task* t = victim.queue.pop();
    if (t == nullptr) t = pop_inbox(victim);
    if (t != nullptr) {
      add_single_writer(w.steals);
      return t;
    }
  }
  return nullptr;
}

task* worker_pool::poll(worker& w, const polling_strategy& strategy) {
  for (std::uint32_t attempt = 0; attempt < strategy.attempts; ++attempt) {
    if (stopping_.load(std::memory_order_relaxed)) return nullptr;
    if (task* t = next_local(w)) return t;
    if (attempt % strategy.steal_interval == 0) {
      if (task* t = steal(w)) return t;
      run_due_timers();  // a worker that polls for long (the spin preset) still runs timers
    }
    if (strategy.sleep.count() > 0) {
      std::this_thread::sleep_for(strategy.sleep);
    } else {
      cpu_relax();
    }
  }
  return nullptr;
}

task* worker_pool::find_work(worker& w) {
  if (task* t = next_local(w)) return t;
  const auto idle_start = now_ns();
  w.state.store(searching, std::memory_order_relaxed);
  searching_.fetch_add(1, std::memory_order_relaxed);
  task* t = poll(w, config_.aggressive);
  if (t == nullptr) t = poll(w, config_.moderate);
  while (t == nullptr && !stopping_.load(std::memory_order_relaxed)) {
    if (config_.park_when_idle) {
      t = park(w);
    } else {
      run_due_timers();
      t = poll(w, config_.relaxed);
      if (t == nullptr && config_.relaxed.attempts == 0) break;
    }
  }
  const bool last_searcher = searching_.fetch_sub(1, std::memory_order_relaxed) == 1;
  w.state.store(running, std::memory_order_relaxed);
  // The last searcher found work: if more is queued somewhere, another worker should come.
  // The fence orders the decrement before the queue reads below, against a pusher's push,
  // fence, read of `searching_` (wake_if_stealable): one of the two sees the other.
  if (t != nullptr && last_searcher) {
    stress_point();
    handshake_fence();
    for (auto& other : workers_) {
      if (other.get() != &w && other->queue.size_approx() > 0) {
        wake_if_stealable(w);
        break;
      }
    }
  }
  w.idle_ns.fetch_add(static_cast<std::uint64_t>(now_ns() - idle_start), std::memory_order_relaxed);
  return t;
}

bool worker_pool::has_visible_work(const worker& w) const {
  if (w.own.lifo_slot != nullptr || w.queue.size_approx() > 0 || !w.inbox.empty_approx()) return true;
  for (const auto& other : workers_) {
    if (other->queue.size_approx() > 0 || !other->inbox.empty_approx()) return true;
  }
  return false;
}

// Algorithm 1, lines 5-17: park on the worker's own event with a timeout, then look
// locally (woken by an enqueue) or steal (timeout, or woken for stealable work).
task* worker_pool::park(worker& w) {
  searching_.fetch_sub(1, std::memory_order_relaxed);
  parked_.fetch_add(1, std::memory_order_relaxed);
  w.state.store(parked, std::memory_order_relaxed);
  stress_point();
  handshake_fence();  // pairs with the enqueuers' fences
  bool woken_by_notify = false;
  const bool keeper = become_timer_keeper(w);
  if (!has_visible_work(w) && !stopping_.load(std::memory_order_acquire)) {
    auto sleep = config_.park_timeout.count() == 0 ? std::chrono::nanoseconds::max()
                                                   : std::chrono::nanoseconds(config_.park_timeout);
    if (keeper) {
      const std::int64_t until_deadline =
          timers_.next_deadline_ns() - timer_queue::to_ns(timer_queue::clock::now());
      sleep = std::min(sleep, std::chrono::nanoseconds(std::max<std::int64_t>(until_deadline, 0)));
    }
    if (sleep.count() > 0) woken_by_notify = w.event.wait_for(sleep);
  }
  if (keeper) timer_keeper_.store(no_keeper, std::memory_order_release);
  // Searching again before the callbacks run: a worker running timers is not parked (an
  // enqueuer must not hand it a task as if it slept, nor count it among the sleepers).
  const int previous = w.state.exchange(searching, std::memory_order_acq_rel);
  parked_.fetch_sub(1, std::memory_order_relaxed);
  searching_.fetch_add(1, std::memory_order_relaxed);
  run_due_timers();
  add_single_writer(w.parks);
  if (woken_by_notify && previous == notified) add_single_writer(w.wakeups);
  if (task* t = next_local(w)) return t;
  return steal(w);
}

}  // namespace spate
