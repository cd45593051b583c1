#pragma once
// A one-shot "stop" signal a thread blocked in poll() can wait on next to its socket: an
// eventfd that becomes readable when signalled and stays so (it is never read). Blocking
// network calls of the io and kafka layers wait on both, so cancelling a graph wakes them
// at once instead of after a polling period.
//
// Threading: signal() and signalled() from any thread; signal() never blocks.
//
// Linux: an eventfd. The portable platform (spate/platform/os.hpp): a pipe whose read end is
// the readable descriptor.
#if !defined(SPATE_PLATFORM_PORTABLE)
#include <sys/eventfd.h>
#endif
#include <fcntl.h>
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
#if !defined(SPATE_PLATFORM_PORTABLE)
  wake_fd() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (fd_ < 0) {
      throw std::runtime_error(std::string("spate::io: cannot create an eventfd: ") +
                               std::strerror(errno));
    }
    write_fd_ = fd_;
  }
  ~wake_fd() { ::close(fd_); }
#else
  wake_fd() {
    int ends[2];
    if (::pipe(ends) != 0) {
      throw std::runtime_error(std::string("spate::io: cannot create a pipe: ") +
                               std::strerror(errno));
    }
    for (int end : ends) {
      ::fcntl(end, F_SETFD, FD_CLOEXEC);
      ::fcntl(end, F_SETFL, ::fcntl(end, F_GETFL) | O_NONBLOCK);
    }
    fd_ = ends[0];
    write_fd_ = ends[1];
  }
  ~wake_fd() {
    ::close(fd_);
    ::close(write_fd_);
  }
#endif
  wake_fd(const wake_fd&) = delete;
  wake_fd& operator=(const wake_fd&) = delete;

  void signal() noexcept {
    if (signalled_.exchange(true, std::memory_order_acq_rel)) return;
    const std::uint64_t one = 1;
    // Cannot fail short of a full counter, which one write per eventfd never reaches.
    [[maybe_unused]] const auto written = ::write(write_fd_, &one, sizeof one);
  }
  bool signalled() const noexcept { return signalled_.load(std::memory_order_acquire); }
  /// Readable (POLLIN) once signalled.
  int fd() const noexcept { return fd_; }

 private:
  int fd_;        ///< the readable end
  int write_fd_;  ///< fd_ itself for an eventfd, the pipe's write end otherwise
  std::atomic<bool> signalled_{false};
};

}  // namespace spate::io::detail
