#pragma once
// A source fed by a thread of its own (a socket or Kafka reader): the thread pushes into
// the source's feed ring (flow/detail/feed_source.hpp) and blocks while the ring is full,
// so a slow graph stops the reading, and TCP's or Kafka's own flow control does the rest.
//
// Protocol (the two handshakes already exist; this only wires them):
//   T1. The reader pushes an item, then wakes the source's task (feed_channel::wake, the
//       wake handshake: the task's idle re-check is feed_source::has_news()).
//   T2. A reader that finds the ring full waits in `room_` (a waiter, exec/waiter.hpp)
//       until the ring has room or a stop was requested, and retries. The source, having
//       drained the ring to half, calls on_room, which notifies `room_` (after its pops:
//       the waiter's N1 orders them before the check of `waiting`); a stop request
//       notifies it too (T3). The waiter's handshake means no timeout is needed.
//   T3. request_stop() (the source's on_cancel, or its destructor) sets `stop_`, notifies
//       `room_`, signals the wake fd and calls the reader's wake hook: a reader blocked in
//       poll() on a socket waits on wake_fd() too, and a Kafka reader installs a hook that
//       yields librdkafka's poll. No call of the reader waits on a timeout to see a stop.
//   T4. Nobody joins the reader on a pool worker: cancel only asks it to stop. The owner
//       joins it in its destructor, which waits at most for the reader's own bounded
//       shutdown (a TCP reader ends at once; a Kafka reader's final commit and group leave
//       are bounded by consumer_options::shutdown_timeout).
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "spate/flow/detail/feed_source.hpp"
#include "spate/io/detail/wake_fd.hpp"
#include "spate/platform/cpu_affinity.hpp"
#include "spate/exec/waiter.hpp"
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

  // Starts the reader, named `thread_name` (not after the pool worker that started it);
  // `body` runs on it and must return soon after stopping() is true.
  void start(std::string thread_name, std::function<void(thread_feed&)> body) {
    thread_ = std::thread([this, name = std::move(thread_name), body = std::move(body)] {
      name_current_thread(name.c_str());
      body(*this);
    });
  }
  // Reader thread. Blocks while the ring is full; false (item dropped) once stopping.
  bool push(T item) {
    while (!channel_->items.try_push(std::move(item))) {
      if (stopping()) return false;
      stress_point();  // between the failed push (the publish) and the wait (the re-check)
      room_.wait_until([this] { return channel_->has_room() || stopping(); });
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
  // Readable (POLLIN) once a stop is requested: poll() it next to the reader's socket.
  int wake_fd() const noexcept { return wake_.fd(); }
  // Reader thread: `hook` (non-blocking) is called by request_stop(), also when a stop was
  // requested before; null removes it. For blocking calls that cannot poll wake_fd().
  void set_wake_hook(std::function<void()> hook) {
    const std::lock_guard lock(hook_mutex_);
    hook_ = std::move(hook);
    if (hook_ && stopping()) hook_();
  }
  // Owner, any thread: asks the reader to end; never blocks. Idempotent.
  void request_stop() noexcept {
    stop_.store(true, std::memory_order_release);
    room_.notify();
    wake_.signal();
    const std::lock_guard lock(hook_mutex_);
    if (hook_) hook_();
  }
  // Owner: asks the reader to end and waits for it. Idempotent. Not on a pool worker.
  void stop() {
    request_stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::shared_ptr<flow::detail::feed_channel<T>> channel_;
  waiter room_;
  std::atomic<bool> stop_{false};
  io::detail::wake_fd wake_;
  std::mutex hook_mutex_;
  std::function<void()> hook_;
  std::thread thread_;
};

// A source node fed by a reader thread: the derived class's on_start() calls
// start_reader(name, body); a failure the reader records with fail() is rethrown by
// produce() at the end of the stream, so the graph fails naming it. Cancelling the graph
// asks the reader to stop (on_cancel, which does not wait for it); the source's destructor
// joins it. At the end of the stream the reader is left to finish by itself (a Kafka
// reader still commits what the graph marks done after it).
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
  // Stop reading now, not when the graph is destroyed; on a pool worker, so no join here.
  void on_cancel() {
    if (feed_) feed_->request_stop();
  }

 protected:
  void start_reader(std::string thread_name, std::function<void(thread_feed<T>&)> body) {
    flow::detail::feed_source<T>::on_start();
    feed_ = std::make_unique<thread_feed<T>>(this->channel);
    feed_->start(std::move(thread_name), std::move(body));
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
