#pragma once
// Everything of spate's deterministic reactor layer (docs/reactors.md).
#include "spate/reactor/action.hpp"
#include "spate/reactor/connection.hpp"
#include "spate/reactor/environment.hpp"
#include "spate/reactor/mutation.hpp"
#include "spate/reactor/port.hpp"
#include "spate/reactor/port_list.hpp"
#include "spate/reactor/reaction.hpp"
#include "spate/reactor/reactor.hpp"
#include "spate/reactor/tag.hpp"
#include "spate/reactor/trace.hpp"
