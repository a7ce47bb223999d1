#pragma once
/// \file sim_limits.hpp
/// The per-simulation limits as the CLI takes them (--sim-max-cycles, --sim-max-seconds,
/// --sim-max-memory-mb): the limits (rtl_api) and the bounds of the user's values.

#include "mapwright/rtl_api/rtl_api.hpp"

namespace mapwright::rtlpool {

/// Per-simulation limits (rtl_api): cycles and memory are checked in the worker before a run
/// starts, the wall clock by the pool.
using SimLimits = rtl::SimLimits;
/// Upper bounds of the user's values.
constexpr long long kMaxSimCycles = 1'000'000'000'000;  ///< --sim-max-cycles
constexpr double kMaxSimSeconds = 604800;               ///< --sim-max-seconds (a week)
constexpr long long kMaxSimMemoryMb = 1'048'576;        ///< --sim-max-memory-mb (1 TiB)
/// Refuses a limit that is not positive or is above its bound with a core::SpecError naming the
/// flag (--sim-max-cycles, --sim-max-seconds, --sim-max-memory-mb), the value and the bound.
void check_sim_limits(const SimLimits& limits);

}  // namespace mapwright::rtlpool
