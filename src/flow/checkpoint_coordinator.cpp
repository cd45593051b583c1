#include "spate/flow/detail/checkpoint_coordinator.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "spate/flow/detail/graph_state.hpp"
#include "spate/flow/detail/node_task_base.hpp"
#include "spate/log/log.hpp"
#include "spate/platform/exception_text.hpp"
#include "spate/state/codec.hpp"

namespace spate::flow::detail {

namespace {
std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

checkpoint_coordinator::checkpoint_coordinator(checkpoint_options options, graph_state& graph)
    : options_(std::move(options)),
      graph_(graph),
      store_(std::in_place, state::checkpoint_store_options{.directory = options_.directory,
                                                            .retain = options_.retain}) {
  if (options_.interval <= std::chrono::milliseconds(0)) {
    throw std::invalid_argument("spate::flow: checkpoint_options::interval must be positive, not " +
                                std::to_string(options_.interval.count()) + " ms");
  }
  if (options_.key_groups == 0) {
    throw std::invalid_argument("spate::flow: checkpoint_options::key_groups must be at least 1");
  }
  ended_.assign(graph_.tasks().size(), false);
  for (std::size_t i = 0; i < graph_.tasks().size(); ++i) {
    graph_.tasks()[i]->join_checkpoints(this, i);
  }
}

checkpoint_coordinator::~checkpoint_coordinator() {
  stop();
}

namespace {
// A task's part is a file named after it, with '/' (a line_source's name holds its path)
// and NUL written %2F and %00. Names without them, which are all that could have parts
// before, are their own part names. '%' is left as it is, so "a%2Fb" and "a/b" would share
// a part: restore() refuses that (the part names clash).
std::string part_name_of(std::string_view task) {
  std::string out;
  out.reserve(task.size());
  for (const char c : task) {
    if (c == '/') {
      out += "%2F";
    } else if (c == '\0') {
      out += "%00";
    } else {
      out += c;
    }
  }
  return out;
}
// A part's file name ("part-" name ".bin") must fit in a directory entry.
constexpr std::size_t longest_part_name = 255 - 9;

// A farm replica's name without its replica suffix ("count#1" -> "count").
std::string_view farm_of(std::string_view name) {
  const std::size_t hash = name.rfind('#');
  return hash == std::string_view::npos ? name : name.substr(0, hash);
}
}  // namespace

std::string checkpoint_coordinator::fingerprint() const {
  // What must match for a checkpoint to fit: the sources (their positions go by name), the
  // nodes with their own state (by name, replicas included), and the farms with keyed state
  // (by farm and layout, whatever their replica count: their rows move by key group).
  // Stateless nodes do not count.
  std::string out;
  std::string last_keyed;
  for (const auto& t : graph_.tasks()) {
    const std::string keyed = t->keyed_layout();
    const std::string own = t->own_layout();
    const bool source = t->stats().kind == "source";
    // Unaligned: every task's part holds items in flight of its chain's types.
    if (const std::string chain = t->chain_layout(); unaligned() && !chain.empty()) {
      out += t->name() + " chain {" + chain + "}\n";
    }
    if (!source && own.empty() && !keyed.empty()) {
      std::string line = std::string(farm_of(t->name())) + "#* keyed {" + keyed + "}\n";
      if (line != last_keyed) out += line;
      last_keyed = std::move(line);
      continue;
    }
    if (!source && own.empty()) continue;
    out += t->name() + " (" + t->stats().kind + ")";
    if (!keyed.empty()) out += " keyed {" + keyed + "}";
    if (!own.empty()) out += " state {" + own + "}";
    out += "\n";
  }
  return out;
}

void checkpoint_coordinator::restore() {
  std::string refused;
  for (const auto& t : graph_.tasks()) {
    if (std::string why = t->checkpoint_refusal(); !why.empty()) {
      refused += (refused.empty() ? "" : "; ") + ("'" + t->name() + "' " + why);
    } else if (unaligned()) {
      if (why = t->unaligned_refusal(); !why.empty()) {
        refused += (refused.empty() ? "" : "; ") +
                   ("'" + t->name() + "' " + why + ", and checkpoints are unaligned");
      }
    }
  }
  // Parts are named after their tasks, and a keyed farm's parts after its name: two tasks
  // with state under one name, or two keyed farms under one name, would share parts.
  std::set<std::string> names, part_names, keyed_farms, sources;
  for (const auto& t : graph_.tasks()) {
    // Positions go by source name.
    if (t->stats().kind == "source" && !sources.insert(t->name()).second) {
      refused +=
          (refused.empty() ? "" : "; ") + ("two sources are named '" + t->name() +
                                           "' (give them distinct names: node_stage::named())");
    }
    const bool keyed = !t->keyed_layout().empty();
    // Unaligned, every task's part may hold items in flight.
    if (!keyed && t->own_layout().empty() && !unaligned()) continue;
    std::string clash;
    // A farm's replicas are built one after the other, from #0.
    const bool first_replica =
        t->name().ends_with("#0") || t->name().find('#') == std::string::npos;
    if (keyed && first_replica && !keyed_farms.insert(std::string(farm_of(t->name()))).second) {
      clash = "two farms with keyed state are named '" + std::string(farm_of(t->name())) + "'";
    } else if (!names.insert(t->name()).second) {
      clash = unaligned() ? "two nodes are named '" + t->name() +
                                "' (unaligned checkpoints store items in flight by node name)"
                          : "two nodes with state are named '" + t->name() + "'";
    } else if (const std::string part = part_name_of(t->name()); part.size() > longest_part_name) {
      clash = "'" + t->name() + "' is too long to name a checkpoint part (" +
              std::to_string(part.size()) + " bytes as a file name, at most " +
              std::to_string(longest_part_name) + ")";
    } else if (!part_names.insert(part).second) {
      clash = "'" + t->name() + "' and another node would share the checkpoint part '" + part + "'";
    }
    if (!clash.empty()) {
      refused += (refused.empty() ? "" : "; ") + clash +
                 " (give them distinct names: node_stage::named())";
    }
  }
  for (std::size_t i = 0; i < graph_.tasks().size(); ++i) {
    const auto& t = graph_.tasks()[i];
    if (!t->commits()) continue;
    committers_.push_back(i);
    // T4: it may wait for a checkpoint's outcome, which a pool worker must never do.
    if (!t->on_dedicated_thread()) {
      refused += (refused.empty() ? "" : "; ") +
                 ("'" + t->name() +
                  "' commits output at checkpoints and may wait for one's outcome, so it must "
                  "run on a thread of its own (node_stage::on_dedicated_thread())");
    }
  }
  if (committers_.size() > 1) {
    refused += (refused.empty() ? "" : "; ") + ("'" + graph_.tasks()[committers_[0]]->name() +
                                                "' and '" + graph_.tasks()[committers_[1]]->name() +
                                                "' both commit output at checkpoints (one "
                                                "committing sink per graph)");
  }
  if (!refused.empty()) {
    throw std::invalid_argument("spate::flow: checkpoints are on, but " + refused +
                                " (flow/checkpoints.hpp)");
  }
  fingerprint_ = fingerprint();
  std::vector<std::string> problems;
  std::optional<state::checkpoint_manifest> latest = store_->latest(fingerprint_, problems);
  if (latest && !committers_.empty()) latest = committed_checkpoint(std::move(*latest));
  if (!latest) return;
  const std::string where = store_->checkpoint_directory(latest->id).string();
  if (latest->key_groups != options_.key_groups) {
    throw std::invalid_argument("spate::flow: checkpoint " + where + " divides keyed state into " +
                                std::to_string(latest->key_groups) +
                                " key groups, but checkpoint_options::key_groups is " +
                                std::to_string(options_.key_groups));
  }
  // Each part is read (and checked) once, however many replicas take rows from it; the
  // parts read are kept only while the tasks are one farm's replicas (the builder adds them
  // one after another), so a restore holds one farm's state in memory, not the graph's.
  std::map<std::string, part_contents, std::less<>> parts;
  std::string parts_farm;
  auto part = [&](const std::string& name) -> const part_contents& {
    auto it = parts.find(name);
    if (it == parts.end()) {
      it = parts.emplace(name, decode_part(store_->read_part(*latest, name))).first;
    }
    return it->second;
  };
  const auto has_part = [&](std::string_view name) {
    return std::any_of(latest->parts.begin(), latest->parts.end(),
                       [&](const auto& p) { return p.name == name; });
  };
  // A farm's replicas are "farm#k"; a node named "farm" alone is not one of them.
  const auto replicas_named = [](std::string_view name) {
    return std::string(farm_of(name)) + (name.find('#') == std::string_view::npos ? "" : "#");
  };
  const auto parts_of_farm = [&](const std::string& replicas) {
    return std::count_if(latest->parts.begin(), latest->parts.end(),
                         [&](const auto& p) { return replicas_named(p.name) == replicas; });
  };
  const auto tasks_of_farm = [&](const std::string& replicas) {
    return std::count_if(graph_.tasks().begin(), graph_.tasks().end(), [&](const auto& t) {
      return replicas_named(part_name_of(t->name())) == replicas;
    });
  };
  // A part with items in flight whose node is gone (fewer replicas now) would lose them.
  for (const auto& p : latest->parts) {
    const bool has_task =
        std::any_of(graph_.tasks().begin(), graph_.tasks().end(),
                    [&](const auto& t) { return part_name_of(t->name()) == p.name; });
    if (has_task) continue;
    const auto contents = decode_part(store_->read_part(*latest, p.name));
    if (!std::get<2>(contents).empty() || !std::get<3>(contents).empty()) {
      throw std::runtime_error("spate::flow: restoring from " + where + ": part '" + p.name +
                               "' holds items in flight (an unaligned checkpoint), but the graph "
                               "has no node of that name (restore onto the same replica counts)");
    }
  }
  for (const auto& t : graph_.tasks()) {
    if (const std::string farm(farm_of(t->name())); farm != parts_farm) {
      parts.clear();
      parts_farm = farm;
    }
    try {
      if (!t->keyed_layout().empty()) {
        // Every part of its farm: the replicas may have been more or fewer.
        for (const auto& p : latest->parts) {
          if (farm_of(p.name) != farm_of(part_name_of(t->name()))) continue;
          const part_contents& contents = part(p.name);
          if (!std::get<0>(contents).empty()) {
            t->restore_keyed(std::get<0>(contents), latest->key_groups);
          }
        }
      }
      const std::string part_name = part_name_of(t->name());
      if (!t->own_layout().empty()) t->restore_own(std::get<1>(part(part_name)));
      if (has_part(part_name)) {
        const part_contents& contents = part(part_name);
        if (!std::get<2>(contents).empty() || !std::get<3>(contents).empty()) {
          // Items a replica received were routed by the old replica count (by key group,
          // say): they cannot go to another count's replicas as they are.
          const std::string farm = replicas_named(part_name);
          if (parts_of_farm(farm) != tasks_of_farm(farm)) {
            throw std::runtime_error(
                "its part holds items in flight (an unaligned checkpoint), which restore only "
                "onto the replica count that stored them: " +
                std::to_string(parts_of_farm(farm)) + " replicas then, " +
                std::to_string(tasks_of_farm(farm)) + " now");
          }
          t->restore_in_flight(std::get<2>(contents), std::get<3>(contents));
        }
      }
      if (t->stats().kind == "source") {
        const auto it = latest->extras.find("position/" + t->name());
        if (it == latest->extras.end()) {
          throw std::runtime_error("its position is missing from the manifest");
        }
        t->restore_position(it->second);
      }
    } catch (const std::exception& e) {
      throw std::runtime_error("spate::flow: restoring '" + t->name() + "' from " + where + ": " +
                               e.what());
    }
  }
  stats_.restored_from = latest->id;
  log::write(log::level::info, "flow", "restored from " + where);
}

checkpoint_commit checkpoint_coordinator::commit_of(const state::checkpoint_manifest& m) {
  checkpoint_commit c{.id = m.id, .positions = {}, .at_end = false};
  constexpr std::string_view prefix = "position/";
  for (const auto& [key, value] : m.extras) {
    if (key.starts_with(prefix)) c.positions.emplace(key.substr(prefix.size()), value);
  }
  return c;
}

// T5: with a committing sink, the checkpoint to restore is the one whose output it
// committed last, not the newest on disk: a newer one's output was aborted.
std::optional<state::checkpoint_manifest> checkpoint_coordinator::committed_checkpoint(
    state::checkpoint_manifest newest) {
  node_task_base& sink = *graph_.tasks()[committers_.front()];
  std::optional<std::uint64_t> id;
  try {
    id = sink.last_committed(commit_of(newest));
  } catch (const std::exception& e) {
    throw std::runtime_error("spate::flow: restoring: asking '" + sink.name() +
                             "' which checkpoint it committed last: " + e.what());
  }
  if (!id) {
    log::write(log::level::info, "flow",
               "'" + sink.name() + "' has committed no checkpoint: starting afresh, not from " +
                   store_->checkpoint_directory(newest.id).string());
    return std::nullopt;
  }
  if (*id == newest.id) return newest;
  std::string problem;
  std::optional<state::checkpoint_manifest> committed = store_->check(*id, fingerprint_, problem);
  if (!committed) {
    throw std::runtime_error(
        "spate::flow: restoring: '" + sink.name() + "' committed the output of checkpoint " +
        std::to_string(*id) +
        " last, but it cannot be restored: " + (store_->directory() / problem).string());
  }
  log::write(log::level::info, "flow",
             "'" + sink.name() + "' committed checkpoint " + std::to_string(*id) +
                 " last; checkpoint " + std::to_string(newest.id) +
                 " was never committed and is not restored");
  return committed;
}

void checkpoint_coordinator::start() {
  next_trigger_ = std::chrono::steady_clock::now() + options_.interval;
  // The thread keeps the graph alive until every task has ended: a call it makes into the
  // graph (fail(), a task's notify() that a stopped pool turns into discard()) may end
  // tasks, and must not drop the last reference under its feet. Its last act releases that
  // reference, which may destroy the graph and this coordinator (stop() then detaches).
  thread_ = std::thread([this, keep = graph_.shared_from_this()]() mutable {
    run();
    keep.reset();
  });
}

void checkpoint_coordinator::stop() noexcept {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    if (thread_.get_id() == std::this_thread::get_id()) {
      // start(): the thread's last act releasing the graph. Nothing more to do here: the
      // store closes with this object.
      thread_.detach();
      return;
    }
    thread_.join();
  }
  store_.reset();
}

void checkpoint_coordinator::acknowledge(checkpoint_ack ack) {
  {
    const std::lock_guard lock(mutex_);
    acks_.push_back(std::move(ack));
  }
  wake_.notify_all();
}

void checkpoint_coordinator::task_ended(std::size_t task) {
  {
    const std::lock_guard lock(mutex_);
    if (!ended_[task]) ++ended_count_;
    ended_[task] = true;
    any_ended_ = true;
  }
  wake_.notify_all();
}

void checkpoint_coordinator::source_ended(std::size_t task, std::string position) {
  const std::lock_guard lock(mutex_);
  final_positions_[graph_.tasks()[task]->name()] = std::move(position);
}

checkpoint_commit checkpoint_coordinator::commit_at_end() const {
  const std::lock_guard lock(mutex_);
  return {.id = stats_.last_id, .positions = final_positions_, .at_end = true};
}

checkpoint_stats checkpoint_coordinator::stats() const {
  const std::lock_guard lock(mutex_);
  return stats_;
}

void checkpoint_coordinator::run() {
  try {
    loop();
  } catch (...) {  // out of memory, a throwing on_complete: the graph fails, nothing is lost
    graph_.fail_unless_finished("checkpoint coordinator", std::current_exception());
  }
}

void checkpoint_coordinator::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    // Acks first: a task acknowledges before it ends, so an ended task whose ack is still
    // queued must not count as one the barrier never reached. Queued acks are handled even
    // when stopping: the graph's last checkpoint may be waiting only for them.
    if (!acks_.empty()) {
      checkpoint_ack ack = std::move(acks_.front());
      acks_.pop_front();
      lock.unlock();
      handle(std::move(ack));  // encodes and writes without the lock
      lock.lock();
      continue;
    }
    // Tasks that ended count as answered (C4): a barrier will never reach them.
    if (pending_) {
      for (std::size_t i = 0; i < ended_.size(); ++i) {
        if (ended_[i] && !pending_->answered[i]) {
          if (pending_->failure.empty()) {
            pending_->failure = "'" + graph_.tasks()[i]->name() + "' ended before the barrier";
            pending_->abandoned = true;
          }
          answered(i);
        }
      }
      if (pending_->unanswered == 0) {
        finish_pending(lock);
        continue;
      }
    }
    // Every task ended and every answer handled: nothing more can happen.
    if (stopping_ || ended_count_ == ended_.size()) break;
    const bool may_trigger = !pending_ && !any_ended_ && !graph_failed_;
    if (may_trigger && std::chrono::steady_clock::now() >= next_trigger_) {
      trigger(lock);
      continue;
    }
    // Woken by an ack, an ended task or stop(); the deadline is the next trigger, not a
    // re-check: nothing else changes while this sleeps.
    if (may_trigger) {
      wake_.wait_until(lock, next_trigger_);
    } else {
      wake_.wait(lock);
    }
  }
  // Stopped with a checkpoint some task never answered (stop() before the graph ended): it
  // never completes, and its parts go with it.
  if (pending_) {
    const std::uint64_t id = pending_->id;
    pending_.reset();
    lock.unlock();
    try {
      store_->remove(id);
    } catch (const std::exception& e) {
      log::write(log::level::warn, "flow",
                 "removing unfinished checkpoint " + std::to_string(id) + ": " + e.what());
    }
  }
}

