// The checks of the user's simulation limits: each must be positive and at most its bound; a
// bad one is a SpecError naming the flag, the value as the user would write it, and the bound.
#include "mapwright/rtlpool/sim_limits.hpp"

#include <cstdio>
#include <string>

#include "mapwright/support/error.hpp"

namespace mapwright::rtlpool {

using core::SpecError;

namespace {

/// A number as the user would write it ("0.5", "1800", "1e+12").
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

void check_sim_limits(const SimLimits& l) {
  if (l.max_cycles <= 0 || l.max_cycles > kMaxSimCycles)
    throw SpecError(
        "--sim-max-cycles", "sim-max-cycles", std::to_string(l.max_cycles),
        "must be a positive number of cycles, at most " + std::to_string(kMaxSimCycles));
  if (!(l.max_seconds > 0) || !(l.max_seconds <= kMaxSimSeconds))
    throw SpecError("--sim-max-seconds", "sim-max-seconds", number_text(l.max_seconds),
                    "must be a positive number of seconds, at most " + number_text(kMaxSimSeconds) +
                        " (a week)");
  if (l.max_memory_mb <= 0 || l.max_memory_mb > kMaxSimMemoryMb)
    throw SpecError("--sim-max-memory-mb", "sim-max-memory-mb", std::to_string(l.max_memory_mb),
                    "must be a positive number of MiB, at most " + std::to_string(kMaxSimMemoryMb) +
                        " (1 TiB)");
}

}  // namespace mapwright::rtlpool
