#pragma once
// The applications' operators do their work in `process(item, emit)`, so that one piece of
// code serves the flow node, the CAF actors of `spate-bench apps` and the sequential
// reference. This base gives the flow node its consume(): process() with emit = send_next.
#include <spate/flow.hpp>

#include <utility>

namespace apps {

template <class Operator, class In, class Out>
class operator_node : public spate::flow::node<In, Out> {
 public:
  void consume(In& item) {
    static_cast<Operator*>(this)->process(item,
                                          [this](Out&& out) { this->send_next(std::move(out)); });
  }
};

}  // namespace apps