void checkpoint_coordinator::trigger(std::unique_lock<std::mutex>& lock) {
  // C1. Called with the lock held, which next_id()'s directory scan runs without (tasks
  // acknowledging or ending must not wait for it); pending_ is this thread's alone.
  pending_checkpoint p;
  lock.unlock();
  try {
    p.id = store_->next_id();
  } catch (...) {
    graph_.fail_unless_finished("checkpoint coordinator", std::current_exception());
    lock.lock();
    graph_failed_ = true;
    return;
  }
  lock.lock();
  p.started = std::chrono::steady_clock::now();
  p.answered.assign(graph_.tasks().size(), false);
  p.acknowledged.assign(graph_.tasks().size(), false);
  p.unanswered = graph_.tasks().size();
  p.manifest.id = p.id;
  p.manifest.fingerprint = fingerprint_;
  p.manifest.key_groups = options_.key_groups;
  next_trigger_ = p.started + options_.interval;
  const std::uint64_t id = p.id;
  pending_ = std::move(p);
  lock.unlock();
  for (const auto& t : graph_.tasks()) {
    if (t->stats().kind == "source") t->request_checkpoint(id);
  }
  lock.lock();
}

void checkpoint_coordinator::handle(checkpoint_ack ack) {
  // The coordinator thread owns pending_ between its lock sections: only run() and this
  // change it, and both run on that thread.
  if (!pending_ || ack.id != pending_->id || pending_->answered[ack.task]) return;
  pending_checkpoint& p = *pending_;
  node_task_base& task = *graph_.tasks()[ack.task];
  if (p.failure.empty()) {
    try {
      if (ack.position) p.manifest.extras["position/" + task.name()] = std::move(*ack.position);
      p.in_flight += ack.in_flight;
      if (ack.part) {
        const std::string bytes = ack.part->encode(options_.key_groups);
        ack.part.reset();  // S4: the snapshot is read; the task stops copying
        p.manifest.parts.push_back(store_->write_part(p.id, part_name_of(task.name()), bytes));
        p.bytes += p.manifest.parts.back().file_size;
      }
    } catch (const std::exception& e) {
      p.failure = "part '" + task.name() + "': " + e.what();
    }
  }
  const std::lock_guard lock(mutex_);
  p.acknowledged[ack.task] = true;
  answered(ack.task);
}

