// What the applications' benchmarks share (apps_bench.cpp has the options; one file per
// application, apps_<name>.cpp).
#pragma once

#ifdef SPATE_BENCH_HAVE_CAF
#include "caf_apps.hpp"
#endif

#include <memory>
#include <string>
#include <vector>

#include "../../examples/apps/common/text_input.hpp"
#include "apps_run.hpp"

namespace spate_bench::apps_impl {

using apps_run::exact_outputs;
using apps_run::run_shape;

template <class Record, class Parse>
std::vector<Record> parsed(const std::vector<std::string>& lines, Parse&& parse) {
  return apps::parse_lines<Record>(lines, parse).records;
}

template <class T>
std::shared_ptr<const T> shared(T value) {
  return std::make_shared<const T>(std::move(value));
}

// The applications (caf: the CAF 0.17 run instead of spate's).
json word_count(const bench_params& p, bool caf);
json spike_detection(const bench_params& p, bool caf);
json fraud_detection(const bench_params& p, bool caf);
json linear_road(const bench_params& p, bool caf);
json yahoo(const bench_params& p, bool caf);

}  // namespace spate_bench::apps_impl

// An app's CAF run; built without CAF, an error that says so. (The CAF code names CAF types,
// so it cannot be compiled without CAF.)
#ifdef SPATE_BENCH_HAVE_CAF
#define SPATE_APPS_CAF(...) __VA_ARGS__
#else
#define SPATE_APPS_CAF(...) throw usage_error("apps: built without CAF")
#endif
