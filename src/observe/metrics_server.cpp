#include "spate/observe/metrics_server.hpp"

#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace spate::observe {
namespace {

// cpp-httplib reports a failed bind or listen as false, without the reason. Binding a socket
// of our own to the same address finds it: the usual causes (the port taken, a privileged
// port, an address not on this host, a host name that does not resolve) persist between the
// two attempts.
std::string bind_failure_reason(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int error = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); error != 0) {
    return ::gai_strerror(error);
  }
  std::string reason = "reason unknown (a second attempt succeeded)";
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      reason = std::strerror(errno);
      continue;
    }
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    const bool bound = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 1) == 0;
    if (!bound) reason = std::strerror(errno);
    ::close(fd);
    if (!bound) break;
  }
  ::freeaddrinfo(found);
  return reason;
}

}  // namespace

struct metrics_server::implementation {
  httplib::Server server;
  std::thread thread;
};

metrics_server::metrics_server(const metrics_registry& registry, metrics_server_options options)
    : implementation_(std::make_unique<implementation>()), address_(options.address) {
  auto& server = implementation_->server;
  // httplib's default also sets SO_REUSEPORT, with which a second server would share the
  // port silently instead of failing; keep only SO_REUSEADDR (quick restarts).
  server.set_socket_options([](int socket) {
    const int yes = 1;
    ::setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.Get("/metrics", [&registry](const httplib::Request&, httplib::Response& response) {
    response.set_content(registry.snapshot().to_prometheus(), "text/plain; version=0.0.4");
  });
  server.Get("/metrics.json", [&registry](const httplib::Request&, httplib::Response& response) {
    response.set_content(registry.snapshot().to_json(), "application/json");
  });
  port_ = options.port == 0
              ? server.bind_to_any_port(options.address)
              : (server.bind_to_port(options.address, options.port) ? options.port : -1);
  if (port_ < 0) {
    throw std::runtime_error("spate::observe::metrics_server: cannot listen on " + options.address +
                             ":" + std::to_string(options.port) + ": " +
                             bind_failure_reason(options.address, options.port));
  }
  implementation_->thread = std::thread([&server] { server.listen_after_bind(); });
  // A stop() before the listening loop has started would be missed, and the destructor
  // would wait forever; requests that come earlier wait in the socket's backlog.
  while (!server.is_running()) std::this_thread::yield();
}

metrics_server::~metrics_server() {
  implementation_->server.stop();
  if (implementation_->thread.joinable()) implementation_->thread.join();
}

std::string metrics_server::url() const {
  return "http://" + address_ + ":" + std::to_string(port_) + "/metrics";
}

}  // namespace spate::observe
