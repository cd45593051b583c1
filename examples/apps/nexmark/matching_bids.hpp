#pragma once
// The walk that q9's and the closing prices' one-thread loops share (q9_sequential,
// closing_prices_sequential): per auction id, in event order, the first auction keeps the id
// (a second auction with it is ignored); bids that came before it wait, and are taken when it
// comes, before any later bid; each bid within its auction's [dateTime, expires] (both ends)
// is passed, with the auction, to the query's own rule. The graphs' keyed nodes (q9_node,
// closing_price_node) do the same per key, in keyed state.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model.hpp"

namespace apps::nexmark {

/// Calls on_bid(const auction&, const bid&, State&) for each bid within its auction's span, in
/// the order above; State is the auction's own, value-initialised at its id's first event.
template <class State, class OnBid>
void for_each_matching_bid(const std::vector<event>& events, OnBid on_bid) {
  struct key_state {
    const auction* first = nullptr;  // into `events`, which outlive the walk
    std::vector<const bid*> early;
    State state{};
  };
  std::unordered_map<std::int64_t, key_state> keys;
  const auto take = [&](key_state& k, const bid& b) {
    if (b.date_time >= k.first->date_time && b.date_time <= k.first->expires)
      on_bid(*k.first, b, k.state);
  };
  for (const event& e : events) {
    if (const bid* b = e.as_bid()) {
      key_state& k = keys[b->auction];
      if (k.first != nullptr)
        take(k, *b);
      else
        k.early.push_back(b);
    } else if (const auction* a = e.as_auction()) {
      key_state& k = keys[a->id];
      if (k.first != nullptr) continue;
      k.first = a;
      for (const bid* early : k.early) take(k, *early);
      k.early = {};
    }
  }
}

}  // namespace apps::nexmark
