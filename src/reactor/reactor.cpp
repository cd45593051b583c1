#include "spate/reactor/reactor.hpp"

#include <stdexcept>

#include "spate/reactor/detail/reaction_scheduler.hpp"
#include "spate/reactor/environment.hpp"

namespace spate::reactor {

reactor::reactor(context ctx)
    : element(std::move(ctx.name), ctx.container),
      env_(ctx.container != nullptr ? &ctx.container->env() : ctx.env),
      bank_index_(ctx.bank_index),
      bank_width_(ctx.bank_width) {
  if (env_ == nullptr) throw std::invalid_argument("a reactor needs a container or an environment");
  if (ctx.container != nullptr) ctx.container->children_.push_back(this);
}

reactor::~reactor() {
  for (spate::reactor::reaction* r : reactions_) delete r;
  for (connection* c : connections_) delete c;
}

tag reactor::current_tag() const noexcept {
  auto* s = env_->reaction_scheduler();
  return s == nullptr ? tag{} : s->current_tag();
}

duration reactor::elapsed_logical_time() const noexcept {
  return logical_time() - start_time();
}

duration reactor::elapsed_physical_time() const noexcept {
  return clock::now() - start_time();
}

time_point reactor::start_time() const noexcept {
  return env_->start_time();
}

void reactor::request_stop() {
  env_->request_stop();
}

connection& reactor::add_connection(std::vector<port_base*> from, std::vector<port_base*> to,
                                    bool broadcast) {
  auto made = std::make_unique<connection>(from, to, broadcast);
  connections_.push_back(made.get());
  return *made.release();  // owned by the reactor: ~reactor deletes it
}

}  // namespace spate::reactor
