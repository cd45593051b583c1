#pragma once
// Lines over TCP: a source that accepts one connection and streams its lines into a graph,
// and a sink that connects and writes each string as a line.
//
//   auto listener = std::make_shared<spate::io::tcp_listener>();   // 127.0.0.1, any port
//   flow::graph job(flow::pipeline(
//       spate::io::tcp_line_source(listener, errors),  // text_line per line received
//       ...,
//       spate::io::tcp_line_sink("127.0.0.1", 7000)));
//
// Backpressure end to end: the source's reader thread stops reading while the graph's
// input ring is full (io/thread_feed.hpp), the kernel's receive buffer fills, and
// the sender's writes block; the sink runs on a thread of its own and waits for its socket
// to take more while its peer is slow, which suspends the stages in front of it through
// their full edges. Malformed lines (not UTF-8, or longer than max_line_bytes) are
// recorded in the input_errors with their number and left out.
//
// Cancelling: every wait of both ends (accept, connect, read, write) is a poll() on the
// socket and on a wake fd that graph::cancel() signals, so a cancelled graph ends without
// waiting for the network: the sink stops writing at once (what it had buffered, and what
// its peer has not read, is dropped), the source stops reading at once. No wait has a
// timeout that cancellation depends on.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "spate/exec/link.hpp"
#include "spate/flow/link_source.hpp"
#include "spate/flow/stages.hpp"
#include "spate/io/thread_feed.hpp"
#include "spate/io/detail/wake_fd.hpp"
#include "spate/io/file.hpp"
#include "spate/io/input_errors.hpp"
#include "spate/platform/export.hpp"

namespace spate::io {

/// Thrown by the waits given a wake fd when it was signalled (the graph was cancelled).
struct SPATE_API interrupted : std::runtime_error {
  interrupted() : std::runtime_error("spate::io: interrupted (the graph was cancelled)") {}
};

/// A listening socket (RAII). Threading: accept_one() from one thread at a time.
class SPATE_API tcp_listener {
 public:
  /// Throws std::runtime_error naming the address when it cannot listen. Port 0: any free.
  explicit tcp_listener(int port = 0, std::string address = "127.0.0.1");
  ~tcp_listener();
  tcp_listener(const tcp_listener&) = delete;
  tcp_listener& operator=(const tcp_listener&) = delete;

  /// The port it listens on (the one chosen when constructed with 0).
  int port() const noexcept { return port_; }
  /// The address it listens on.
  const std::string& address() const noexcept { return address_; }
  /// Waits for a connection and returns its socket; -1 once `wake_fd` (when given: the
  /// caller's stop signal, io::detail::wake_fd) is readable. No timeout, no polling.
  int accept_one(int wake_fd = -1);

 private:
  int fd_ = -1;
  int port_ = 0;
  std::string address_;
};

/// A connected socket (RAII), for the sink and for tests.
class SPATE_API tcp_connection {
 public:
  /// Connects to address:port; throws std::runtime_error naming them on failure.
  tcp_connection(const std::string& address, int port);
  /// The same, but the wait for the connection ends when `wake_fd` becomes readable
  /// (throws io::interrupted then).
  tcp_connection(const std::string& address, int port, int wake_fd);
  /// Takes over a connected socket (from tcp_listener::accept_one).
  explicit tcp_connection(int connected_fd) : fd_(connected_fd) {}
  ~tcp_connection();
  tcp_connection(const tcp_connection&) = delete;
  tcp_connection& operator=(const tcp_connection&) = delete;

  /// Writes everything (blocking); throws std::runtime_error when the peer has gone.
  void write_all(const char* data, std::size_t size);
  /// The same, but waiting for room in poll() next to `wake_fd`: false (the rest unsent)
  /// as soon as that is readable.
  bool write_all(const char* data, std::size_t size, int wake_fd);
  /// Signals the end of what this side sends (the peer reads end of file).
  void finish_writing();
  /// Reads up to `size` bytes, waiting at most `timeout_ms` (-1: forever); 0 at end of file,
  /// -1 on timeout. Throws on a socket error.
  long read_some(char* data, std::size_t size, int timeout_ms);
  /// The same, also returning -1 as soon as `wake_fd` is readable.
  long read_some(char* data, std::size_t size, int timeout_ms, int wake_fd);
  /// The socket.
  int fd() const noexcept { return fd_; }