void checkpoint_coordinator::answered(std::size_t task) {
  pending_->answered[task] = true;
  --pending_->unanswered;
}

void checkpoint_coordinator::finish_pending(std::unique_lock<std::mutex>& lock) {
  // C3 or C4, with the lock held on entry and exit; the I/O runs without it.
  pending_checkpoint p = std::move(*pending_);
  pending_.reset();
  lock.unlock();
  if (p.failure.empty()) {
    try {
      p.manifest.created_ms = now_ms();
      store_->commit(p.manifest);
    } catch (const std::exception& e) {
      p.failure = std::string("commit: ") + e.what();
    }
  }
  // C5: committed before older checkpoints go, so a crash between the commit point and
  // the sink's commit still finds the one the sink committed before (T5).
  const bool committed = commit_to_committers(p);
  if (p.failure.empty() && committed) {
    try {
      store_->retire();  // a failure here leaves an old checkpoint, not a broken new one
    } catch (const std::exception& e) {
      log::write(log::level::warn, "flow", std::string("retiring old checkpoints: ") + e.what());
    }
  }
  if (!p.failure.empty()) {
    try {
      store_->remove(p.id);
    } catch (const std::exception& e) {
      log::write(log::level::warn, "flow",
                 "removing failed checkpoint " + std::to_string(p.id) + ": " + e.what());
    }
  }
  bool fail_graph = false;
  lock.lock();
  if (p.failure.empty() && !committed) {
    // Durable but not committed (cancelled, or the committer failed the graph): not a
    // restart point the outside world agrees with, and no more checkpoints.
    graph_failed_ = true;
  } else if (p.failure.empty()) {
    failures_in_a_row_ = 0;
    ++stats_.completed;
    stats_.last_id = p.id;
    stats_.last_bytes = p.bytes;
    stats_.last_in_flight = p.in_flight;
    stats_.last_duration = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - p.started);
  } else if (p.abandoned) {
    ++stats_.abandoned;  // the input ended: not a failure (C4)
  } else {
    ++stats_.failed;
    // Once every task has ended the run's outcome is settled: a checkpoint that fails
    // then only loses a restart point, and is reported (above), not thrown.
    fail_graph =
        ++failures_in_a_row_ > options_.tolerable_failures && ended_count_ != ended_.size();
  }
  const bool failed = !p.failure.empty() && !p.abandoned;
  if (failed) {
    lock.unlock();  // a log sink may ask for stats()
    log::write(log::level::warn, "flow",
               "checkpoint " + std::to_string(p.id) + " failed: " + p.failure);
    lock.lock();
  }
  if (fail_graph) {
    graph_failed_ = true;
    lock.unlock();
    graph_.fail_unless_finished("checkpoint coordinator",
                                std::make_exception_ptr(std::runtime_error(
                                    "checkpoint " + std::to_string(p.id) + " in " +
                                    store_->directory().string() + " failed: " + p.failure)));
    lock.lock();
  }
  if (!committed) graph_failed_ = true;  // cancelled, or the committer failed the graph
  if (p.failure.empty() && committed && options_.on_complete) {
    lock.unlock();
    options_.on_complete(p.id);
    lock.lock();
  }
}

}  // namespace spate::flow::detail

