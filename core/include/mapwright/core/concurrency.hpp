#pragma once
/// \file concurrency.hpp
/// How many threads or worker processes a flow uses when the user does not say.

#include <algorithm>
#include <thread>

namespace mapwright::core {

/// The default number of threads or worker processes: the hardware's concurrency, or 1 when the
/// standard library cannot tell (std::thread::hardware_concurrency() returns 0).
inline int default_jobs() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace mapwright::core