 private:
  int fd_ = -1;
  std::string peer_;
};

/// How tcp_line_source reads.
struct tcp_source_options {
  /// The link between the reader thread and the graph (lines; woken per notify_batch lines
  /// and after every received buffer).
  link_options link{.capacity = 4096};
  std::size_t max_line_bytes = 1u << 20;  ///< longer lines are malformed records
  bool check_utf8 = true;                 ///< lines that are not UTF-8 are malformed records
};

namespace detail {

/// Splits received bytes into lines and checks them. Not thread-safe (the reader's).
class SPATE_API line_splitter {
 public:
  line_splitter(std::shared_ptr<input_errors> errors, const tcp_source_options& options)
      : errors_(std::move(errors)), options_(options) {}
  /// Calls emit(text_line) for each complete, well-formed line in `data`.
  template <class Emit>
  bool feed(const char* data, std::size_t size, Emit&& emit) {
    for (std::size_t i = 0; i < size; ++i) {
      if (data[i] != '\n') {
        if (partial_.size() < options_.max_line_bytes) {
          partial_ += data[i];
        } else {
          too_long_ = true;
        }
        continue;
      }
      if (!finish_line(emit)) return false;
    }
    return true;
  }
  /// At end of stream: a last line without a line break still counts.
  template <class Emit>
  bool finish(Emit&& emit) {
    return partial_.empty() && !too_long_ ? true : finish_line(emit);
  }

 private:
  template <class Emit>
  bool finish_line(Emit& emit) {
    ++number_;
    std::string text = std::move(partial_);
    partial_.clear();
    if (too_long_) {
      too_long_ = false;
      errors_->record(number_, "longer than " + std::to_string(options_.max_line_bytes) + " bytes");
      return true;
    }
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (options_.check_utf8) {
      const std::size_t bad = first_invalid_utf8(text);
      if (bad != std::string::npos) {
        errors_->record(number_, "not valid UTF-8 at byte " + std::to_string(bad + 1));
        return true;
      }
    }
    return emit(text_line{number_, std::move(text)});
  }
  std::shared_ptr<input_errors> errors_;
  tcp_source_options options_;
  std::string partial_;
  bool too_long_ = false;
  std::uint64_t number_ = 0;
};

class SPATE_API tcp_line_reader : public thread_fed_source<text_line> {
 public:
  tcp_line_reader(std::shared_ptr<tcp_listener> listener, std::shared_ptr<input_errors> errors,
                  tcp_source_options options)
      : thread_fed_source(options.link),
        listener_(std::move(listener)),
        errors_(std::move(errors)),
        options_(options) {}
  tcp_line_reader(const tcp_line_reader& other) = default;
  ~tcp_line_reader() { stop_reader(); }

  void on_start() {
    start_reader("spate-tcp-in", [this](thread_feed<text_line>& feed) { read_connection(feed); });
  }

 private:
  void read_connection(thread_feed<text_line>& feed);

  std::shared_ptr<tcp_listener> listener_;
  std::shared_ptr<input_errors> errors_;
  tcp_source_options options_;
};

class tcp_line_writer : public flow::node<std::string, void> {
 public:
  tcp_line_writer(std::string address, int port) : address_(std::move(address)), port_(port) {}
  // Each replica has its own wake fd (stage prototypes are copied into the graph).
  tcp_line_writer(const tcp_line_writer& other) : tcp_line_writer(other.address_, other.port_) {}

  void on_start() {
    try {
      connection_ = std::make_shared<tcp_connection>(address_, port_, wake_->fd());
    } catch (const interrupted&) {  // cancelled while connecting: consume() drops the lines
    }
  }
  void consume(std::string& line) {
    if (!connection_) return;
    buffer_ += line;
    buffer_ += '\n';
    if (buffer_.size() >= 64 * 1024) flush();
  }
  void on_stop() {
    if (!connection_) return;
    flush();
    if (connection_) connection_->finish_writing();
    connection_.reset();
  }
  void on_cancel() { connection_.reset(); }
  // graph::cancel(), any thread: ends a write waiting for a peer that does not read.
  void interrupt() noexcept { wake_->signal(); }

 private:
  void flush() {
    // Interrupted: the graph is cancelled and will not call us again for this run.
    if (!connection_->write_all(buffer_.data(), buffer_.size(), wake_->fd())) connection_.reset();
    buffer_.clear();
  }
  std::string address_;
  int port_;
  std::shared_ptr<wake_fd> wake_ = std::make_shared<wake_fd>();
  std::shared_ptr<tcp_connection> connection_;
  std::string buffer_;
};

}  // namespace detail

/// Accepts one connection on `listener` and emits its lines until the peer closes.
inline auto tcp_line_source(std::shared_ptr<tcp_listener> listener,
                            std::shared_ptr<input_errors> errors, tcp_source_options options = {}) {
  if (!listener || !errors) {
    throw std::invalid_argument("spate::io::tcp_line_source: listener and errors must be set");
  }
  const std::string name =
      "tcp(" + listener->address() + ":" + std::to_string(listener->port()) + ")";
  return flow::make_stage<detail::tcp_line_reader>(listener, errors, options).named(name);
}

/// Connects to address:port when the graph starts; one line per string. Runs on a thread of
/// its own, since it waits for its socket while the peer is slow; graph::cancel() ends
/// that wait at once (lines not yet written are dropped).
inline auto tcp_line_sink(std::string address, int port) {
  const std::string name = "tcp(" + address + ":" + std::to_string(port) + ")";
  return flow::make_stage<detail::tcp_line_writer>(address, port).named(name).on_dedicated_thread();
}

}  // namespace spate::io