namespace spate::flow::detail {

// C5 (without the lock): T2 for a complete checkpoint, T3 for one that failed. False: not
// committed, because the graph was cancelled or because a commit failed, which fails the
// graph (the sink's output since its last commit is redone at the restart).
bool checkpoint_coordinator::commit_to_committers(const pending_checkpoint& p) {
  for (const std::size_t i : committers_) {
    node_task_base& t = *graph_.tasks()[i];
    try {
      if (p.failure.empty()) {
        if (!t.commit(commit_of(p.manifest))) {
          // Allowed only when cancelled: a node that holds output back until its commit
          // would otherwise wait for good, with no checkpoint coming to release it.
          if (!graph_.cancelled()) {
            graph_.fail_unless_finished(
                t.name(), std::make_exception_ptr(std::logic_error(
                              "did not commit checkpoint " + std::to_string(p.id) +
                              " though the graph was not cancelled (commit() returned false)")));
          }
          return false;
        }
      } else if (p.acknowledged[i]) {
        t.abort_commit(p.id);  // T3: only a node that prepared it
      }
    } catch (...) {
      // A commit cut short by a cancel is not a failure of the run: the restart redoes it.
      if (graph_.cancelled()) {
        log::write(log::level::warn, "flow",
                   "'" + t.name() + "' did not commit checkpoint " + std::to_string(p.id) +
                       " (cancelled): " + exception_text(std::current_exception()));
      } else {
        graph_.fail_unless_finished(t.name(), std::current_exception());
      }
      return false;
    }
  }
  return true;
}

}  // namespace spate::flow::detail
