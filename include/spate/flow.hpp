#pragma once
// Everything of spate's streaming layer.
#include "spate/flow/graph.hpp"
#include "spate/flow/link_source.hpp"
#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/flow/stages.hpp"
