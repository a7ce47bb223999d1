#include "mapwright/support/posix_io.hpp"

#include <unistd.h>

#include <cerrno>

namespace mapwright::core {

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace mapwright::core
