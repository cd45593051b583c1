#pragma once
// The high-frequency-trading application of the dynamic-memory paper (Sect. 5): quotes of
// 64 bytes over 2,836 symbols; per symbol a count-based window of 1,000 quotes sliding by
// 25; at each window the quotes are aggregated at 1 ms resolution and a price model is
// fitted by Levenberg–Marquardt (GSL's gsl_multifit_nlinear; the paper used lmfit), giving
// the predicted price. Shared by examples/hft/hft.cpp, spate-bench's `hft` and the tests.
#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include <spate/window.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <vector>

namespace hft {

struct quote {
  std::uint32_t symbol;
  std::uint32_t bid_size, ask_size;
  std::uint32_t sequence;       // per symbol, for checks
  std::uint64_t exchange_time;  // µs: the market's timestamp, used by the model
  std::int64_t stamp_ns;        // when the generator made it (steady clock), for latency
  double bid, ask;
  std::uint64_t reserved[2];  // pads the quote to the paper's 64 bytes
};
static_assert(sizeof(quote) == 64);

inline constexpr std::uint32_t symbols = 2836;

// A seeded source of quotes: symbols uniform (2,836 by default), each symbol's mid price a
// random walk, the exchange clock advancing by `time_step_us` per quote.
class quote_generator {
 public:
  explicit quote_generator(std::uint64_t seed, std::uint32_t symbol_count = symbols,
                           std::uint64_t time_step_us = 1)
      : random_(seed),
        mid_(symbol_count),
        sequence_(symbol_count, 0),
        symbols_(symbol_count),
        step_us_(time_step_us) {
    std::uniform_real_distribution<double> start(20, 200);
    for (auto& m : mid_) m = start(random_);
  }
  quote next(std::int64_t stamp_ns = 0) {
    const auto s = std::uint32_t(random_() % symbols_);
    mid_[s] *= 1.0 + step_(random_);
    const double spread = mid_[s] * 0.0005;
    clock_us_ += step_us_;
    return quote{s,
                 std::uint32_t(100 + random_() % 900),
                 std::uint32_t(100 + random_() % 900),
                 sequence_[s]++,
                 clock_us_,
                 stamp_ns,
                 mid_[s] - spread,
                 mid_[s] + spread,
                 {0, 0}};
  }

