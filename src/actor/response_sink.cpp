#include "spate/actor/abstract_actor.hpp"
#include "spate/actor/response.hpp"

namespace spate {

bool response_sink::deliver(std::any value) {
  std::lock_guard lock(mutex_);
  if (completed_) return false;
  completed_ = true;
  value_ = std::move(value);
  if (requester_) {
    post_continuation_locked();
  } else {
    completed_cv_.notify_all();
  }
  return true;
}

bool response_sink::fail(request_error error) {
  std::lock_guard lock(mutex_);
  if (completed_) return false;
  completed_ = true;
  error_ = error_record{error.code(), std::string(error.what())};
  if (requester_) {
    post_continuation_locked();
  } else {
    completed_cv_.notify_all();
  }
  return true;
}

std::any response_sink::wait_until(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  if (!completed_cv_.wait_until(lock, deadline, [&] { return completed_; })) {
    completed_ = true;  // a late response is ignored
    throw request_error(request_error_code::timeout, "request '" + request_type_ + "' timed out");
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
