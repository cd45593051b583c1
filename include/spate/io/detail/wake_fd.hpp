#pragma once
// A one-shot "stop" signal a thread blocked in poll() can wait on next to its socket: an
// eventfd that becomes readable when signalled and stays so (it is never read). Blocking
// network calls of the io and kafka layers wait on both, so cancelling a graph wakes them
// at once instead of after a polling period.
//
// Threading: signal() and signalled() from any thread; signal() never blocks.
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace spate::io::detail {

class wake_fd {
 public:
  wake_fd() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (fd_ < 0) {
      throw std::runtime_error(std::string("spate::io: cannot create an eventfd: ") +
                               std::strerror(errno));
    }
  }
  ~wake_fd() { ::close(fd_); }
  wake_fd(const wake_fd&) = delete;
  wake_fd& operator=(const wake_fd&) = delete;

  void signal() noexcept {
    if (signalled_.exchange(true, std::memory_order_acq_rel)) return;
    const std::uint64_t one = 1;
    // Cannot fail short of a full counter, which one write per eventfd never reaches.
    [[maybe_unused]] const auto written = ::write(fd_, &one, sizeof one);
  }
  bool signalled() const noexcept { return signalled_.load(std::memory_order_acquire); }
  /// Readable (POLLIN) once signalled.
  int fd() const noexcept { return fd_; }

 private:
  int fd_;
  std::atomic<bool> signalled_{false};
};

}  // namespace spate::io::detail
