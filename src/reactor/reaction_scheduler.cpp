#include "spate/reactor/detail/reaction_scheduler.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <utility>

#include "spate/exec/runtime.hpp"
#include "spate/platform/stress_point.hpp"
#include "spate/reactor/detail/assembler.hpp"

namespace spate::reactor::detail {

namespace {
// Counts a thread inside the reaction scheduler's code, so the destructor can wait for it to
// leave (the thread that ends the program notifies the waiter and then still returns through
// here).
class inside_guard {
 public:
  explicit inside_guard(std::atomic<int>& count) : count_(&count) {
    count_->fetch_add(1, std::memory_order_relaxed);
  }
  ~inside_guard() { count_->fetch_sub(1, std::memory_order_release); }
  inside_guard(const inside_guard&) = delete;
  inside_guard& operator=(const inside_guard&) = delete;

 private:
  std::atomic<int>* count_;
};
}  // namespace

reaction_scheduler::reaction_scheduler(spate::runtime& rt, const environment_options& options,
                                       program prog)
    : runtime_(&rt),
      options_(options),
      program_(std::move(prog)),
      keep_alive_(options.keep_alive.value_or(program_.has_physical_inputs)),
      trace_(options.trace),
      timer_link_(std::make_shared<timer_link>()) {
  timer_link_->owner = this;
  for (reaction* r : program_.reactions) r->reaction_scheduler_ = this;
  by_level_.resize(program_.level_count);
  // One worker: the whole level in one task. Several: a few chunks per worker, so that
  // uneven reactions still spread (each chunk can be stolen).
  const std::size_t workers = rt.pool().size();
  level_chunks_ = workers <= 1 ? 1 : 4 * workers;
  fit_cone_caches();
  name_new_reactions_for_trace();
  publish_counts();
}

// One cone cache slot per reaction while the program is small enough to cache cones; past
// that, the slots already made stay, and reactions beyond them are not cached (settle_cone
// checks the index).
void reaction_scheduler::fit_cone_caches() {
  if (program_.reactions.size() <= max_cached_cone) solo_cones_.resize(program_.reactions.size());
}

void reaction_scheduler::publish_counts() noexcept {
  reaction_count_.store(program_.reactions.size(), std::memory_order_relaxed);
  level_count_.store(program_.level_count, std::memory_order_relaxed);
}

void reaction_scheduler::name_new_reactions_for_trace() {
  if (!trace_.enabled()) return;
  for (std::size_t i = trace_name_of_.size(); i < program_.reactions.size(); ++i)
    trace_name_of_.push_back(
        &trace_names_.emplace_back(program_.reactions[i]->fully_qualified_name()));
}

void reaction_scheduler::timer_link::fire(std::uint64_t generation) {
  std::lock_guard lock(mutex);
  if (owner != nullptr) owner->on_timer(generation);
}

reaction_scheduler::~reaction_scheduler() {
  {
    std::unique_lock lock(mutex_);
    if (timer_ != 0) runtime_->timers().cancel(timer_);
    ++wake_generation_;
  }
  {
    std::lock_guard lock(timer_link_->mutex);  // a firing timer finishes first
    timer_link_->owner = nullptr;
  }
  while (threads_inside_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
}

// ---------------------------------------------------------------- starting and stopping

void reaction_scheduler::start() {
  std::unique_lock lock(mutex_);
  if (phase_ != phase::not_started)
    throw std::logic_error("the reactor program was already started");
  start_time_ = clock::now();
  tag first{start_time_, 0};
  last_tag_ = first;
  queue_.raise_to(first);  // physical actions scheduled before the start
  for (action_base* s : program_.startup_triggers)
    queue_.insert(first, s, erased_value::empty_present());
  for (timer* t : program_.timers)
    queue_.insert(tag{start_time_ + t->offset(), 0}, t, erased_value::empty_present());
  if (options_.timeout) set_stop_locked(tag{start_time_ + *options_.timeout, 0});
  if (stop_tag_ && *stop_tag_ < first) stop_tag_ = first;  // stop requested before start
  phase_ = phase::running_tag;
  lock.unlock();
  runtime_->pool().schedule(&starter_);
}

void reaction_scheduler::request_stop() {
  std::unique_lock lock(mutex_);
  if (phase_ == phase::finished) return;
  if (phase_ == phase::not_started) {
    stop_tag_ = tag{};  // start() moves it to the first tag
    return;
  }
  set_stop_locked(last_tag_.delayed_by(duration::zero()));
  wake_locked(*stop_tag_);
}

void reaction_scheduler::set_stop_locked(const tag& at) {
  if (!stop_tag_ || at < *stop_tag_) stop_tag_ = at;
}

bool reaction_scheduler::is_started() const {
  std::lock_guard lock(mutex_);
  return phase_ != phase::not_started;
}

// At the end of a tag, under the lock, with no reaction running: the mutation's reactors and
// connections join the program (or it is rejected whole), then its removals happen.
bool reaction_scheduler::is_finished() const {
  std::lock_guard lock(mutex_);
  return phase_ == phase::finished;
}

void reaction_scheduler::wait() {
  std::unique_lock lock(mutex_);
  finished_cv_.wait(lock, [&] { return phase_ == phase::finished; });
  if (first_failure_) throw_failure_locked(lock);
}

bool reaction_scheduler::wait_for(duration timeout) {
  std::unique_lock lock(mutex_);
  if (!finished_cv_.wait_for(lock, timeout, [&] { return phase_ == phase::finished; }))
    return false;
  if (first_failure_) throw_failure_locked(lock);
  return true;
}

void reaction_scheduler::finish_locked() {
  phase_ = phase::finished;
  if (timer_ != 0) runtime_->timers().cancel(timer_);
  timer_ = 0;
  queue_.clear();
  finished_cv_.notify_all();
}

// ---------------------------------------------------------------- events from outside

void reaction_scheduler::schedule_physical(action_base& action, erased_value value,
                                           duration delay) {
  stress_point();  // races the advancer deciding to wait
  std::unique_lock lock(mutex_);
  if (phase_ == phase::finished) return;  // the program is over: nothing can react
  tag at = physical_tag_locked(clock::now() + action.options().min_delay + delay);
  place_locked(&action, &action, at, std::move(value));
  if (phase_ != phase::not_started) wake_locked(at);
}

// A port also marks (and clears) the multiport channels that read it (port.hpp).
void reaction_scheduler::deliver_target(event_target* target, erased_value value) {
  if (target->kind() == event_target::target_kind::port) {
    static_cast<port_base*>(target)->deliver_to_root(std::move(value));
  } else {
    target->deliver(std::move(value));
  }
}

void reaction_scheduler::clear_target(event_target* target) noexcept {
  if (target->kind() == event_target::target_kind::port) {
    static_cast<port_base*>(target)->clear_root();
  } else {
    target->clear();
  }
}

tag reaction_scheduler::physical_tag_locked(time_point when) {
  // Later than the running tag, and later than every physical event before it: events from
  // the physical clock are never simultaneous (two schedules in a row are two tags).
  tag at{when, 0};
  if (phase_ != phase::not_started && at <= last_tag_) at = last_tag_.delayed_by(duration::zero());
  if (at <= last_physical_) at = last_physical_.delayed_by(duration::zero());
  last_physical_ = at;
  return at;
}

void reaction_scheduler::place_locked(event_target* target, action_base* action, tag at,
                                      erased_value value) {
  action_base::spacing* spacing = action != nullptr ? action->spacing_.get() : nullptr;
  if (spacing != nullptr && spacing->last_scheduled) {
    const tag last = *spacing->last_scheduled;
    const time_point earliest = last.time + spacing->min_spacing;
    if (at.time < earliest) {
      switch (spacing->policy) {
        case spacing_policy::drop:
          return;
        case spacing_policy::replace:
          if (last > last_tag_ && queue_.replace(last, target, std::move(value))) return;
          [[fallthrough]];
        case spacing_policy::defer:
          at = tag{earliest, 0};
          break;
      }
    }
  }
  if (stop_tag_ && at > *stop_tag_) return;  // after the end: never delivered
  if (spacing != nullptr) spacing->last_scheduled = at;
  queue_.insert(at, target, std::move(value));
}

void reaction_scheduler::wake_locked(const tag& at) {
  bool start_now =
      phase_ == phase::waiting_event || (phase_ == phase::waiting_timer && at < waiting_for_);
  if (!start_now) return;
  if (phase_ == phase::waiting_timer && timer_ != 0) runtime_->timers().cancel(timer_);
  timer_ = 0;
  ++wake_generation_;  // a timer that fires anyway is stale
  phase_ = phase::running_tag;
  runtime_->pool().schedule(&starter_);
}

void reaction_scheduler::on_timer(std::uint64_t generation) {
  std::unique_lock lock(mutex_);
  if (phase_ != phase::waiting_timer || generation != wake_generation_) return;
  timer_ = 0;
  phase_ = phase::running_tag;
  runtime_->pool().schedule(&starter_);
}

resume_result reaction_scheduler::starter::resume(std::size_t budget) {
  reaction_scheduler* s = owner_;  // `this` may be scheduled again once time advanced
  inside_guard inside(s->threads_inside_);
  reaction* first;
  {
    std::unique_lock lock(s->mutex_);
    first = s->advance(lock);
  }
  if (first != nullptr) s->run_from(first, budget);
  return resume_result::awaiting;
}

// ---------------------------------------------------------------- advancing time

reaction* reaction_scheduler::advance(std::unique_lock<std::mutex>& lock) {
  for (;;) {
    std::optional<tag> next = queue_.earliest();
    if (stop_tag_ && (!next || *next > *stop_tag_)) next = *stop_tag_;
    if (!next) {
      if (keep_alive_) {
        phase_ = phase::waiting_event;
        return nullptr;
      }
      set_stop_locked(last_tag_.delayed_by(duration::zero()));  // starvation
      continue;
    }
    if (!options_.fast && next->time > clock::now()) {
      stress_point();  // (under the lock: an event arriving now waits for it)
      phase_ = phase::waiting_timer;
      waiting_for_ = *next;
      const std::uint64_t generation = ++wake_generation_;
      timer_ = runtime_->timers().schedule_at(
          next->time, [link = timer_link_, generation] { link->fire(generation); });
      if (timer_ == 0) finish_locked();  // the runtime is shutting down
      return nullptr;
    }
    const bool is_stop = stop_tag_ && *next == *stop_tag_;
    reaction* first = begin_tag(*next, is_stop, lock);
    if (first != nullptr || !lock.owns_lock()) return first;
    // Nothing ran at this tag (no reaction triggered): end it and go on.
    if (is_stop) {
      finish_locked();
      return nullptr;
    }
  }
}

reaction* reaction_scheduler::begin_tag(const tag& t, bool is_stop_tag,
                                        std::unique_lock<std::mutex>& lock) {
  current_ = t;
  last_tag_ = t;
  is_stop_tag_ = is_stop_tag;
  ++generation_;
  if (trace_.enabled()) trace_.tag_started(t, start_time_);

  // Deliver (under the lock: timers and delayed inputs place their next events).
  queue_.take(t, delivered_events_);
  delivered_.clear();
  cone_.clear();
  auto seed = [&](event_target* target) {
    delivered_.push_back(target);
    for (reaction* r : target->triggered_reactions()) {
      r->triggered_.store(true, std::memory_order_relaxed);
      if (r->cone_generation_ != generation_) {
        r->cone_generation_ = generation_;
        cone_.push_back(r);
      }
    }
  };
  for (event& e : delivered_events_) {
    deliver_target(e.target, std::move(e.value));
    seed(e.target);
    if (e.target->kind() == event_target::target_kind::timer) {
      auto* periodic = static_cast<timer*>(e.target);
      if (periodic->period() > duration::zero())
        place_locked(periodic, nullptr, tag{t.time + periodic->period(), 0},
                     erased_value::empty_present());
    } else if (e.target->kind() == event_target::target_kind::port) {
      auto* p = static_cast<port_base*>(e.target);
      for (delayed_connection* c : p->delayed_from_closure()) {
        tag at =
            c->physical ? physical_tag_locked(clock::now() + c->delay) : t.delayed_by(c->delay);
        place_locked(c->to, nullptr, at, p->value_);
      }
    }
  }
  if (is_stop_tag)
    for (action_base* s : assembler::shutdown_triggers(program_.tops)) {
      s->deliver(erased_value::empty_present());
      seed(s);
    }
  delivered_events_.clear();
  if (cone_.empty()) {
    for (event_target* target : delivered_) clear_target(target);
    return nullptr;
  }
  lock.unlock();

  first_seed_ = cone_.front();
  sparse_tag_ = prefers_sparse_tag();
  if (sparse_tag_) {
    visited_.clear();
    if (running_level_ != nullptr) running_level_->clear();
    running_level_ = nullptr;
    // Empty after every tag that ended; cleared anyway, so that a tag cut short by an
    // exception cannot leave reactions to run at this one.
    for (std::size_t level : pending_levels_) by_level_[level].clear();
    pending_levels_.clear();
    for (reaction* r : cone_) add_to_level(r);  // the seeds, stamped above
    cone_view_ = &visited_;
    return start_next_level();
  }
  const std::vector<reaction*>* ready = settle_cone();
  remaining_.store(cone_view_->size(), std::memory_order_relaxed);
  reaction* keep = nullptr;
  for (reaction* r : *ready) hand_out(r, keep);
  return keep;
}

bool reaction_scheduler::prefers_sparse_tag() const {
  if (options_.mode == scheduling_mode::levels || options_.sparse == sparse_tags::always)
    return true;
  if (options_.sparse == sparse_tags::never) return false;
  const std::size_t key = cone_.front()->index_;
  if (key >= seed_stats_.size() || seed_stats_[key].cone_work == 0)
    return false;  // not measured yet: a cone tag measures it
  const seed_stats& stats = seed_stats_[key];
  return stats.cone_work >= sparse_min_work && stats.sparse_work * sparse_ratio < stats.cone_work;
}

void reaction_scheduler::learn_from_tag(std::uint64_t ran, std::uint64_t readers) {
  const std::size_t key = first_seed_->index_;
  if (key >= seed_stats_.size()) seed_stats_.resize(program_.reactions.size());
  seed_stats& stats = seed_stats_[key];
  const auto clamp = [](std::uint64_t n) {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(n, UINT32_MAX));
  };
  stats.sparse_work = clamp(ran + readers);
  if (!sparse_tag_) stats.cone_work = clamp(cone_view_->size() + cone_edges_);
}

void reaction_scheduler::add_to_level(reaction* r) {
  std::vector<reaction*>& bucket = by_level_[r->level_];
  if (bucket.empty()) {
    pending_levels_.push_back(r->level_);
    std::push_heap(pending_levels_.begin(), pending_levels_.end(), std::greater<>{});
  }
  bucket.push_back(r);
  visited_.push_back(r);
}

void reaction_scheduler::hand_out(reaction* r, reaction*& keep) {
  if (keep == nullptr) {
    keep = r;  // runs next on this thread
  } else {
    runtime_->pool().schedule_stealable(r);  // runs beside it, on a worker that steals it
  }
}

// ---------------------------------------------------------------- running reactions

void reaction_scheduler::run_from(reaction* first, std::size_t budget) {
  inside_guard inside(threads_inside_);
  // Completions of this thread not yet subtracted from remaining_: while this thread goes on
  // with a reaction of the same tag, that reaction keeps remaining_ above zero anyway, so the
  // subtraction can wait until the thread has nothing to run (one atomic per stretch of
  // inline work instead of one per reaction).
  std::size_t unsettled = 0;
  reaction* r = first;
  std::size_t ran = 0;
  while (r != nullptr) {
    if (ran == budget) {  // let the worker's other tasks run; go on as a task
      remaining_.fetch_sub(unsettled, std::memory_order_acq_rel);  // r keeps it above zero
      runtime_->pool().schedule(r);
      return;
    }
    ++ran;
    execute(r);
    r = sparse_tag_ ? complete_level(r) : complete_precise(r, unsettled);
  }
}

void reaction_scheduler::execute(reaction* r) {
  if (!r->triggered_.load(std::memory_order_relaxed))
    return;  // levels mode hands out only
             // triggered ones; precise skips
  r->ran_ = true;
  const bool traced = trace_.enabled();
  const time_point begin = traced ? clock::now() : time_point{};
  bool in_deadline_handler = false;
  try {
    if (r->deadline_ != reaction::no_deadline && clock::now() > current_.time + r->deadline_) {
      in_deadline_handler = true;
      r->invoke_deadline_handler();
    } else {
      r->invoke();
    }
  } catch (...) {
    record_failure(r, in_deadline_handler);
  }
  if (traced) trace_.reaction_ran(trace_name_of_[r->index_], begin, clock::now());
}

reaction* reaction_scheduler::complete_precise(reaction* r, std::size_t& unsettled) {
  // Successors that become ready untriggered are skipped here, without a trip through the
  // pool; their completions cascade through this small stack.
  reaction* small_stack[16];
  std::vector<reaction*> overflow;
  std::size_t depth = 0;
  auto push = [&](reaction* x) {
    if (depth < std::size(small_stack)) {
      small_stack[depth++] = x;
    } else {
      overflow.push_back(x);
    }
  };
  auto pop = [&]() -> reaction* {
    if (!overflow.empty()) {
      reaction* x = overflow.back();
      overflow.pop_back();
      return x;
    }
    return depth == 0 ? nullptr : small_stack[--depth];
  };
  reaction* keep = nullptr;
  for (reaction* x = r; x != nullptr; x = pop()) {
    ++unsettled;
    for (reaction* s : x->successors_) {
      if (s->cone_generation_ != generation_) continue;
      stress_point();  // races another predecessor's decrement
      // A count of one is this thread's own: no other predecessor is left to race with.
      if (s->pending_.load(std::memory_order_acquire) != 1 &&
          s->pending_.fetch_sub(1, std::memory_order_acq_rel) != 1)
        continue;
      if (s->triggered_.load(std::memory_order_relaxed)) {
        hand_out(s, keep);
      } else {
        push(s);
      }
    }
  }
  if (keep != nullptr) return keep;
  const std::size_t completed = std::exchange(unsettled, 0);
  if (remaining_.fetch_sub(completed, std::memory_order_acq_rel) != completed) return nullptr;
  return end_tag();  // the tag's last reaction: this thread advances
}

reaction* reaction_scheduler::complete_level(reaction* r) {
  if (r->chunk_next_ != nullptr) return r->chunk_next_;  // the rest of its chunk, here
  if (level_remaining_.fetch_sub(1, std::memory_order_acq_rel) != 1) return nullptr;
  return start_next_level();
}

reaction* reaction_scheduler::start_next_level() {
  // The level that just finished: bucket the readers of the ports its reactions set (each
  // once: cone_generation_ marks a reaction bucketed at this tag). All are triggered, and
  // all are at higher levels than the reaction that set the port.
  if (running_level_ != nullptr) {
    for (reaction* r : *running_level_)
      for (port_base* p : r->set_ports_)
        for (reaction* reader : p->triggered_reactions())
          if (reader->cone_generation_ != generation_) {
            reader->cone_generation_ = generation_;
            add_to_level(reader);
          }
    running_level_->clear();
    running_level_ = nullptr;
  }
  if (pending_levels_.empty()) return end_tag();
  std::pop_heap(pending_levels_.begin(), pending_levels_.end(), std::greater<>{});
  running_level_ = &by_level_[pending_levels_.back()];
  pending_levels_.pop_back();
  // Every bucketed reaction was triggered: a seed by an event, the others by a port. The
  // level goes out in at most level_chunks_ chunks of consecutive reactions, each run by one
  // thread in order (a reaction's chunk_next_), so that a level of many small reactions
  // costs a few tasks, not one each; a chunk's last reaction counts the chunk done.
  const std::vector<reaction*>& level = *running_level_;
  const std::size_t n = level.size();
  const std::size_t chunks = std::min(n, level_chunks_);
  level_remaining_.store(chunks, std::memory_order_relaxed);
  reaction* keep = nullptr;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t begin = c * n / chunks, end = (c + 1) * n / chunks;
    for (std::size_t i = begin; i < end; ++i)
      level[i]->chunk_next_ = i + 1 < end ? level[i + 1] : nullptr;
    hand_out(level[begin], keep);  // after its chunk's links: it may run at once elsewhere
  }
  return keep;
}

