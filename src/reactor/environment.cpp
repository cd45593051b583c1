#include "spate/reactor/environment.hpp"

#include <algorithm>
#include <fstream>

#include "spate/exec/runtime.hpp"
#include "spate/reactor/detail/assembler.hpp"
#include "spate/reactor/detail/reaction_scheduler.hpp"

namespace spate::reactor {

environment::environment(spate::runtime& rt, environment_options options)
    : runtime_(&rt), options_(options) {
  if (options_.timeout && *options_.timeout < duration::zero())
    throw std::invalid_argument("environment_options::timeout must not be negative");
}

environment::~environment() {
  if (shutdown_step_ != 0) runtime_->remove_shutdown_step(shutdown_step_);
  if (reaction_scheduler_ != nullptr && reaction_scheduler_->is_started()) {
    reaction_scheduler_->request_stop();
    reaction_scheduler_->wait_and_report();  // a destructor does not throw the program's failure
  }
  reaction_scheduler_.reset();  // before the reactors, whose reactions it points to
  tops_.clear();
}

void environment::check_not_assembled(const char* what) const {
  if (reaction_scheduler_ != nullptr)
    throw std::logic_error(std::string("environment::") + what +
                           ": the program is already assembled");
}

void environment::assemble() {
  if (reaction_scheduler_ != nullptr) return;
  if (tops_.empty()) throw assembly_error("the environment has no reactors (make_top first)");
  std::vector<reactor*> tops;
  for (auto& t : tops_) tops.push_back(t.get());
  reaction_scheduler_ = std::make_unique<detail::reaction_scheduler>(
      *runtime_, options_, detail::assembler::assemble(tops));
}

void environment::start() {
  assemble();
  if (runtime_->is_shut_down())
    throw std::logic_error("environment::start: the runtime is shut down");
  // Runtime shutdown, step 1: the program stops at its next microstep.
  shutdown_step_ = runtime_->on_shutdown([s = reaction_scheduler_.get()] {
    s->request_stop();
    s->wait_and_report();
  });
  reaction_scheduler_->start();
}

void environment::wait() {
  if (reaction_scheduler_ == nullptr) throw std::logic_error("environment::wait: not started");
  if (runtime_->pool().is_worker_thread())
    throw std::logic_error(
        "environment::wait called on a worker of its runtime: it would wait "
        "for itself");
  reaction_scheduler_->wait();
}

bool environment::wait_for(duration timeout) {
  if (reaction_scheduler_ == nullptr) throw std::logic_error("environment::wait_for: not started");
  return reaction_scheduler_->wait_for(timeout);
}

void environment::request_stop() {
  if (reaction_scheduler_ != nullptr) reaction_scheduler_->request_stop();
}

bool environment::is_finished() const {
  return reaction_scheduler_ != nullptr && reaction_scheduler_->is_finished();
}

tag environment::current_tag() const noexcept {
  return reaction_scheduler_ == nullptr ? tag{} : reaction_scheduler_->current_tag();
}

time_point environment::start_time() const noexcept {
  return reaction_scheduler_ == nullptr ? time_point{} : reaction_scheduler_->start_time();
}

std::size_t environment::reaction_count() const {
  return reaction_scheduler_ == nullptr ? 0 : reaction_scheduler_->reaction_count();
}

std::size_t environment::level_count() const {
  return reaction_scheduler_ == nullptr ? 0 : reaction_scheduler_->level_count();
}

std::size_t environment::rejected_mutations() const {
  return reaction_scheduler_ == nullptr ? 0 : reaction_scheduler_->rejected_mutations();
}

std::uint64_t environment::tags_completed() const noexcept {
  return reaction_scheduler_ == nullptr ? 0 : reaction_scheduler_->tags_completed();
}

std::uint64_t environment::reactions_executed() const noexcept {
  return reaction_scheduler_ == nullptr ? 0 : reaction_scheduler_->reactions_executed();
}

std::uint64_t environment::sparse_tags_completed() const noexcept {
  return reaction_scheduler_ == nullptr ? 0 : reaction_scheduler_->sparse_tags_completed();
}

std::string environment::trace_json() const {
  if (reaction_scheduler_ == nullptr) return R"({"traceEvents":[]})";
  return reaction_scheduler_->trace().to_json();
}

void environment::write_trace(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write the trace to " + path);
  out << trace_json();
}

}  // namespace spate::reactor
