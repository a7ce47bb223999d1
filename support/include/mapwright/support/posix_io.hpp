#pragma once
/// \file posix_io.hpp
/// Plain POSIX output shared by the flows and the RTL worker pool.

#include <cstddef>

namespace mapwright::core {

/// write(2) of all `n` bytes (retrying short writes and EINTR); false with errno set on failure.
bool write_all(int fd, const char* p, size_t n);

}  // namespace mapwright::core
