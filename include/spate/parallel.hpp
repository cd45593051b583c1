#pragma once
// Everything of spate's data-parallel layer: loops, reductions and divide-and-conquer on the
// shared worker pool (not streams: see spate/flow.hpp for those).
#include "spate/parallel/divide_and_conquer.hpp"
#include "spate/parallel/map_reduce.hpp"
#include "spate/parallel/parallel_for.hpp"
