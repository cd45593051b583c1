#include "spate/actor/abstract_actor.hpp"
#include "spate/actor/response.hpp"

#include <utility>

namespace spate {
namespace {

// A time-out in the largest unit that states it exactly: "50 ms", "2 s", "1500 us".
std::string duration_text(std::chrono::nanoseconds d) {
  const auto n = d.count();
  if (n % 1'000'000'000 == 0) return std::to_string(n / 1'000'000'000) + " s";
  if (n % 1'000'000 == 0) return std::to_string(n / 1'000'000) + " ms";
  if (n % 1'000 == 0) return std::to_string(n / 1'000) + " us";
  return std::to_string(n) + " ns";
}

}  // namespace

std::string response_sink::describe_target(const std::string& name, std::uint64_t id) {
  if (name.empty()) return "actor " + std::to_string(id);
  return "actor '" + name + "' (id " + std::to_string(id) + ")";
}

request_error response_sink::timeout_error() const {
  std::string text = "request '" + request_type_ + "'";
  if (!target_.empty()) text += " to " + target_;
  text += " timed out";
  if (timeout_.count() > 0) text += " after " + duration_text(timeout_);
  return request_error(request_error_code::timeout, text);
}

response_sink::~response_sink() {
  if (!completed_ && requester_) {
    completed_ = true;
    error_ = error_record{request_error_code::dead_actor,
                          "request '" + request_type_ + "' was dropped without a reply"};
    post_continuation_locked();
  }
}

bool response_sink::deliver(std::any value) {
  {
    std::lock_guard lock(mutex_);
    if (completed_) return false;
    completed_ = true;
    value_ = std::move(value);
    if (requester_) {
      post_continuation_locked();
    } else {
      completed_cv_.notify_all();
    }
  }
  cancel_timeout_timer();
  return true;
}

bool response_sink::fail(request_error error) {
  {
    std::lock_guard lock(mutex_);
    if (completed_) return false;
    completed_ = true;
    error_ = error_record{error.code(), std::string(error.what())};
    if (requester_) {
      post_continuation_locked();
    } else {
      completed_cv_.notify_all();
    }
  }
  cancel_timeout_timer();
  return true;
}

void response_sink::set_timeout_timer(timer_service& timers, std::uint64_t id) {
  bool completed;
  {
    std::lock_guard lock(mutex_);
    timers_ = &timers;
    timeout_timer_ = id;
    completed = completed_;
  }
  if (completed) cancel_timeout_timer();
}

void response_sink::cancel_timeout_timer() {
  timer_service* timers;
  std::uint64_t id;
  {
    std::lock_guard lock(mutex_);
    timers = std::exchange(timers_, nullptr);
    id = std::exchange(timeout_timer_, 0);
  }
  // The timer's callback holds this sink: cancelling frees it, so not under our lock.
  if (timers != nullptr && id != 0) timers->cancel(id);
}

std::any response_sink::wait_until(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  if (!completed_cv_.wait_until(lock, deadline, [&] { return completed_; })) {
    completed_ = true;  // a late response is ignored
    throw timeout_error();
  }
  if (error_) throw request_error(error_->code, error_->text);
  return std::move(*value_);
}

void response_sink::set_continuation(actor requester, value_handler on_value,
                                     error_handler on_error) {
  std::lock_guard lock(mutex_);
  requester_ = std::move(requester);
  on_value_ = std::move(on_value);
  on_error_ = std::move(on_error);
  if (completed_) post_continuation_locked();
}

void response_sink::post_continuation_locked() {
  abstract_actor* target = requester_.get();
  target->enqueue_control(make_control([value = std::move(value_), error = std::move(error_),
                                        on_value = std::move(on_value_),
                                        on_error = std::move(on_error_)](abstract_actor&) mutable {
    if (error) {
      on_error(request_error(error->code, error->text));
      return;
    }
    try {
      on_value(*value);
    } catch (const request_error& e) {  // response of the wrong type
      on_error(e);
    }
  }));
  requester_.reset();
}

}  // namespace spate