 private:
  std::mt19937_64 random_;
  std::normal_distribution<double> step_{0, 0.0005};
  std::vector<double> mid_;
  std::vector<std::uint32_t> sequence_;
  std::uint32_t symbols_;
  std::uint64_t step_us_, clock_us_ = 0;
};

// One window's outcome: the model's price one aggregation span ahead, and the stamp of the
// window's newest quote (the one that closed it), for latency.
struct prediction {
  double price;
  std::uint32_t points;  // 1 ms buckets fitted
  std::int64_t newest_stamp_ns;
  friend bool operator==(const prediction&, const prediction&) = default;
};

namespace detail {
struct series {
  const double* t;
  const double* y;
  std::size_t n;
};
// Model: p(t) = a + b (1 - exp(-c t)), an exponential approach to a new level.
inline int residuals(const gsl_vector* x, void* data, gsl_vector* f) {
  const auto* s = static_cast<const series*>(data);
  const double a = gsl_vector_get(x, 0), b = gsl_vector_get(x, 1), c = gsl_vector_get(x, 2);
  for (std::size_t i = 0; i < s->n; ++i)
    gsl_vector_set(f, i, a + b * (1 - std::exp(-c * s->t[i])) - s->y[i]);
  return GSL_SUCCESS;
}
inline int jacobian(const gsl_vector* x, void* data, gsl_matrix* j) {
  const auto* s = static_cast<const series*>(data);
  const double b = gsl_vector_get(x, 1), c = gsl_vector_get(x, 2);
  for (std::size_t i = 0; i < s->n; ++i) {
    const double e = std::exp(-c * s->t[i]);
    gsl_matrix_set(j, i, 0, 1.0);
    gsl_matrix_set(j, i, 1, 1 - e);
    gsl_matrix_set(j, i, 2, b * s->t[i] * e);
  }
  return GSL_SUCCESS;
}
}  // namespace detail

// The paper's windows: 1,000 quotes per symbol, sliding by 25.
inline constexpr spate::window::count_window windows{1000, 25};

// A window's mid prices averaged per 1 ms of exchange time: `t` in seconds since the
// window's first millisecond, `y` the averages.
inline void aggregate_per_ms(std::span<const quote> window, std::vector<double>& t,
                             std::vector<double>& y) {
  const std::uint64_t origin_ms = window.front().exchange_time / 1000;
  double sum = 0;
  std::size_t count = 0;
  std::uint64_t bucket = origin_ms;
  auto close_bucket = [&] {
    if (count == 0) return;
    t.push_back(double(bucket - origin_ms) / 1000.0);  // seconds since the window's start
    y.push_back(sum / double(count));
  };
  for (const quote& q : window) {
    const std::uint64_t ms = q.exchange_time / 1000;
    if (ms != bucket) {
      close_bucket();
      bucket = ms;
      sum = 0;
      count = 0;
    }
    sum += (q.bid + q.ask) / 2;
    ++count;
  }
  close_bucket();
}

// The window function: the 1 ms aggregation, then the fit. A window cut short by the end of
// the stream is not fitted: its prediction is its last mid price.
inline prediction predict(const std::uint32_t&, std::span<const quote> window) {
  if (window.size() < windows.length) {
    const quote& last = window.back();
    return prediction{(last.bid + last.ask) / 2, 0, last.stamp_ns};
  }
  std::vector<double> t, y;
  aggregate_per_ms(window, t, y);
  const std::int64_t newest = window.back().stamp_ns;
  if (t.size() < 4) return prediction{y.back(), std::uint32_t(t.size()), newest};

  detail::series data{t.data(), y.data(), t.size()};
  gsl_multifit_nlinear_fdf fdf{};
  fdf.f = detail::residuals;
  fdf.df = detail::jacobian;
  fdf.n = t.size();
  fdf.p = 3;
  fdf.params = &data;
  gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
  params.trs = gsl_multifit_nlinear_trs_lm;              // Levenberg–Marquardt
  params.solver = gsl_multifit_nlinear_solver_cholesky;  // n >> p: normal equations suffice
  gsl_multifit_nlinear_workspace* work =
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, t.size(), 3);
  const double span = t.back() > 0 ? t.back() : 1.0;
  double start[3] = {y.front(), y.back() - y.front(), 1.0 / span};
  gsl_vector_view x0 = gsl_vector_view_array(start, 3);
  gsl_multifit_nlinear_init(&x0.vector, &fdf, work);
  int info = 0;
  // At most 10 iterations: on a random walk the model rarely converges to the tolerances,
  // and 10 iterations take ~650 µs here (the paper's lmfit fit took ~300 µs on its machine).
  gsl_multifit_nlinear_driver(10, 1e-6, 1e-6, 1e-6, nullptr, nullptr, &info, work);
  const gsl_vector* x = gsl_multifit_nlinear_position(work);
  const double a = gsl_vector_get(x, 0), b = gsl_vector_get(x, 1), c = gsl_vector_get(x, 2);
  gsl_multifit_nlinear_free(work);
  const double ahead = span * 1.1;
  double price = a + b * (1 - std::exp(-c * ahead));
  if (!std::isfinite(price)) price = y.back();  // a diverged fit: fall back to the last price
  return prediction{price, std::uint32_t(t.size()), newest};
}

// The aggregation without the fit: the last millisecond's mean. Not the paper's function —
// a window costs microseconds instead of the fit's ~650 µs, so the emitter, the multicast
// and the memory scheme, not the workers, bound the rate (benchmark `hft --model=aggregate`).
inline prediction predict_mean(const std::uint32_t&, std::span<const quote> window) {
  std::vector<double> t, y;
  aggregate_per_ms(window, t, y);
  return prediction{y.back(), std::uint32_t(t.size()), window.back().stamp_ns};
}

inline auto symbol_of = [](const quote& q) { return q.symbol; };

using result = spate::window::window_result<std::uint32_t, prediction>;

// The reference the patterns are checked against: each symbol's windows, one after another,
// on one thread.
inline std::map<std::uint32_t, std::vector<result>> sequential(const std::vector<quote>& quotes) {
  std::map<std::uint32_t, std::vector<quote>> by_symbol;
  for (const auto& q : quotes) by_symbol[q.symbol].push_back(q);
  std::map<std::uint32_t, std::vector<result>> out;
  for (auto& [s, qs] : by_symbol)
    for (std::uint64_t w = 0; windows.start(w) < qs.size(); ++w) {
      const auto end = std::min<std::uint64_t>(windows.end(w), qs.size());
      std::span<const quote> span(qs.data() + windows.start(w), end - windows.start(w));
      out[s].push_back({s, w, predict(s, span), windows.end(w) <= qs.size(), span.size()});
    }
  return out;
}

}  // namespace hft
