#include "spate/exec/timer_service.hpp"

#include <stdexcept>
#include <string>

namespace spate {

timer_service::timer_id timer_service::schedule_periodic(std::chrono::nanoseconds first_delay,
                                                         std::chrono::nanoseconds period,
                                                         std::function<void()> callback) {
  if (period.count() <= 0) {
    throw std::invalid_argument(
        "spate::timer_service::schedule_periodic: the period must be "
        "positive, not " +
        std::to_string(period.count()) + " ns");
  }
  return pool_->add_timer(saturating_deadline(first_delay), std::move(callback), period);
}

}  // namespace spate
