#pragma once
// What the streaming applications (examples/apps) share on the way in and out: a source that
// replays records at a given rate, stamping each with its send time, and a sink-side
// latency record.
//
// The source follows the StreamBenchmarks apps: the dataset is parsed up front and replayed
// from memory, cycling through it until `total` records are sent. At rate 0 it sends as fast as the
// graph takes items (backpressure bounds it); at a rate r it sends what is due every millisecond (a
// flow::wake_timer tick wakes it; no thread sleeps or spins).
#include <spate/flow.hpp>
#include <spate/flow/wake_timer.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

namespace apps {

inline std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A record the source numbers (`seq`: its position in the replay, so outputs can be checked
// against a sequential run) and stamps (`stamp_ns`, steady clock, for latency).
template <class T>
concept stamped_record = requires(T& t) {
  t.stamp_ns = std::int64_t{};
  t.seq = std::uint64_t{};
};

// How many records a source should have sent by now at `rate` a second (all of them at rate
// 0), counted from start(): a source sends what is due when a flow::wake_timer tick wakes it,
// every millisecond, so no thread sleeps or spins. The source's has_news() is the pacer's.
class send_pacer {
 public:
  explicit send_pacer(double rate) : rate_(rate) {}
  template <class Node>
  void start(Node& node) {
    start_ns_ = steady_ns();
    if (rate_ > 0) timer_.start(node, std::chrono::milliseconds(1));
  }
  bool has_news() const { return rate_ <= 0 || timer_.due(); }
  /// Of `total`, how many are due; `resumed_at` records were sent before start() (a restore).
  std::uint64_t due(std::uint64_t total, std::uint64_t resumed_at = 0) {
    if (rate_ <= 0) return total;
    timer_.take();
    return std::min<std::uint64_t>(
        total, resumed_at + std::uint64_t(rate_ * double(steady_ns() - start_ns_) / 1e9) + 1);
  }
  void stop() { timer_.stop(); }

 private:
  double rate_;
  std::int64_t start_ns_ = 0;
  spate::flow::wake_timer timer_;
};

template <stamped_record T>
class replay_source : public spate::flow::source<T> {
 public:
  replay_source(std::shared_ptr<const std::vector<T>> records, double rate, std::uint64_t total)
      : records_(std::move(records)), pacer_(rate), total_(records_->empty() ? 0 : total) {}

  void on_start() { pacer_.start(*this); }
  bool has_news() const { return pacer_.has_news(); }
  spate::flow::produce_status produce() {
    using spate::flow::produce_status;
    if (sent_ == total_) return finish();
    const std::uint64_t due = pacer_.due(total_, resumed_at_);
    const std::int64_t now = steady_ns();
    for (int k = 0; k < 256 && sent_ < due; ++k, ++sent_) {
      T item = (*records_)[sent_ % records_->size()];
      item.seq = sent_;
      item.stamp_ns = now;
      this->send_next(std::move(item));
    }
    if (sent_ == total_) return finish();
    return sent_ < due ? produce_status::more : produce_status::wait;
  }
  std::uint64_t total() const noexcept { return total_; }
  /// Checkpoints (spate/flow/checkpoints.hpp): the records sent; a restore replays the rest.
  std::uint64_t checkpoint_position() const { return sent_; }
  void seek(std::uint64_t position) { sent_ = resumed_at_ = std::min(position, total_); }

 private:
  spate::flow::produce_status finish() {
    pacer_.stop();
    return spate::flow::produce_status::ended;
  }
  std::shared_ptr<const std::vector<T>> records_;
  send_pacer pacer_;
  std::uint64_t total_, sent_ = 0;
  std::uint64_t resumed_at_ = 0;  // where a restore started: the rate counts from there
};

// End-to-end latencies seen by a sink (one thread), summarised after the run.
class latency_record {
 public:
  void add(std::int64_t stamp_ns) { samples_.push_back(steady_ns() - stamp_ns); }
  std::size_t count() const noexcept { return samples_.size(); }
  // The q-quantile in microseconds (0 when empty).
  double quantile_us(double q) {
    if (samples_.empty()) return 0;
    auto at = samples_.begin() + std::ptrdiff_t(double(samples_.size() - 1) * q);
    std::nth_element(samples_.begin(), at, samples_.end());
    return double(*at) / 1e3;
  }

 private:
  std::vector<std::int64_t> samples_;
};

}  // namespace apps
