// What the reaction scheduler does when a reaction throws (environment.hpp, "When a reaction
// throws"; docs/reactors.md): record the failure and stop at the next microstep; when the tag
// ends, order the tag's failures, keep the first and report the others; wait() throws the
// first as a reaction_error with the original nested.
#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include "describe_time.hpp"
#include "spate/exec/runtime.hpp"
#include "spate/platform/exception_text.hpp"
#include "spate/reactor/detail/reaction_scheduler.hpp"

namespace spate::reactor::detail {

void reaction_scheduler::wait_and_report() {
  std::unique_lock lock(mutex_);
  finished_cv_.wait(lock, [&] { return phase_ == phase::finished; });
  if (!first_failure_ || failure_delivered_) return;
  failure_delivered_ = true;
  const std::string text = failure_message_locked();
  lock.unlock();
  report(text);
}

namespace {

std::string what_of(const std::exception_ptr& error) {
  return exception_text(error, "an exception not derived from std::exception");
}

}  // namespace

// On the failing reaction's worker, in its handler. The program stops as if the reaction had
// called request_stop(): the tag finishes, the shutdown tag is the next microstep.
void reaction_scheduler::record_failure(reaction* r, bool in_deadline_handler) {
  r->failed_ = true;
  std::string name;
  try {  // (in a handler: a failure to build the name must not escape to the worker)
    name = r->fully_qualified_name();
  } catch (...) {
    name = "(a reaction)";
  }
  std::lock_guard lock(mutex_);
  tag_failures_.push_back(
      failure{r->index_, std::move(name), in_deadline_handler, std::current_exception()});
  set_stop_locked(current_.delayed_by(duration::zero()));
}

// At the end of a tag, with every reaction of it completed (so nobody adds to tag_failures_).
// Failures are ordered by tag and then by the reactions' order, not by which worker threw
// first, so the one run() throws and the order of the reports are the same on any number of
// workers. Reports are made without the lock: the reporter is user code.
void reaction_scheduler::settle_failures() {
  if (tag_failures_.empty()) return;
  std::sort(tag_failures_.begin(), tag_failures_.end(),
            [](const failure& a, const failure& b) { return a.index < b.index; });
  std::vector<std::string> texts;
  for (const failure& f : tag_failures_)
    texts.push_back(
        "reaction '" + f.name + "' failed at tag " + describe_tag(current_, start_time_) +
        (f.in_deadline_handler ? " in its deadline handler" : "") + ": " + what_of(f.error));
  std::vector<std::string> later;
  {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < tag_failures_.size(); ++i) {
      if (!first_failure_) {
        first_failure_ =
            first_failure{texts[i], tag_failures_[i].name, current_, tag_failures_[i].error};
        continue;
      }
      ++later_failures_;
      if (next_failure_.empty()) next_failure_ = texts[i];
      later.push_back(std::move(texts[i]));
    }
    tag_failures_.clear();
  }
  for (const std::string& text : later) report(text);
}

std::string reaction_scheduler::failure_message_locked() const {
  std::string text = first_failure_->text;
  if (later_failures_ != 0)
    text += " [" + std::to_string(later_failures_) +
            (later_failures_ == 1 ? " later failure" : " later failures") +
            ", each reported through the runtime's error reporter; the next: " + next_failure_ +
            "]";
  return text;
}

void reaction_scheduler::throw_failure_locked(std::unique_lock<std::mutex>& lock) {
  failure_delivered_ = true;
  const std::string text = failure_message_locked();
  const first_failure f = *first_failure_;
  const std::size_t later = later_failures_;
  lock.unlock();
  try {
    std::rethrow_exception(f.error);
  } catch (...) {
    // In the original's handler: reaction_error's nested_exception captures it.
    throw reaction_error(text, f.reaction_name, f.at, f.at.time - start_time_, later);
  }
}

void reaction_scheduler::report(const std::string& text) noexcept {
  try {
    runtime_->report_error(text);
  } catch (...) {
    // A reporter that throws has nowhere left to report to; the worker must go on.
  }
}

}  // namespace spate::reactor::detail
