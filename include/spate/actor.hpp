#pragma once
// Everything of spate's actor layer.
#include "spate/actor/abstract_actor.hpp"
#include "spate/actor/actor_ref.hpp"
#include "spate/actor/actor_system.hpp"
#include "spate/actor/blocking_actor.hpp"
#include "spate/actor/event_based_actor.hpp"
#include "spate/actor/exit_reason.hpp"
#include "spate/actor/message.hpp"
#include "spate/actor/response.hpp"
#include "spate/actor/response_promise.hpp"
#include "spate/actor/send.hpp"
#include "spate/actor/typed_actor.hpp"
#include "spate/actor/typed_handle.hpp"
