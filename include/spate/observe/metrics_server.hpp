#pragma once
// Serves a metrics registry over HTTP for Prometheus (and people) to read:
//   GET /metrics        Prometheus text exposition format 0.0.4
//   GET /metrics.json   the same snapshot as JSON
// Opt-in: nothing listens unless a metrics_server is made. It listens on loopback unless
// told otherwise, on its own thread, and stops when destroyed (RAII). Built on cpp-httplib
// (target spate::observe_http, present when the library is found).
//
//   spate::observe::metrics_server server(registry, {.port = 9464});
//   // curl http://127.0.0.1:9464/metrics
#include <memory>
#include <string>

#include "spate/observe/metrics_registry.hpp"
#include "spate/platform/export.hpp"

namespace spate::observe {

/// Where a metrics_server listens.
struct metrics_server_options {
  std::string address = "127.0.0.1";  ///< an IPv4 address; loopback unless told otherwise
  int port = 0;                       ///< 0: any free port (read it back with port())
};

/// Serves a registry's snapshots over HTTP (see the top of this file).
class SPATE_API metrics_server {
 public:
  /// Throws std::runtime_error naming the address and the system's reason when it cannot
  /// listen there ("cannot listen on 127.0.0.1:9464: Address already in use").
  metrics_server(const metrics_registry& registry, metrics_server_options options);
  /// Stops serving and joins the server's thread.
  ~metrics_server();
  metrics_server(const metrics_server&) = delete;
  metrics_server& operator=(const metrics_server&) = delete;

  /// The port it listens on (the one chosen when asked for 0).
  int port() const noexcept { return port_; }
  std::string url() const;  ///< http://address:port/metrics

 private:
  struct implementation;
  std::unique_ptr<implementation> implementation_;
  std::string address_;
  int port_ = 0;
};

}  // namespace spate::observe
