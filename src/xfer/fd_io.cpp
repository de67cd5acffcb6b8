#include "fd_io.hpp"

#include <unistd.h>

#include <cerrno>

namespace loom {
namespace xfer {
namespace {

template <class Call>
bool all(char *c, size_t n, Call call) {
  while (n > 0) {
    const ssize_t k = call(c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k, n -= k;
  }
  return true;
}

}  // namespace

bool read_full(int fd, void *p, size_t n) noexcept {
  return all(static_cast<char *>(p), n, [fd](char *c, size_t k) { return read(fd, c, k); });
}

bool write_full(int fd, const void *p, size_t n) noexcept {
  return all(const_cast<char *>(static_cast<const char *>(p)), n,
             [fd](char *c, size_t k) { return write(fd, c, k); });
}

}  // namespace xfer
}  // namespace loom
