#pragma once
/// \file test_hooks.hpp
/// Fault injection for the robustness tests, off unless the environment asks for it.
///
/// MAPWRIGHT_TEST_KILL_AT="<point>:<n>" makes the process kill itself with SIGKILL the n-th time
/// (1-based) it reaches the named point, as a crash or a power cut exactly there would. Points:
///   write   inside an atomic file write, with half of the temporary file written
///   sqlite  inside a SQLite transaction, after its first statement
///   trial   inside the append of a study trial record, with half of the line written
///   solve   inside the append of a co-design solve to its journal, with half of the line written
/// Tests use it to check that an interrupted run, study, sweep or co-design resumes to the same
/// result.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace mapwright::core {

/// True when this pass over `point` is the one MAPWRIGHT_TEST_KILL_AT names (counts passes;
/// thread-safe). Always false when the variable is unset.
inline bool kill_point_reached(const char* point) {
  static const char* spec = std::getenv("MAPWRIGHT_TEST_KILL_AT");
  if (!spec || !*spec) return false;
  const char* colon = std::strchr(spec, ':');
  if (!colon || static_cast<size_t>(colon - spec) != std::strlen(point) ||
      std::strncmp(spec, point, std::strlen(point)) != 0)
    return false;
  static const long target = std::strtol(colon + 1, nullptr, 10);
  static std::atomic<long> passes{0};
  return ++passes == target;
}

/// Ends the process at once, as SIGKILL from outside would (no handlers, no flushing).
[[noreturn]] inline void kill_self() {
  ::kill(::getpid(), SIGKILL);
  std::_Exit(137);  // not reached
}

}  // namespace mapwright::core
