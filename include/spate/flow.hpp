#pragma once
// Everything of spate's streaming layer.
#include "spate/flow/graph.hpp"
#include "spate/flow/graph_actor.hpp"
#include "spate/flow/node.hpp"
#include "spate/flow/parallel.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
