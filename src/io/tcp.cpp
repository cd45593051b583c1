#include "spate/io/tcp.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <cstring>

namespace spate::io {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& where) {
  throw std::runtime_error("spate::io: " + what + " " + where + ": " + std::strerror(errno));
}

// `what` ("cannot listen on") names the operation in the error.
sockaddr_in address_of(const std::string& address, int port, const std::string& what) {
  if (port < 0 || port > 65535) {
    throw std::invalid_argument("spate::io: " + what + " " + address + ":" + std::to_string(port) +
                                ": port " + std::to_string(port) + " is not from 0 to 65535");
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1) {
    throw std::invalid_argument("spate::io: " + what + " " + address + ":" + std::to_string(port) +
                                ": '" + address + "' is not an IPv4 address (a.b.c.d)");
  }
  return a;
}

}  // namespace

tcp_listener::tcp_listener(int port, std::string address) : address_(std::move(address)) {
  const std::string where = address_ + ":" + std::to_string(port);
  const sockaddr_in a = address_of(address_, port, "cannot listen on");
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) fail("cannot create a socket for", where);
  const int yes = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0) {
    const int error = errno;
    ::close(fd_);
    errno = error;
    fail("cannot listen on", where);
  }
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &length);
  port_ = ntohs(bound.sin_port);
}

tcp_listener::~tcp_listener() {
  if (fd_ >= 0) ::close(fd_);
}

int tcp_listener::accept_one(int wake_fd) {
  const std::string where = address_ + ":" + std::to_string(port_);
  for (;;) {
    pollfd p[2] = {{fd_, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    const int ready = ::poll(p, wake_fd >= 0 ? 2 : 1, -1);
    if (ready < 0 && errno != EINTR) fail("cannot wait for a connection on", where);
    if (ready <= 0) continue;                                     // EINTR
    if (wake_fd >= 0 && (p[1].revents & POLLIN) != 0) return -1;  // asked to stop
    if ((p[0].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
      errno = EBADF;
      fail("cannot wait for a connection on", where);
    }
    if ((p[0].revents & POLLIN) == 0) continue;
    const int connection = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection >= 0) return connection;
    if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN) {
      fail("cannot accept a connection on", where);
    }
  }
}

tcp_connection::tcp_connection(const std::string& address, int port)
    : peer_(address + ":" + std::to_string(port)) {
  const sockaddr_in a = address_of(address, port, "cannot connect to");
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) fail("cannot create a socket for", peer_);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    errno = error;
    fail("cannot connect to", peer_);
  }
}

// Non-blocking connect: the wait for the handshake is a poll() that the wake fd ends.
tcp_connection::tcp_connection(const std::string& address, int port, int wake_fd)
    : peer_(address + ":" + std::to_string(port)) {
  const sockaddr_in a = address_of(address, port, "cannot connect to");
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) fail("cannot create a socket for", peer_);
  auto give_up = [this] {
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    errno = error;
    fail("cannot connect to", peer_);
  };
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    if (errno != EINPROGRESS) give_up();
    while (true) {
      pollfd p[2] = {{fd_, POLLOUT, 0}, {wake_fd, POLLIN, 0}};
      if (::poll(p, 2, -1) < 0) {
        if (errno == EINTR) continue;
        give_up();
      }
      if (p[1].revents != 0) {
        ::close(fd_);
        fd_ = -1;
        throw interrupted();
      }
      if (p[0].revents != 0) break;
    }
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) {
      errno = error;
      give_up();
    }
  }
  // Back to blocking for the other members; the wake-aware ones pass MSG_DONTWAIT.
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

tcp_connection::~tcp_connection() {
  if (fd_ >= 0) ::close(fd_);
}

void tcp_connection::write_all(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write to", peer_.empty() ? "the connection" : peer_);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

bool tcp_connection::write_all(const char* data, std::size_t size, int wake_fd) {
  while (size > 0) {
    const ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        fail("cannot write to", peer_.empty() ? "the connection" : peer_);
      }
      pollfd p[2] = {{fd_, POLLOUT, 0}, {wake_fd, POLLIN, 0}};
      if (::poll(p, 2, -1) < 0 && errno != EINTR) {
        fail("cannot wait to write to", peer_.empty() ? "the connection" : peer_);
      }
      if (p[1].revents != 0) return false;
      continue;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

void tcp_connection::finish_writing() {
  ::shutdown(fd_, SHUT_WR);
}

long tcp_connection::read_some(char* data, std::size_t size, int timeout_ms) {
  return read_some(data, size, timeout_ms, -1);
}

long tcp_connection::read_some(char* data, std::size_t size, int timeout_ms, int wake_fd) {
  while (true) {
    pollfd p[2] = {{fd_, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    const int ready = ::poll(p, wake_fd >= 0 ? 2 : 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) fail("cannot wait to read from", peer_.empty() ? "the connection" : peer_);
    if (ready == 0 || (wake_fd >= 0 && p[1].revents != 0)) return -1;
    const ssize_t n = ::recv(fd_, data, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot read from", peer_.empty() ? "the connection" : peer_);
    return static_cast<long>(n);
  }
}

namespace detail {

// The reader thread: one connection, until the peer closes it or the source stops.
void tcp_line_reader::read_connection(thread_feed<text_line>& feed) {
  try {
    const int fd = listener_->accept_one(feed.wake_fd());
    if (fd < 0) return;
    tcp_connection connection(fd);
    line_splitter splitter(errors_, options_);
    auto push = [&feed](text_line&& line) { return feed.push(std::move(line)); };
    char buffer[64 * 1024];
    while (!feed.stopping()) {
      // No timeout: a stop request makes the wake fd readable (returns -1).
      const long n = connection.read_some(buffer, sizeof buffer, -1, feed.wake_fd());
      if (n < 0) continue;  // woken: the loop sees stopping()
      if (n == 0) {
        splitter.finish(push);
        break;
      }
      if (!splitter.feed(buffer, static_cast<std::size_t>(n), push)) break;
      feed.publish();  // before the next read may block
    }
  } catch (const std::exception& e) {
    fail(e.what());
  }
  feed.close();
}

}  // namespace detail

}  // namespace spate::io
