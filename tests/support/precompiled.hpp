// The headers (nearly) every test includes, precompiled once and shared by every test binary
// (tests/CMakeLists.txt, SPATE_TEST_PCH): parsing them took ~4 of every test file's compile
// seconds. Whether a public header is self-contained is checked elsewhere (the doc snippets
// and the install test compile them without this).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "spate/actor.hpp"
#include "spate/flow.hpp"
#include "spate/parallel.hpp"
#include "spate/reactor.hpp"
#include "spate/window.hpp"