reaction* reaction_scheduler::end_tag() {
  staged_by_.clear();
  std::uint64_t ran = 0, readers = 0;  // reactions run; readers of the ports they set
  for (reaction* r : *cone_view_) {
    if (r->ran_) {
      ++ran;
      for (port_base* p : r->set_ports_) {
        readers += p->triggered_reactions().size();
        p->clear_root();
      }
      r->set_ports_.clear();
      r->ran_ = false;
      if (!r->staged_.empty()) staged_by_.push_back(r);
      if (r->mutation_) {
        if (r->failed_) {
          drop_mutation(r);
        } else {
          mutated_by_.push_back(r);
        }
      }
      r->failed_ = false;
    }
    r->triggered_.store(false, std::memory_order_relaxed);
  }
  for (event_target* target : delivered_) clear_target(target);
  learn_from_tag(ran, readers);
  settle_failures();
  // One writer (the thread ending the tag); readers are metrics (environment::statistics).
  reactions_executed_.fetch_add(ran, std::memory_order_relaxed);
  tags_completed_.fetch_add(1, std::memory_order_relaxed);
  if (sparse_tag_) sparse_tags_completed_.fetch_add(1, std::memory_order_relaxed);
  std::sort(staged_by_.begin(), staged_by_.end(),
            [](reaction* a, reaction* b) { return a->index_ < b->index_; });

  std::unique_lock lock(mutex_);
  for (reaction* r : staged_by_) {
    for (staged_event& e : r->staged_) {
      tag at =
          e.physical ? physical_tag_locked(clock::now() + e.delay) : current_.delayed_by(e.delay);
      place_locked(e.target, e.action, at, std::move(e.value));
    }
    r->staged_.clear();
  }
  if (!mutated_by_.empty()) apply_mutations_locked();
  if (is_stop_tag_) {
    finish_locked();
    return nullptr;
  }
  return advance(lock);
}

}  // namespace spate::reactor::detail
