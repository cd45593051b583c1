#pragma once
// A source fed by a thread of its own (a socket or Kafka reader): the thread produces into
// the source's link (exec/link.hpp; the source is a flow::link_source) and sleeps while the
// link is full, so a slow graph stops the reading, and TCP's or Kafka's own flow control
// does the rest.
//
// Protocol (the link's, with the reader's waiter `room_` as its producer end):
//   T1. The reader pushes items (link::push_waiting_for_room): the source's task is woken
//       every notify_batch items, and by publish(), which the reader calls before it blocks
//       on its socket or broker (link steps I1, I2).
//   T2. A reader that finds the link full asks for room and sleeps in `room_` until the link
//       has room or a stop was requested (link R1, R2); the source wakes it when it has
//       drained the link to its resume level (R3). No timeout is needed.
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
#include <utility>

#include "spate/exec/link.hpp"
#include "spate/exec/waiter.hpp"
#include "spate/flow/link_source.hpp"
#include "spate/io/detail/wake_fd.hpp"
#include "spate/platform/os.hpp"
#include "spate/platform/stress_point.hpp"

namespace spate::io {

/// The reader thread of a thread-fed source and its side of the link (see the top of this file).
template <class T>
class thread_feed {
 public:
  /// Becomes the producer end of `input`. Call on the source's task (on_start): the source
  /// reads the producer end there too.
  explicit thread_feed(std::shared_ptr<link<T>> input) : link_(std::move(input)) {
    link_->set_producer(&room_);
  }
  thread_feed(const thread_feed&) = delete;             ///< not copyable
  thread_feed& operator=(const thread_feed&) = delete;  ///< not copyable
  /// Stops and joins the reader, then leaves the link's producer end empty.
  ~thread_feed() {
    stop();
    link_->set_producer({});
  }

  /// Starts the reader, named `thread_name` (not after the pool worker that started it);
  /// `body` runs on it and must return soon after stopping() is true.
  void start(std::string thread_name, std::function<void(thread_feed&)> body) {
    thread_ = std::thread([this, name = std::move(thread_name), body = std::move(body)] {
      name_current_thread(name.c_str());
      body(*this);
    });
  }
  /// Reader thread. Blocks while the link is full; false (item dropped) once stopping.
  bool push(T item) {
    return link_->push_waiting_for_room(std::move(item), [this] { return stopping(); });
  }
  /// Reader thread, before it blocks anywhere but in push(): wakes the source for what it
  /// pushed (T1).
  void publish() noexcept { link_->publish(); }
  /// Reader thread: the end of the stream (after its last push).
  void close() { link_->close(); }
  /// A stop was requested.
  bool stopping() const noexcept { return stop_.load(std::memory_order_acquire); }
  /// The flag stopping() reads, for waits that take one.
  const std::atomic<bool>& stop_flag() const noexcept { return stop_; }
  /// Readable (POLLIN) once a stop is requested: poll() it next to the reader's socket.
  int wake_fd() const noexcept { return wake_.fd(); }
  /// Reader thread: `hook` (non-blocking) is called by request_stop(), also when a stop was
  /// requested before; null removes it. For blocking calls that cannot poll wake_fd().
  void set_wake_hook(std::function<void()> hook) {
    const std::lock_guard lock(hook_mutex_);
    hook_ = std::move(hook);
    if (hook_ && stopping()) hook_();
  }
  /// Owner, any thread: asks the reader to end; never blocks. Idempotent.
  void request_stop() noexcept {
    stop_.store(true, std::memory_order_release);
    room_.notify();
    wake_.signal();
    const std::lock_guard lock(hook_mutex_);
    if (hook_) hook_();
  }
  /// Owner: asks the reader to end and waits for it. Idempotent. Not on a pool worker.
  void stop() {
    request_stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::shared_ptr<link<T>> link_;
  waiter room_;
  std::atomic<bool> stop_{false};
  detail::wake_fd wake_;
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
/// A source node fed by a reader thread (see above).
template <class T>
class thread_fed_source : public flow::link_source<T> {
 public:
  /// A source whose link to its reader is made with `options`.
  explicit thread_fed_source(const link_options& options)
      : flow::link_source<T>(std::make_shared<link<T>>(options)) {}
  /// A copy (a stage prototype copied into the graph) gets a link of its own.
  thread_fed_source(const thread_fed_source& other) : thread_fed_source(other.input()->options()) {}
  /// Stops and joins the reader.
  ~thread_fed_source() { stop_reader(); }

  /// link_source::produce(), rethrowing the reader's failure at the end of the stream.
  flow::produce_status produce() {
    return produce([](const T&) {});
  }
  /// The same, showing `noted` the item it sends (link_source::produce(noted)).
  template <class Noted>
  flow::produce_status produce(Noted&& noted) {
    const auto status = flow::link_source<T>::produce(std::forward<Noted>(noted));
    if (status == flow::produce_status::ended && failure_) throw std::runtime_error(*failure_);
    return status;
  }
  /// Stop reading now, not when the graph is destroyed; on a pool worker, so no join here.
  void on_cancel() {
    flow::link_source<T>::on_cancel();
    if (feed_) feed_->request_stop();
  }

 protected:
  /// Call in on_start(): becomes the link's consumer and starts the reader thread.
  void start_reader(std::string thread_name, std::function<void(thread_feed<T>&)> body) {
    flow::link_source<T>::on_start();
    feed_ = std::make_unique<thread_feed<T>>(this->input());
    feed_->start(std::move(thread_name), std::move(body));
  }
  /// Reader thread: wakes the source for records pushed and not yet announced (before the
  /// reader blocks in a call it does not go through thread_feed for).
  void publish_to_graph() noexcept {
    if (feed_) feed_->publish();
  }
  /// Reader thread, before thread_feed::close(): close() publishes it to produce().
  void fail(std::string what) { failure_ = std::move(what); }
  /// The derived class's destructor calls this first when the reader uses its members.
  /// Joins the reader before the pointer goes: the reader reads `feed_` (publish_to_graph).
  void stop_reader() {
    if (feed_) feed_->stop();
    feed_.reset();
  }

 private:
  std::optional<std::string> failure_;
  std::unique_ptr<thread_feed<T>> feed_;
};

}  // namespace spate::io
