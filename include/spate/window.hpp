#pragma once
// Sliding-window analytics on flow graphs: count- and time-based windows, Key Partitioning
// and Window Farming, pane farming, session windows, deduplication, top-N,
// joins, per-partition watermarks, late tuples to a side output (docs/windows.md).
#include "spate/window/count_window.hpp"
#include "spate/window/deduplicate.hpp"
#include "spate/window/event_time.hpp"
#include "spate/window/joins.hpp"
#include "spate/window/late_output.hpp"
#include "spate/window/pane_farming.hpp"
#include "spate/window/pattern_options.hpp"
#include "spate/window/patterns.hpp"
#include "spate/window/session_window.hpp"
#include "spate/window/sessions.hpp"
#include "spate/window/time_window.hpp"
#include "spate/window/top_n.hpp"
#include "spate/window/window_function.hpp"
