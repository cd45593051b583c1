#pragma once
// A source fed by a thread of its own (a socket or Kafka reader): the thread pushes into
// the source's feed ring (flow/detail/feed_source.hpp) and blocks while the ring is full,
// so a slow graph stops the reading, and TCP's or Kafka's own flow control does the rest.
//
// Protocol (the two handshakes already exist; this only wires them):
//   T1. The reader pushes an item, then wakes the source's task (feed_channel::wake, the
//       activation handshake: the task's idle re-check is feed_source::has_news()).
//   T2. A reader that finds the ring full waits on `room_` (a parking_event) and retries.
//       The source, having drained the ring to half, calls on_room, which notifies
//       `room_`. A notify that comes between the failed push and the wait is kept by the
//       event and ends the wait at once, so the reader cannot sleep through it; the wait
//       also times out every 50 ms to see a stop request.
//   T3. stop() (the owner, when the source goes) sets `stop_` and notifies `room_`; the
//       reader's blocking calls poll with a timeout and check stopping().
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "spate/flow/detail/feed_source.hpp"
#include "spate/platform/parking_event.hpp"
#include "spate/platform/stress_point.hpp"

namespace spate::io::detail {

template <class T>
class thread_feed {
 public:
  // Call on the source's task (on_start): on_room is read there too.
  explicit thread_feed(std::shared_ptr<flow::detail::feed_channel<T>> channel)
      : channel_(std::move(channel)) {
    channel_->on_room = [this] { room_.notify(); };
  }
  thread_feed(const thread_feed&) = delete;
  thread_feed& operator=(const thread_feed&) = delete;
  ~thread_feed() {
    stop();
    channel_->on_room = nullptr;
  }

  // Starts the reader; `body` runs on it and must return soon after stopping() is true.
  void start(std::function<void(thread_feed&)> body) {
    thread_ = std::thread([this, body = std::move(body)] { body(*this); });
  }
  // Reader thread. Blocks while the ring is full; false (item dropped) once stopping.
  bool push(T item) {
    while (!channel_->items.try_push(std::move(item))) {
      if (stopping()) return false;
      stress_point();  // between the failed push (the publish) and the wait (the re-check)
      room_.wait_for(std::chrono::milliseconds(50));
    }
    channel_->wake();
    return true;
  }
  // Reader thread: the end of the stream (after its last push).
  void close() {
    channel_->closed.store(true, std::memory_order_release);
    channel_->wake();
  }
  bool stopping() const noexcept { return stop_.load(std::memory_order_acquire); }
  const std::atomic<bool>& stop_flag() const noexcept { return stop_; }
  // Owner: asks the reader to end and waits for it. Idempotent.
  void stop() {
    stop_.store(true, std::memory_order_release);
    room_.notify();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::shared_ptr<flow::detail::feed_channel<T>> channel_;
  parking_event room_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// A source node fed by a reader thread: the derived class's on_start() calls
// start_reader(body); a failure the reader records with fail() is rethrown by produce() at
// the end of the stream, so the graph fails naming it. The reader stops when the source
// ends, is cancelled, or is destroyed.
template <class T>
class thread_fed_source : public flow::detail::feed_source<T> {
 public:
  explicit thread_fed_source(std::size_t capacity)
      : flow::detail::feed_source<T>(std::make_shared<flow::detail::feed_channel<T>>(capacity)) {}
  thread_fed_source(const thread_fed_source& other)
      : thread_fed_source(other.channel->items.capacity()) {}
  ~thread_fed_source() { feed_.reset(); }

  flow::produce_status produce() {
    const auto status = flow::detail::feed_source<T>::produce();
    if (status == flow::produce_status::ended && failure_) throw std::runtime_error(*failure_);
    return status;
  }
  void on_stop() { feed_.reset(); }
  void on_cancel() { feed_.reset(); }  // stop reading now, not when the graph is destroyed

 protected:
  void start_reader(std::function<void(thread_feed<T>&)> body) {
    flow::detail::feed_source<T>::on_start();
    feed_ = std::make_unique<thread_feed<T>>(this->channel);
    feed_->start(std::move(body));
  }
  // Reader thread, before thread_feed::close(): close() publishes it to produce().
  void fail(std::string what) { failure_ = std::move(what); }
  // The derived class's destructor calls this first when the reader uses its members.
  void stop_reader() { feed_.reset(); }

 private:
  std::optional<std::string> failure_;
  std::unique_ptr<thread_feed<T>> feed_;
};

}  // namespace spate::io::detail
